import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startKiln, type KilnRuntime } from '../../src/runtime.js';
import { generateApiKey } from '../../src/service/api-key-format.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/store/embedded-postgres.js';
import { sharedPostgresUrl } from './shared-postgres.js';
import { cloneTemplate, databaseUrl } from './template-database.js';

/**
 * The Postgres server of a test file: by default the embedded server the test files of a run
 * share (./shared-postgres.ts), or one of its own for a file that stops it on purpose, or, when
 * KILN_TEST_DATABASE_URL names a running server (CI runs the service tests against Debian's
 * postgresql this way too), that server. Each `database()` is a fresh copy of a migrated template
 * (./template-database.ts), so tests do not see each other's rows.
 */
export class TestPostgres {
  private counter = 0;
  private constructor(
    private readonly url: string,
    private server: EmbeddedDatabase | null,
    private readonly parent: string | null,
  ) {}

  /** own: a server for this file alone, which `pause` and `resume` may stop and start. */
  static async start(options: { own?: boolean } = {}): Promise<TestPostgres> {
    const external = process.env.KILN_TEST_DATABASE_URL;
    if (external) return new TestPostgres(external, null, null);
    if (!options.own) return new TestPostgres(await sharedPostgresUrl(), null, null);
    const parent = mkdtempSync(join(tmpdir(), 'kiln-test-pg-'));
    // under root the server runs as the postgres user, which must be able to enter the folder
    chmodSync(parent, 0o755);
    const server = await startEmbeddedPostgres({ dataDir: join(parent, 'postgres') });
    return new TestPostgres(server.url, server, parent);
  }

  async database(): Promise<string> {
    // a long-lived server outlives many test processes, and pids wrap (pid_max is 32768 on CI
    // machines): the random part keeps a later process from reusing an earlier one's name
    const name = `kiln_test_${process.pid}_${randomBytes(4).toString('hex')}_${++this.counter}`;
    await cloneTemplate(this.url, name);
    return databaseUrl(this.url, name);
  }

  /** Stops a server of the file's own, as a crash or a maintenance window would. */
  async pause(): Promise<void> {
    if (!this.server) throw new Error("only a server of the file's own can be paused");
    await this.server.stop();
  }

  /** Starts it again on the same folder and port: the URLs stay valid. */
  async resume(): Promise<void> {
    if (!this.server || !this.parent) throw new Error("only a server of the file's own can be resumed");
    this.server = await startEmbeddedPostgres({ dataDir: join(this.parent, 'postgres'), port: this.server.port });
  }

  /** Stops a server of the file's own; the shared one stops by itself after the run. */
  async stop(): Promise<void> {
    if (!this.server) return;
    await this.server.stop();
    rmSync(this.parent!, { recursive: true, force: true });
  }
}

/** The JWT secret of test servers (tests sign their own bad tokens with it). */
export const TEST_SECRET = 'kiln-test-secret-0123456789-abcdefghijkl';

export interface TestKiln {
  base: string;
  adminKey: string;
  runtime: KilnRuntime;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Kiln (API and, unless disabled, an in-process worker) on loopback against `databaseUrl`; `logger` to read what it logs. */
export async function startTestKiln(databaseUrl: string, env: Record<string, string> = {}, options: { logger?: Logger } = {}): Promise<TestKiln> {
  const adminKey = env.BOOTSTRAP_ADMIN_KEY ?? generateApiKey();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_KEY: adminKey,
    WORKER_CONCURRENCY: '1',
    KILN_TENSOR_BACKEND: 'cpu',
    KILN_LEASE_SECONDS: '3',
    KILN_SHUTDOWN_GRACE_SECONDS: '5',
    API_SECRET_KEY: TEST_SECRET,
    // tests poll fast; the rate-limit tests set their own limits
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    API_RATE_LIMIT_PER_HOUR: '100000000',
    ...env,
  });
  const runtime = await startKiln({
    config,
    api: true,
    worker: config.WORKER_CONCURRENCY > 0,
    logger: options.logger ?? pino({ level: process.env.KILN_TEST_LOG ?? 'silent' }),
  });
  return { base: runtime.url!, adminKey, runtime, databaseUrl, stop: () => runtime.stop() };
}

/** The `kiln` CLI entry point next to this code (compiled, or the TypeScript source under tsx). */
export function kilnMain(): string {
  const here = fileURLToPath(import.meta.url);
  return join(here, here.endsWith('.ts') ? '../../../src/cli/main.ts' : '../../../src/cli/main.js');
}

/** A `kiln worker` process against the database, as a cluster would run it. */
export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, kilnMain(), 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      WORKER_CONCURRENCY: '1',
      KILN_TENSOR_BACKEND: 'cpu',
      KILN_LEASE_SECONDS: '3',
      KILN_SHUTDOWN_GRACE_SECONDS: '5',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** A small HTTP client with the admin key, returning status, headers and parsed JSON. */
export function client(base: string, key: string | null) {
  return async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' || body instanceof FormData ? body : JSON.stringify(body);
      if (!(body instanceof FormData) && !headers['Content-Type']) (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

/** A client for requests that must succeed: each returns its envelope's `data`, or fails the test with the status and body. */
export function dataClient(base: string, key: string) {
  const request = client(base, key);
  return async function call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await request(method, path, body);
    if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.json.data;
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
