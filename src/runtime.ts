import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { createApp, type HealthReport } from './api/app.js';
import { bearerAuthenticator, type CredentialSubscriber } from './api/auth.js';
import { clientIp } from './api/client-ip.js';
import { guardConnections } from './api/connection-guard.js';
import { attachEventHub, type EventHub } from './api/event-hub.js';
import { RateLimits } from './api/rate-limit.js';
import { ConfigError, type Config } from './config.js';
import { probeTensorBackend, type TensorBackendInfo } from './engine/tensor/backend.js';
import type { KilnEvent } from './events.js';
import { IngestPool } from './datasets/ingest-pool.js';
import { Supervisor } from './jobs/supervisor.js';
import { packageRoot, packageVersion } from './package-root.js';
import { bootstrapAdminKey, KeyUsageRecorder } from './service/api-keys.js';
import { loadBuiltinTemplates } from './service/builtin-templates.js';
import { TemplateCatalog } from './service/templates.js';
import { TokenService } from './service/tokens.js';
import { findCampaign } from './store/campaigns.js';
import { createDb, databaseReachable, type Db } from './store/db.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './store/embedded-postgres.js';
import { findJob } from './store/jobs.js';
import { PgListener } from './store/listener.js';
import { migrate } from './store/migrate.js';
import { CREDENTIALS_CHANNEL, EVENTS_CHANNEL } from './store/notify.js';
import { liveWorkers } from './store/workers.js';

export interface KilnOptions {
  config: Config;
  /** serve the HTTP API and WebSocket */
  api: boolean;
  /** run a job supervisor with WORKER_CONCURRENCY slots */
  worker: boolean;
  logger?: Logger;
}

export interface KilnRuntime {
  /** base URL of the API when it serves */
  url: string | null;
  databaseUrl: string;
  /** the admin key created or configured at this start (to print once) */
  bootstrap: { key: string; created: boolean } | null;
  db: Db;
  supervisor: Supervisor | null;
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * Starts Kiln: Postgres (embedded unless DATABASE_URL is set), migrations, and the API and/or a
 * supervisor. `npm start` runs all of it in one process; a cluster runs `kiln serve` and
 * `kiln worker` processes against one DATABASE_URL.
 */
export async function startKiln(options: KilnOptions): Promise<KilnRuntime> {
  const { config } = options;
  const logger = options.logger ?? pino({ level: config.LOG_LEVEL });
  let embedded: EmbeddedDatabase | null = null;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: join(config.KILN_DATA_DIR, 'postgres'), onLog: (line) => logger.debug({ postgres: line }) });
    databaseUrl = embedded.url;
    logger.info({ port: embedded.port }, 'embedded Postgres started');
  }
  const db = createDb({ url: databaseUrl });
  const stops: (() => Promise<void>)[] = [];
  try {
    const applied = await migrate(db);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

    const supervisor =
      options.worker && config.WORKER_CONCURRENCY > 0
        ? new Supervisor({
            db,
            databaseUrl,
            logger: logger.child({ component: 'supervisor' }),
            concurrency: config.WORKER_CONCURRENCY,
            backend: config.KILN_TENSOR_BACKEND,
            leaseSeconds: config.KILN_LEASE_SECONDS,
            maxAttempts: config.KILN_MAX_ATTEMPTS,
            evaluatorOptions: { allowCommand: config.KILN_ALLOW_COMMAND_EVALUATOR, httpAllowHosts: config.KILN_HTTP_EVALUATOR_HOSTS },
          })
        : null;

    let url: string | null = null;
    let bootstrap: KilnRuntime['bootstrap'] = null;
    if (options.api) {
      bootstrap = await bootstrapAdminKey(db, config.BOOTSTRAP_ADMIN_KEY);
      // the API computes no tensors: it reports what this host's engine threads choose, without opening a GPU
      const backend = await probeTensorBackend(config.KILN_TENSOR_BACKEND);
      const api = await startApi(config, db, databaseUrl, logger, backend, apiSecret(config));
      url = api.url;
      stops.push(() => api.stop());
    }
    if (supervisor) {
      await supervisor.start();
      stops.unshift(() => supervisor.stop(config.KILN_SHUTDOWN_GRACE_SECONDS * 1000));
    }
    let stopped = false;
    return {
      url,
      databaseUrl,
      bootstrap,
      db,
      supervisor,
      logger,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        for (const stop of stops) await stop();
        await db.destroy();
        await embedded?.stop();
      },
    };
  } catch (error) {
    for (const stop of stops) await stop().catch(() => undefined);
    await db.destroy();
    await embedded?.stop();
    throw error;
  }
}

/**
 * The JWT signing secret: API_SECRET_KEY, or on a single node with the embedded database one that
 * is generated once and kept in the data folder. API nodes sharing a DATABASE_URL must share the
 * secret, so there it is required.
 */
function apiSecret(config: Config): string {
  if (config.API_SECRET_KEY) return config.API_SECRET_KEY;
  if (config.DATABASE_URL) {
    throw new ConfigError([
      'API_SECRET_KEY: is required with DATABASE_URL, so that every API node signs and verifies tokens with the same secret (at least 32 characters)',
    ]);
  }
  const file = join(config.KILN_DATA_DIR, 'api-secret-key');
  if (!existsSync(file)) {
    mkdirSync(config.KILN_DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8').trim();
}

async function startApi(
  config: Config,
  db: Db,
  databaseUrl: string,
  logger: Logger,
  backend: TensorBackendInfo,
  secret: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const usage = new KeyUsageRecorder(db);
  const tokens = new TokenService(db, secret);
  const socialLogin = { db, tokens, config };
  const auth = bearerAuthenticator(db, usage, tokens, config.KILN_TRUSTED_PROXIES);
  const rateLimits = new RateLimits(db, { perMinute: config.API_RATE_LIMIT_PER_MINUTE, perHour: config.API_RATE_LIMIT_PER_HOUR }, logger);
  const ingest = new IngestPool();
  const templates = new TemplateCatalog(db, loadBuiltinTemplates(join(packageRoot(), 'templates')));
  const { app } = createApp({
    logger,
    db,
    templates,
    tokens,
    socialLogin,
    datasets: { db, ingest, databaseUrl, templateMdl: async (principal, idOrSlug) => (await templates.find(principal, idOrSlug))?.mdl ?? null },
    rateLimits,
    version: packageVersion(),
    authenticate: auth.http,
    clientIp: (ctx) => clientIp(ctx.req, config.KILN_TRUSTED_PROXIES),
    keyUsage: usage,
    health: () => health(db, backend),
  });
  // Koa's handler settles every request itself (errors become responses through ctx.onerror)
  const handle = app.callback();
  const server: Server = createServer((req, res) => void handle(req, res));
  const unguard = guardConnections(server, logger);
  // Idle sockets stay open longer than clients and proxies keep them (60 s is common): the side
  // that closes an idle socket must be the client, or a request sent as the server closes it is
  // lost ("socket hang up"). Node's default of 5 s loses them whenever a client's loop stalls.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const listener = new PgListener(databaseUrl, logger);
  await listener.start();
  const hub: EventHub = attachEventHub(server, {
    logger,
    events: {
      subscribe: (deliver) =>
        listener.on(EVENTS_CHANNEL, (payload) => {
          deliver(JSON.parse(payload) as KilnEvent);
        }),
    },
    authenticate: (token, request) => auth.websocket.authenticate(token, clientIp(request, config.KILN_TRUSTED_PROXIES)),
    recheck: auth.websocket.recheck,
    // a WebSocket connection counts as one request against the caller's limits, at connection time
    onConnection: async (subscriber) => {
      const { principal } = subscriber as CredentialSubscriber;
      if (rateLimits.enabled) await rateLimits.consume(principal.keyId, principal.plan);
    },
    resolve: async (subscriber, target) => {
      if ('job_id' in target) {
        const job = await findJob(db, subscriber.organizationId, target.job_id);
        return job ? { job_id: job.id, campaign_id: job.campaign_id } : null;
      }
      const campaign = await findCampaign(db, subscriber.organizationId, target.campaign_id);
      return campaign ? { job_id: null, campaign_id: campaign.id } : null;
    },
  });
  // a key revoked or changed on any node: every socket's credential is checked again at once
  listener.on(CREDENTIALS_CHANNEL, () => hub.recheckCredentials());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? 'localhost' : config.HOST;
  const url = `http://${host}:${address.port}`;
  logger.info({ url }, 'API listening');
  return {
    url,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await hub.close();
      await closed;
      await listener.close();
      await usage.close();
      await ingest.destroy();
      unguard();
    },
  };
}

async function health(db: Db, backend: TensorBackendInfo): Promise<HealthReport> {
  const ok = await databaseReachable(db);
  const workers = ok ? await liveWorkers(db) : [];
  return {
    status: ok ? 'ok' : 'degraded',
    database: ok ? 'ok' : 'unavailable',
    tensor_backend: backend.name,
    tensor_device: backend.device,
    workers: workers.map((w) => ({
      id: w.id,
      hostname: w.hostname,
      slots: w.slots,
      tensor_backend: w.tensor_backend,
      tensor_device: w.tensor_device,
      last_seen_at: w.last_seen_at.toISOString(),
    })),
  };
}
