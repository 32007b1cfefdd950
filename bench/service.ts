import http from 'node:http';
import pino from 'pino';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { initTensorBackend, type TensorBackendName } from '../src/engine/tensor/backend.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import { startKiln, type KilnRuntime } from '../src/runtime.js';
import { median, type BenchReport, type BenchSuite } from './common.js';
import { startBenchKiln } from './embedded-kiln.js';
import { mdlLoad } from './mdl-load.js';
import { messageText } from '../src/api/ws-text.js';

/**
 * The service around the engine, on one embedded Postgres with Kiln (API and an in-process
 * supervisor with one slot) on loopback: how fast a started job is picked up, what the service
 * adds to each iteration compared with the engine run in-process, and GET latency under an
 * open-loop load.
 */

const PICKUP_CAMPAIGNS = 15;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Pickup waits past the supervisor's 30 s fallback poll, so a lost NOTIFY shows as ~30 s instead of a hang. */
const PICKUP_TIMEOUT_MS = 45_000;
const RUN_TIMEOUT_MS = 120_000;
const LOAD_WARMUP_MS = 2_000;
const LOAD_MS = 10_000;

type Row = BenchReport['rows'][number];

/** One-iteration campaigns: the job's own work is small, so its pickup is what is timed. */
function pickupMdl(seed: number) {
  return {
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 10 },
    ],
    optimizer: { method: 'cma-es', budget: 4, batch_size: 2, initial_samples: 4, seed },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
}

/** Stagnation is switched off so that both runs spend the whole budget: 1 design + 15 batches of 2. */
function overheadMdl() {
  return {
    parameters: [1, 2, 3, 4].map((i) => ({ name: `x${i}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 11 },
    ],
    optimizer: { method: 'cma-es', budget: 40, batch_size: 2, seed: 17, stagnation: { window: 1000, tolerance: 0 } },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
}

/** Nearest-rank percentile: always a measured value, never an interpolation. */
function percentile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function distributionRow(what: string, backend: string, values: readonly number[], extra: Partial<Row> = {}): Row {
  return {
    case: what,
    backend,
    n: values.length,
    errors: null,
    p50_ms: percentile(values, 0.5),
    p90_ms: percentile(values, 0.9),
    p99_ms: null,
    max_ms: Math.max(...values),
    mean_ms: mean(values),
    rate_per_s: null,
    ratio: null,
    ...extra,
  };
}

interface Kiln {
  runtime: KilnRuntime;
  base: string;
  key: string;
  /** a second, API-only Kiln on the same database with rate limiting off */
  startUnlimitedApi(): Promise<{ base: string; stop(): Promise<void> }>;
  stop(): Promise<void>;
}

/** Kiln with a one-slot supervisor; the limiter stays in the request path but never binds. */
async function startService(backend: string): Promise<Kiln> {
  const kiln = await startBenchKiln(
    {
      WORKER_CONCURRENCY: '1',
      KILN_TENSOR_BACKEND: backend,
      // The limiter's counters are what a deployment pays for, but the plans' limits (5 starts a
      // minute, 1000 requests a minute) are below this load.
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      API_RATE_LIMIT_PER_HOUR: '100000000',
    },
    { worker: true },
  );
  return {
    ...kiln,
    startUnlimitedApi: async () => {
      const unlimited = await startKiln({
        config: loadConfig({ ...kiln.env, WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '0' }),
        api: true,
        worker: false,
        logger: pino({ level: 'silent' }),
      });
      return { base: unlimited.url!, stop: () => unlimited.stop() };
    },
  };
}

function apiClient(base: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => null)) as { data?: unknown } | null;
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json?.data;
  };
}

interface Received {
  message: any;
  /** performance.now() when the frame was handled */
  at: number;
}

/** The WebSocket with waiters: a waiter is registered before the action whose event it waits for. */
class EventStream {
  private readonly waiters = new Set<{ match: (m: any) => boolean; resolve: (r: Received) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const at = performance.now();
      const message = JSON.parse(messageText(raw));
      for (const waiter of [...this.waiters]) {
        if (waiter.match(message)) {
          this.waiters.delete(waiter);
          waiter.resolve({ message, at });
        }
      }
    });
  }

  static async open(base: string, key: string): Promise<EventStream> {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/ws?token=${encodeURIComponent(key)}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return new EventStream(ws);
  }

  waitFor(match: (m: any) => boolean, ms: number, what: string): Promise<Received> {
    let waiter!: { match: (m: any) => boolean; resolve: (r: Received) => void };
    const promise = new Promise<Received>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`no ${what} within ${ms} ms`));
      }, ms);
      waiter = {
        match,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      };
      this.waiters.add(waiter);
    });
    // An earlier failure may leave this promise unawaited; its timeout must not crash the process.
    promise.catch(() => undefined);
    return promise;
  }

  async subscribe(campaignId: string): Promise<void> {
    const subscribed = this.waitFor((m) => m.type === 'subscribed' && m.campaign_id === campaignId, 10_000, `subscription to ${campaignId}`);
    this.ws.send(JSON.stringify({ type: 'subscribe', campaign_id: campaignId }));
    await subscribed;
  }

  jobStatus(campaignId: string, statuses: (s: string) => boolean, ms: number, what: string): Promise<Received> {
    return this.waitFor((m) => m.type === 'job.status' && m.campaign_id === campaignId && statuses(String(m.data?.status)), ms, what);
  }

  close(): void {
    this.ws.close();
  }
}

/** Creates, subscribes, starts and waits for the end; resolves with the ids and the client's clock marks. */
async function runCampaign(kiln: Kiln, events: EventStream, name: string, mdl: unknown, timeoutMs: number) {
  const api = apiClient(kiln.base, kiln.key);
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  await events.subscribe(created.id);
  // The running event can beat the start response: both come out of this one process.
  const running = events.jobStatus(created.id, (s) => s === 'running', timeoutMs, `running event of ${name}`);
  const ended = events.jobStatus(created.id, (s) => TERMINAL.has(s), timeoutMs + RUN_TIMEOUT_MS, `end of ${name}`);
  const started = await api('POST', `/v1/campaigns/${created.id}/start`);
  const responded = performance.now();
  const runningAt = (await running).at;
  const end = await ended;
  if (end.message.data.status !== 'completed') throw new Error(`${name} ended ${end.message.data.status}`);
  return { campaignId: created.id as string, jobId: started.job.id as string, responded, runningAt };
}

async function measurePickup(kiln: Kiln, events: EventStream, backend: string): Promise<Row[]> {
  const db = kiln.runtime.db;
  const serverMs: number[] = [];
  const afterCommitMs: number[] = [];
  const clientMs: number[] = [];
  // campaign 0 warms the routes, the statements and the pool thread, and is not recorded
  for (let i = 0; i <= PICKUP_CAMPAIGNS; i++) {
    const run = await runCampaign(kiln, events, `pickup ${i}`, pickupMdl(i + 1), PICKUP_TIMEOUT_MS);
    if (i === 0) continue;
    // The "Queued" log row is written at the end of the start transaction and stamped with
    // clock_timestamp(), so it splits the server figure into the start transaction and what follows it.
    const { rows } = await db.raw(
      `select extract(epoch from j.started_at - j.created_at) * 1000 as total_ms,
              extract(epoch from j.started_at - (select min(l.timestamp) from job_logs l where l.job_id = j.id)) * 1000 as after_ms
         from jobs j where j.id = ?`,
      [run.jobId],
    );
    serverMs.push(Number(rows[0].total_ms));
    afterCommitMs.push(Number(rows[0].after_ms));
    clientMs.push(run.runningAt - run.responded);
  }
  return [
    distributionRow('pickup: jobs.started_at - created_at (Postgres clock)', backend, serverMs),
    distributionRow('pickup: of which queued log row -> claim (commit, NOTIFY, claim)', backend, afterCommitMs),
    distributionRow('pickup: start response -> job.status running on the WebSocket', backend, clientMs),
  ];
}

interface OverheadFigures {
  rows: Row[];
  notes: string[];
  campaignId: string;
}

async function measureOverhead(kiln: Kiln, events: EventStream, backend: string): Promise<OverheadFigures> {
  const doc = overheadMdl();
  const mdl = mdlSchema.parse(doc);

  // Baseline: the same engine calls on this thread. Two unrecorded runs first: the first run in a
  // process is about 40% slower per iteration (JIT tiers, WASM kernels warming up), and one more
  // costs little next to the run-to-run spread it removes.
  const baseline = async () => {
    const reports: IterationReport[] = [];
    const marks: number[] = [];
    const t0 = performance.now();
    await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), {
      onIteration: (r) => {
        reports.push(r);
        marks.push(performance.now());
      },
    });
    const totalMs = performance.now() - t0;
    const wallMs = marks.map((m, i) => m - (i === 0 ? t0 : marks[i - 1]));
    return {
      totalMs,
      wallMs,
      engineMs: reports.map((r) => (r.proposeSeconds + r.evaluateSeconds) * 1000),
      proposeMs: reports.map((r) => r.proposeSeconds * 1000),
    };
  };
  await baseline();
  await baseline();
  const local = await baseline();

  // Service: the same document twice as well, so that the pool thread has run GP fits before the measured run.
  await runCampaign(kiln, events, 'overhead warm-up 1', doc, PICKUP_TIMEOUT_MS);
  await runCampaign(kiln, events, 'overhead warm-up 2', doc, PICKUP_TIMEOUT_MS);
  const run = await runCampaign(kiln, events, 'overhead', doc, PICKUP_TIMEOUT_MS);
  const db = kiln.runtime.db;
  const job = (await db.raw(`select iterations_run, extract(epoch from finished_at - started_at) * 1000 as run_ms from jobs where id = ?`, [run.jobId]))
    .rows[0];
  // now() is the start of a transaction, so successive rows' created_at are one full loop apart:
  // from one storeIteration transaction to the next (the first from the claim).
  const iterations = (
    await db.raw(
      `select ci.iteration, ci.propose_seconds, ci.evaluate_seconds, ci.store_seconds,
              extract(epoch from ci.created_at - coalesce(lag(ci.created_at) over (order by ci.iteration), j.started_at)) * 1000 as wall_ms
         from campaign_iterations ci join jobs j on j.id = ci.job_id
        where ci.campaign_id = ? order by ci.iteration`,
      [run.campaignId],
    )
  ).rows as { iteration: number; propose_seconds: number; evaluate_seconds: number; store_seconds: number; wall_ms: number | string }[];
  const serviceWallMs = iterations.map((r) => Number(r.wall_ms));
  const serviceEngineMs = iterations.map((r) => (r.propose_seconds + r.evaluate_seconds) * 1000);
  const overheadMs = serviceWallMs.map((wall, i) => wall - serviceEngineMs[i]);
  const storeMs = iterations.map((r) => r.store_seconds * 1000);
  const serviceProposeMs = iterations.map((r) => r.propose_seconds * 1000);
  // propose_seconds holds database writes (see the notes), so the step itself is read off the job's
  // log rows, stamped with clock_timestamp(): "Phase: proposing." is written just before the step
  // is sent to the pool and "Surrogate fit for iteration N" just after it returns (iterations 2+,
  // the initial design fits nothing). Between them: the step, the rest of one announce transaction.
  const logs = (
    await db.raw(`select message, extract(epoch from timestamp - lag(timestamp) over (order by id)) * 1000 as ms from job_logs where job_id = ? order by id`, [
      run.jobId,
    ])
  ).rows as { message: string; ms: number | string | null }[];
  const stepMs: number[] = [];
  const nonStepMs: number[] = [];
  logs.forEach((row, i) => {
    const fit = /^Surrogate fit for iteration (\d+)/.exec(row.message);
    if (!fit || logs[i - 1]?.message !== 'Phase: proposing.') return;
    const wall = serviceWallMs[iterations.findIndex((r) => r.iteration === Number(fit[1]))];
    if (wall === undefined) return;
    stepMs.push(Number(row.ms));
    nonStepMs.push(wall - Number(row.ms));
  });

  const n = Number(job.iterations_run);
  const servicePerIteration = Number(job.run_ms) / n;
  const localPerIteration = local.totalMs / local.wallMs.length;
  const ratio = servicePerIteration / localPerIteration;
  const rows = [
    distributionRow('iteration wall: in-process baseline (runLocalCampaign)', backend, local.wallMs, { mean_ms: localPerIteration }),
    distributionRow('iteration wall: service ((finished-started)/iterations)', backend, serviceWallMs, { n, mean_ms: servicePerIteration, ratio }),
    distributionRow('engine: baseline propose+evaluate', backend, local.engineMs),
    distributionRow('engine: service propose_seconds+evaluate_seconds', backend, serviceEngineMs, { ratio: mean(serviceEngineMs) / mean(local.engineMs) }),
    distributionRow('service overhead: wall - (propose+evaluate)', backend, overheadMs),
    distributionRow('service store_seconds', backend, storeMs),
    ...(stepMs.length > 0
      ? [
          distributionRow('service step: log "Phase: proposing" -> "Surrogate fit"', backend, stepMs, {
            ratio: median(stepMs) / median(local.proposeMs.slice(1)),
          }),
          distributionRow('service non-step time: wall - step (iterations 2+)', backend, nonStepMs),
        ]
      : []),
  ];
  const notes = [
    `iterations: ${n} through the service, ${local.wallMs.length} in-process; ${(localPerIteration / 1000).toFixed(4)} s per iteration in-process, ` +
      `${(servicePerIteration / 1000).toFixed(4)} s through the service (ratio ${ratio.toFixed(3)}); median per-iteration overhead ` +
      `${median(overheadMs).toFixed(2)} ms; median store_seconds ${median(storeMs).toFixed(2)} ms.`,
    'service step row: the pool step timed by the database clock between two log rows (plus the end of one announce transaction); its ratio is against the median in-process propose of iterations 2+. ' +
      "The non-step row is the rest of each iteration (thread hop, every database round trip and commit, tell): the service's real per-iteration cost, which the overhead row understates.",
    `propose alone: median ${median(local.proposeMs).toFixed(2)} ms in-process vs ${median(serviceProposeMs).toFixed(2)} ms in propose_seconds through the service; ` +
      'the service figure also holds the piscina round trip (MDL and the whole state structured-cloned both ways) and the database writes the job runner does between its two clock reads.',
  ];
  if (stepMs.length === 0)
    notes.push('the job log rows that bracket the step were not found (their text changed?), so the step and non-step rows are missing.');
  if (n !== local.wallMs.length)
    notes.push(
      `the service ran ${n} iterations and the baseline ${local.wallMs.length}: the two runs diverged, so the per-iteration figures compare unequal work.`,
    );
  return { rows, notes, campaignId: run.campaignId };
}

interface LoadResult {
  requests: number;
  errors: number;
  latencies: number[];
  achieved: number;
  /** how late the generator itself sent after its schedule (timers, a busy event loop); 0 when on time or early */
  sendLagMs: number[];
}

/**
 * Open-loop load: request i is due at start + i/rate whatever earlier requests are doing, and its
 * latency counts from that due time, so a stall shows in every request it delays instead of
 * thinning the sample (coordinated omission). Requests due while the generator was late go out
 * together at once. The first LOAD_WARMUP_MS are sent but not recorded.
 */
async function openLoop(agent: http.Agent, url: URL, headers: Record<string, string>, rate: number): Promise<LoadResult> {
  const interval = 1000 / rate;
  const count = Math.round(((LOAD_WARMUP_MS + LOAD_MS) * rate) / 1000);
  const recordFrom = Math.round((LOAD_WARMUP_MS * rate) / 1000);
  const start = performance.now() + 5;
  const latencies: number[] = [];
  const sendLagMs: number[] = [];
  let errors = 0;
  let lastDone = 0;
  const outstanding = new Set<Promise<void>>();
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const recorded = i >= recordFrom;
    // Timers run on a millisecond clock and can fire before `due`; a request sent early is timed
    // from its send, one sent late from its due time.
    const sent = performance.now();
    if (recorded) sendLagMs.push(Math.max(0, sent - due));
    const request = get(agent, url, headers).then(
      (ok) => {
        const done = performance.now();
        if (!recorded) return;
        lastDone = Math.max(lastDone, done);
        if (ok) latencies.push(done - Math.max(due, sent));
        else errors++;
      },
      () => {
        if (recorded) errors++;
      },
    );
    outstanding.add(request);
    void request.finally(() => outstanding.delete(request));
  }
  const drained = await Promise.race([Promise.all(outstanding).then(() => true), sleep(10_000).then(() => false)]);
  const requests = count - recordFrom;
  if (!drained) errors += requests - latencies.length - errors;
  const firstDue = start + recordFrom * interval;
  return { requests, errors, latencies, achieved: (latencies.length + errors) / ((lastDone - firstDue) / 1000), sendLagMs };
}

function get(agent: http.Agent, url: URL, headers: Record<string, string>): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const MATERIALS = '/v1/materials?formula=LiFePO4';

async function measureApi(kiln: Kiln, campaignId: string, backend: string): Promise<{ rows: Row[]; notes: string[] }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let unlimited: { base: string; stop(): Promise<void> } | null = null;
  try {
    const cases = [
      { what: 'GET /v1/health @ 200/s (no auth)', path: '/v1/health', auth: false, rate: 200, unlimited: false },
      { what: 'GET /v1/campaigns/{id} @ 50/s', path: `/v1/campaigns/${campaignId}`, auth: true, rate: 50, unlimited: false },
      { what: 'GET /v1/campaigns/{id} @ 200/s', path: `/v1/campaigns/${campaignId}`, auth: true, rate: 200, unlimited: false },
      { what: 'GET /v1/campaigns/{id} @ 200/s, rate limiting off', path: `/v1/campaigns/${campaignId}`, auth: true, rate: 200, unlimited: true },
      // the cost of access itself, on a route with no other database work: no credentials and no
      // limiter (a guest on the limiting-off node), then a key, then a key with the limiter
      { what: 'GET /v1/materials @ 200/s: guest, limiting off (baseline)', path: MATERIALS, auth: false, rate: 200, unlimited: true },
      { what: 'GET /v1/materials @ 200/s: API key, limiting off', path: MATERIALS, auth: true, rate: 200, unlimited: true },
      { what: 'GET /v1/materials @ 200/s: API key, limiting on', path: MATERIALS, auth: true, rate: 200, unlimited: false },
    ];
    let materialsBaseline = NaN;
    const rows: Row[] = [];
    const notes: string[] = [];
    let healthP50 = NaN;
    for (const c of cases) {
      if (c.unlimited) unlimited ??= await kiln.startUnlimitedApi();
      const base = c.unlimited ? unlimited!.base : kiln.base;
      const result = await openLoop(agent, new URL(c.path, base), c.auth ? { Authorization: `Bearer ${kiln.key}` } : {}, c.rate);
      const l = result.latencies;
      const p50 = l.length > 0 ? percentile(l, 0.5) : null;
      if (c.path === '/v1/health') healthP50 = p50 ?? NaN;
      if (c.path === MATERIALS && !c.auth) materialsBaseline = p50 ?? NaN;
      rows.push({
        case: c.what,
        backend,
        n: result.requests,
        errors: result.errors,
        p50_ms: p50,
        p90_ms: l.length > 0 ? percentile(l, 0.9) : null,
        p99_ms: l.length > 0 ? percentile(l, 0.99) : null,
        max_ms: l.length > 0 ? Math.max(...l) : null,
        mean_ms: l.length > 0 ? mean(l) : null,
        rate_per_s: result.achieved,
        ratio: c.path === '/v1/health' || p50 === null ? null : p50 / (c.path === MATERIALS ? materialsBaseline : healthP50),
      });
      notes.push(
        `${c.what}: the generator itself sent a median ${median(result.sendLagMs).toFixed(3)} ms (p99 ${percentile(result.sendLagMs, 0.99).toFixed(3)} ms) after schedule; that lag is inside the latencies.`,
      );
    }
    return { rows, notes };
  } finally {
    agent.destroy();
    await unlimited?.stop();
  }
}

export const suite: BenchSuite = {
  name: 'service',
  description: 'the service around the engine: job pickup, per-iteration overhead, API latency',
  async run() {
    const preferred = (process.env.KILN_TENSOR_BACKEND ?? 'auto') as TensorBackendName | 'auto';
    const backend = await initTensorBackend(preferred);
    const kiln = await startService(preferred);
    let events: EventStream | null = null;
    try {
      events = await EventStream.open(kiln.base, kiln.key);
      const pickup = await measurePickup(kiln, events, backend);
      const overhead = await measureOverhead(kiln, events, backend);
      const api = await measureApi(kiln, overhead.campaignId, backend);
      return {
        rows: [...pickup, ...overhead.rows, ...api.rows],
        notes: [
          'Kiln here is one process: API, WebSocket hub and a supervisor with WORKER_CONCURRENCY 1, on an embedded Postgres over loopback; the load generator shares its event loop. ' +
            'Rate limiting is on with limits far above this load (API_RATE_LIMIT_PER_MINUTE 1000000, PER_HOUR 100000000), so its counters are paid but nothing is refused.',
          'pickup: a start commits its job with NOTIFY kiln_jobs, and the supervisor LISTENs on that channel, so a job is claimed as soon as the notification arrives (milliseconds); ' +
            'the 30 s poll of the queue is only a fallback for a lost notification, and a figure near 30 s would mean one was lost. ' +
            "The database figure spans the two transactions' now() (start of the start transaction to start of the claim transaction). " +
            "The client figure adds the job runner's start (campaign and evaluations read, evaluations counted) and its first announce transaction, whose NOTIFY comes back through the API's LISTEN connection and the WebSocket. " +
            `${PICKUP_CAMPAIGNS} one-iteration campaigns run one after another, after one unrecorded.`,
          ...overhead.notes,
          "iteration wall (service): per iteration, the gap between successive campaign_iterations.created_at (transaction start of each iteration's store), the first from jobs.started_at (so it holds the job start); mean_ms is (finished_at - started_at)/iterations_run. " +
            'Baseline wall: gaps between onIteration calls; mean_ms is the whole run / iterations. Both measured runs follow two unrecorded identical runs of their kind.',
          'The service runs engine steps on a piscina worker thread (the state and MDL cross threads by structured clone each step); the baseline steps on the main thread. ' +
            'Per iteration the job runner commits three transactions: the "proposing" announcement (job update, events, a debug log row) before the step; the pending batch with the surrogate log and the "evaluating" announcement after it (both with synchronous_commit off: a crash of Postgres could lose only a phase change or a batch the deterministic engine proposes again); and the durable store transaction. ' +
            'The thread hop sits inside the step row, whose ratio to the in-process propose shows what it costs; the non-step row is the database work and tell.',
          'propose_seconds is the engine step on the pool and evaluate_seconds the evaluator call, so propose+evaluate is the engine; the overhead row is everything else the service does per iteration.',
          'store_seconds is the store transaction up to its last statement (the campaign_iterations insert); its COMMIT is not included.',
          'API: GET /v1/campaigns/{id} is the key lookup (by prefix, joined with its organization) and then the campaign and its latest job in parallel, plus Koa, zod and JSON; GET /v1/health runs select 1 and a workers query without authentication or rate limiting. ' +
            'With rate limiting on, each authenticated request also upserts two counter rows (minute and hour windows of its key, rate_limits table): two more committed writes per read, on the same two hot rows for every request of one key. ' +
            "The limiting-off row is a second, API-only Kiln in this process on the same database with API_RATE_LIMIT_PER_MINUTE=0; its difference to the row above is the limiter's cost. " +
            'ratio is p50 / health p50 at 200/s, and for the materials rows p50 / the guest baseline p50 (so the key rows read as the cost of authentication, and of authentication plus the limiter). Open-loop schedule, latencies from the due time (from the send where the timer fired early); keep-alive agent with up to 64 sockets; 2 s unrecorded warm-up before each 10 s run.',
          ...api.notes,
        ],
      };
    } finally {
      events?.close();
      await kiln.stop();
    }
  },
};

/** Parts after the service table, each also runnable alone by its name. */
export const more: BenchSuite[] = [mdlLoad];
