import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../src/service/api-key-format.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { dataClient, eventually, kilnMain } from './support/service.js';

/** `kiln start` as a person runs it: one process, an embedded Postgres under KILN_DATA_DIR. */
async function kilnStart(dataDir: string, adminKey: string): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [...process.execArgv, kilnMain(), 'start'], {
    env: {
      ...process.env,
      KILN_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      WORKER_CONCURRENCY: '0',
      KILN_TENSOR_BACKEND: 'cpu',
      BOOTSTRAP_ADMIN_KEY: adminKey,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const base = await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`kiln start exited (${child.exitCode}): ${output}`);
      return /Kiln is serving at (http:\/\/\S+)/.exec(output)?.[1];
    },
    120_000,
    'kiln start to serve',
  );
  return { child, base, exited };
}

/** The pid in the cluster's lock file: the postmaster serving it. */
const postmaster = (dataDir: string) => Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);

/** Whether `pid` runs: an exited process nobody reaped (a zombie, where init does not reap) counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('kill -9 of `kiln start` leaves its Postgres behind; the next start on the same data folder stops it, serves the same data, and SIGTERM then stops both', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'kiln-takeover-'));
  // under root the server runs as the postgres user, which must be able to enter the folder
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  const adminKey = generateApiKey();
  try {
    const first = await kilnStart(dataDir, adminKey);
    const created = await dataClient(first.base, adminKey)('POST', '/v1/campaigns', { name: 'kept across kill -9', domain: 'test', mdl: zdt1Mdl() });
    const orphan = postmaster(dataDir);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(alive(orphan), 'a killed process cannot stop its Postgres: the server is left running');

    const second = await kilnStart(dataDir, adminKey);
    assert.ok(!alive(orphan), 'the next start stopped the server left behind');
    const call = dataClient(second.base, adminKey);
    assert.equal((await call('GET', '/v1/health')).database, 'ok');
    assert.equal((await call('GET', `/v1/campaigns/${created.id}`)).name, 'kept across kill -9');
    const serving = postmaster(dataDir);
    assert.notEqual(serving, orphan);

    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
    await eventually(async () => (alive(serving) ? undefined : true), 30_000, 'the Postgres of a stopped Kiln to stop');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
