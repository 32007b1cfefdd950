import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/store/embedded-postgres.js';
import { IDLE_GRACE_MS, liveLeases, readState, sleep, withLock, writeState } from './shared-postgres.js';

/**
 * The detached process that owns the shared test Postgres (see ./shared-postgres.ts): it starts
 * the server in its own cluster folder, publishes the URL, and stops the server and removes the
 * folder once no lease has been live for IDLE_GRACE_MS. Usage: postgres-keeper <folder>.
 */

const folder = process.argv[2];
const cluster = join(folder, `server-${process.pid}`);
let server: EmbeddedDatabase | null = null;

async function main(): Promise<void> {
  mkdirSync(cluster, { recursive: true });
  chmodSync(cluster, 0o755);
  server = await start();
  const url = server.url;
  const published = await withLock(folder, () => {
    if (readState(folder)?.keeper !== process.pid) return false;
    writeState(folder, { keeper: process.pid, url });
    return true;
  });
  if (!published) return;
  let idleSince: number | null = null;
  for (;;) {
    await sleep(500);
    if (liveLeases(folder) > 0) {
      idleSince = null;
      continue;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince < IDLE_GRACE_MS) continue;
    // decide under the lock, so a process leasing right now either sees us gone or is counted
    const done = await withLock(folder, () => {
      if (liveLeases(folder) > 0) return false;
      if (readState(folder)?.keeper === process.pid) rmSync(join(folder, 'server.json'), { force: true });
      return true;
    });
    if (done) return;
    idleSince = null;
  }
}

/**
 * The embedded server with room for the connections of several Kiln instances at once (test files
 * may run concurrently; each used to have a server of its own): the setting needs a restart.
 */
async function start(): Promise<EmbeddedDatabase> {
  const dataDir = join(cluster, 'postgres');
  const first = await startEmbeddedPostgres({ dataDir });
  const client = new pg.Client({ connectionString: first.url });
  await client.connect();
  try {
    await client.query("alter system set max_connections = '400'");
  } finally {
    await client.end();
  }
  await first.stop();
  return startEmbeddedPostgres({ dataDir, port: first.port });
}

async function shutdown(code: number): Promise<never> {
  await server?.stop().catch(() => undefined);
  rmSync(cluster, { recursive: true, force: true });
  process.exit(code);
}

process.once('SIGTERM', () => void shutdown(0));
process.once('SIGINT', () => void shutdown(0));

main().then(
  () => shutdown(0),
  (error: Error) => {
    writeFileSync(join(folder, `keeper-${process.pid}.error`), error.message);
    return shutdown(1);
  },
);
