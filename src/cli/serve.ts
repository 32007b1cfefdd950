import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { TENSOR_BACKEND_CHOICES } from '../engine/tensor/choices.js';
import { startKiln, type KilnRuntime } from '../runtime.js';
import { DEFAULT_ORGANIZATION, createApiKey } from '../service/api-keys.js';
import { KEY_PREFIXES, generateApiKey, type KeyPrefix } from '../service/api-key-format.js';
import { SCOPES, type Scope } from '../service/principal.js';

type Mode = { api: boolean; worker: boolean; needsDatabaseUrl: boolean };

const MODES: Record<'start' | 'serve' | 'worker', Mode> = {
  start: { api: true, worker: true, needsDatabaseUrl: false },
  serve: { api: true, worker: false, needsDatabaseUrl: true },
  worker: { api: false, worker: true, needsDatabaseUrl: true },
};

/** Runs Kiln until SIGTERM/SIGINT, then shuts down cleanly and exits 0. `backend`: --backend, over KILN_TENSOR_BACKEND. */
async function run(name: keyof typeof MODES, backend?: string): Promise<void> {
  const mode = MODES[name];
  let runtime: KilnRuntime;
  try {
    const config = loadConfig(backend === undefined ? process.env : { ...process.env, KILN_TENSOR_BACKEND: backend });
    if (mode.needsDatabaseUrl && !config.DATABASE_URL) {
      throw new ConfigError([
        `DATABASE_URL: is required for \`kiln ${name}\`, so that API nodes and workers share one database (\`kiln start\` runs everything with an embedded Postgres)`,
      ]);
    }
    runtime = await startKiln({ config, api: mode.api, worker: mode.worker });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
    return;
  }
  if (runtime.url) {
    process.stdout.write(`\nKiln is serving at ${runtime.url}  (API docs: ${runtime.url}/docs)\n`);
    if (runtime.bootstrap?.created) {
      process.stdout.write(`Admin API key (shown once, keep it safe):\n\n  ${runtime.bootstrap.key}\n\n`);
    } else if (runtime.bootstrap) {
      process.stdout.write('Admin API key: the one in BOOTSTRAP_ADMIN_KEY.\n');
    }
  }
  if (runtime.supervisor) process.stdout.write(`Worker ${runtime.supervisor.workerId} is taking jobs.\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'shutting down');
    runtime.stop().then(
      () => process.exit(0),
      (error) => {
        runtime.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

export function serviceCommands(): Command[] {
  return [
    serviceCommand('start', 'serve the API and run a worker in one process (embedded Postgres unless DATABASE_URL is set)'),
    serviceCommand('serve', 'serve the API only (needs DATABASE_URL)'),
    serviceCommand('worker', 'run a job supervisor with WORKER_CONCURRENCY slots (needs DATABASE_URL)'),
    keysCommand(),
  ];
}

function serviceCommand(name: keyof typeof MODES, description: string): Command {
  return new Command(name)
    .description(description)
    .option('--backend <name>', `tensor backend of the engine threads: ${TENSOR_BACKEND_CHOICES.join(', ')} (default: KILN_TENSOR_BACKEND, else auto)`)
    .action((opts: { backend?: string }) => run(name, opts.backend));
}

function keysCommand(): Command {
  const keys = new Command('keys').description('API keys for automation');
  keys
    .command('generate')
    .description('print a new random key (e.g. for BOOTSTRAP_ADMIN_KEY); stores nothing')
    .addOption(new Option('--prefix <prefix>', 'key prefix').choices([...KEY_PREFIXES]).default('svc_live_'))
    .action((opts: { prefix: KeyPrefix }) => {
      process.stdout.write(`${generateApiKey(opts.prefix)}\n`);
    });
  keys
    .command('create')
    .description('create a key in the database (DATABASE_URL) and print it once')
    .requiredOption('--name <name>', 'what the key is for')
    .addOption(new Option('--scope <scope...>', 'scopes').choices([...SCOPES]).default(['admin']))
    .addOption(new Option('--prefix <prefix>', 'key prefix').choices([...KEY_PREFIXES]).default('svc_live_'))
    .option('--expires <date>', 'expiry (ISO 8601)')
    .action(async (opts: { name: string; scope: Scope[]; prefix: KeyPrefix; expires?: string }) => {
      const expiresAt = opts.expires ? new Date(opts.expires) : null;
      if (expiresAt && Number.isNaN(expiresAt.getTime())) {
        process.stderr.write(`--expires: ${opts.expires} is not a date\n`);
        process.exitCode = 2;
        return;
      }
      const config = loadConfig();
      if (!config.DATABASE_URL) {
        process.stderr.write('DATABASE_URL: is required to create a key (the key is stored in that database).\n');
        process.exitCode = 2;
        return;
      }
      const runtime = await startKiln({ config, api: false, worker: false });
      try {
        const { key, row } = await createApiKey(runtime.db, {
          organizationId: DEFAULT_ORGANIZATION.id,
          name: opts.name,
          scopes: opts.scope,
          expiresAt,
          prefix: opts.prefix,
        });
        process.stdout.write(`${row.id}  ${key}\n`);
      } finally {
        await runtime.stop();
      }
    });
  return keys;
}
