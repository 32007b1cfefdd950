import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/store/embedded-postgres.js';

test('embedded Postgres starts, keeps its data across restarts, and listens on loopback only', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kiln-pg-'));
  // under root the server runs as the postgres user, which must be able to enter the folder
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'postgres');
  try {
    const first = await startEmbeddedPostgres({ dataDir });
    assert.match(first.url, /^postgres:\/\/kiln:[^@]+@127\.0\.0\.1:\d+\/kiln$/);
    assert.equal(statSync(`${dataDir}.password`).mode & 0o777, 0o600);
    let client = new pg.Client({ connectionString: first.url });
    await client.connect();
    const { rows } = await client.query<{ version: string }>('select version()');
    assert.match(rows[0].version, /^PostgreSQL \d+/);
    await client.query('create table kept (value int)');
    await client.query('insert into kept values (42)');
    const listen = await client.query<{ listen_addresses: string }>('show listen_addresses');
    assert.equal(listen.rows[0].listen_addresses, '127.0.0.1');
    await client.end();
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir });
    client = new pg.Client({ connectionString: second.url });
    await client.connect();
    const kept = await client.query<{ value: number }>('select value from kept');
    assert.deepEqual(kept.rows, [{ value: 42 }]);
    await client.end();
    await second.stop();
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('a data folder the server user cannot reach is refused with what to change (root), or simply works (ordinary user)', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kiln-pg-private-'));
  chmodSync(parent, 0o700);
  try {
    if (process.getuid?.() === 0) {
      await assert.rejects(startEmbeddedPostgres({ dataDir: join(parent, 'postgres') }), (error: Error) => /cannot enter .*KILN_DATA_DIR/s.test(error.message));
    } else {
      const server = await startEmbeddedPostgres({ dataDir: join(parent, 'postgres') });
      await server.stop();
    }
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('a lock file whose pid is now another program (a restart reused it) is removed, never signalled: the server starts and that program lives on', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kiln-pg-reused-'));
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'postgres');
  const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    await (await startEmbeddedPostgres({ dataDir })).stop();
    // what a server killed with its machine leaves behind, once the pid belongs to someone else
    writeFileSync(join(dataDir, 'postmaster.pid'), `${bystander.pid}\n${dataDir}\n`);
    const server = await startEmbeddedPostgres({ dataDir });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    assert.equal((await client.query<{ one: number }>('select 1 as one')).rows[0].one, 1);
    await client.end();
    await server.stop();
    assert.equal(bystander.exitCode, null, 'the program holding the old pid was not stopped');
    assert.equal(bystander.signalCode, null);
  } finally {
    bystander.kill('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  }
});
