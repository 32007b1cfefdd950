import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One embedded Postgres shared by the test files of a run. `node --test` runs every file in its
 * own process, so the server belongs to a detached keeper process (./postgres-keeper.ts) that the
 * first file starts, and the processes coordinate through a folder under the temporary folder:
 *
 *   lock/          a mkdir mutex around reading or changing the rest
 *   server.json    { keeper, url }: the keeper's pid, and the server's URL once it accepts connections
 *   leases/<pid>   one per process that needs the server while it lives
 *   server-<pid>/  a keeper's cluster; keeper-<pid>.error why it could not start
 *
 * A file run by `node --test` leases the runner's pid (its parent), so the server outlives the
 * gaps between files and stops a few seconds after the run ends; a file run alone leases its own.
 * The folder is keyed by this build's location, so other checkouts never share it.
 */

export interface ServerState {
  keeper: number;
  url: string | null;
}

/** How long the keeper keeps the server with no live lease. */
export const IDLE_GRACE_MS = 5_000;
const START_TIMEOUT_MS = 120_000;

export function sharedFolder(): string {
  const build = dirname(fileURLToPath(import.meta.url));
  const key = createHash('sha256').update(build).digest('hex').slice(0, 16);
  return join(tmpdir(), `kiln-test-postgres-${key}`);
}

/** The URL of the shared server (started if none runs), leased for this process's run. */
export async function sharedPostgresUrl(): Promise<string> {
  const folder = sharedFolder();
  // under root the server runs as the postgres user, which must be able to enter the folder
  if (mkdirSync(folder, { recursive: true })) chmodSync(folder, 0o755);
  mkdirSync(join(folder, 'leases'), { recursive: true });
  const keeper = await withLock(folder, () => {
    let state = readState(folder);
    if (!state || !alive(state.keeper)) {
      state = { keeper: spawnKeeper(folder), url: null };
      writeState(folder, state);
    }
    const holder = process.env.NODE_TEST_CONTEXT ? process.ppid : process.pid;
    writeFileSync(join(folder, 'leases', String(holder)), '');
    return state.keeper;
  });
  for (const deadline = Date.now() + START_TIMEOUT_MS; ;) {
    const state = readState(folder);
    if (state?.keeper === keeper && state.url) return state.url;
    if (!alive(keeper)) {
      const error = join(folder, `keeper-${keeper}.error`);
      throw new Error(`The shared test Postgres did not start: ${existsSync(error) ? readFileSync(error, 'utf8') : 'its keeper exited'}`);
    }
    if (Date.now() > deadline) throw new Error(`The shared test Postgres did not start within ${START_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

/** Number of leases whose process still runs; the others are removed. */
export function liveLeases(folder: string): number {
  let live = 0;
  for (const name of readdirSync(join(folder, 'leases'))) {
    if (alive(Number(name))) live++;
    else rmSync(join(folder, 'leases', name), { force: true });
  }
  return live;
}

export function readState(folder: string): ServerState | null {
  try {
    return JSON.parse(readFileSync(join(folder, 'server.json'), 'utf8')) as ServerState;
  } catch {
    return null;
  }
}

export function writeState(folder: string, state: ServerState): void {
  const scratch = join(folder, `server.json.${process.pid}`);
  writeFileSync(scratch, JSON.stringify(state));
  renameSync(scratch, join(folder, 'server.json'));
}

/** Runs `fn` holding the folder's lock; a lock whose holder died is taken over. */
export async function withLock<T>(folder: string, fn: () => T | Promise<T>): Promise<T> {
  const lock = join(folder, 'lock');
  for (const deadline = Date.now() + 60_000; ;) {
    try {
      mkdirSync(lock);
      closeSync(openSync(join(lock, String(process.pid)), 'w'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (abandoned(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} stayed locked for 60 s`);
      else await sleep(20);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function abandoned(lock: string): boolean {
  try {
    const owners = readdirSync(lock);
    // an owner that died between mkdir and naming itself: judge by age
    if (owners.length === 0) return Date.now() - statSync(lock).mtimeMs > 5_000;
    return !alive(Number(owners[0]));
  } catch {
    return false;
  }
}

function spawnKeeper(folder: string): number {
  const here = fileURLToPath(import.meta.url);
  const script = join(dirname(here), here.endsWith('.ts') ? 'postgres-keeper.ts' : 'postgres-keeper.js');
  // keep loaders (tsx) but not the runner's own flags
  const flags = process.execArgv.filter((flag) => !flag.startsWith('--test'));
  // the keeper outlives this file: it is no test of the runner's
  const { NODE_TEST_CONTEXT: _runner, ...env } = process.env;
  const child = spawn(process.execPath, [...flags, script, folder], { detached: true, stdio: 'ignore', env });
  child.unref();
  return child.pid!;
}

export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
