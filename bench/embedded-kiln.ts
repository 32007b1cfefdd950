import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startKiln, type KilnRuntime } from '../src/runtime.js';
import { generateApiKey } from '../src/service/api-key-format.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/store/embedded-postgres.js';

export interface BenchKiln {
  runtime: KilnRuntime;
  base: string;
  key: string;
  /** the environment it was started with, to start more nodes on the same database */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Kiln on a fresh embedded Postgres in a temporary folder, on loopback, with a bootstrap admin
 * key: the way the service tests start it (test code is not importable from bench/). `env` adds
 * to or overrides the defaults; the folder is removed on stop or on a failed start.
 */
export async function startBenchKiln(env: Record<string, string>, options: { worker: boolean }): Promise<BenchKiln> {
  const parent = mkdtempSync(join(tmpdir(), 'kiln-bench-pg-'));
  // under root the server runs as the postgres user, which must be able to enter the folder
  chmodSync(parent, 0o755);
  let database: EmbeddedDatabase | null = null;
  try {
    database = await startEmbeddedPostgres({ dataDir: join(parent, 'postgres') });
    const key = generateApiKey();
    const full = {
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      BOOTSTRAP_ADMIN_KEY: key,
      // required with DATABASE_URL so that API nodes share a token secret; here any secret will do
      API_SECRET_KEY: randomBytes(32).toString('base64url'),
      ...env,
    };
    const runtime = await startKiln({ config: loadConfig(full), api: true, worker: options.worker, logger: pino({ level: 'silent' }) });
    const db = database;
    return {
      runtime,
      base: runtime.url!,
      key,
      env: full,
      stop: async () => {
        await runtime.stop();
        await db.stop();
        rmSync(parent, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await database?.stop().catch(() => undefined);
    rmSync(parent, { recursive: true, force: true });
    throw error;
  }
}
