import { posteriorDraws } from '../src/engine/gp/pathwise.js';
import { Surrogate } from '../src/engine/gp/surrogate.js';
import { Random } from '../src/engine/random.js';
import { fitModel } from '../src/engine/strategies/fit.js';
import { deviceLabel, startBackendBeside, tensorBackendName, tf, type TensorBackendName } from '../src/engine/tensor/backend.js';
import { EnginePool, engineThreads } from '../src/jobs/engine-pool.js';
import { runLocalCampaign, type IterationReport } from '../src/jobs/local-runner.js';
import { caseEvaluator, caseMdl, largeCase, type LargeCase } from './campaign-large.js';
import { median, timeCallsAsync, type BenchReport, type BenchSuite } from './common.js';

/**
 * Every tensor backend that starts on this machine, side by side in one run: matmul throughput,
 * the GP posterior over a candidate pool (mean and variance, what the global strategy's
 * acquisition reads), pathwise sample paths at a candidate pool (what the trust regions rank),
 * a GP fit, and one campaign-large case. The thread switches between its backends with
 * tf.setBackend; each campaign runs on a pool of that backend (its GPU thread for webgpu).
 * The device check (bench/device/check.ts) runs the same measures at the GPU's scale.
 */

/** How large each measure is; LOCAL_SCALE suits two CPU cores and a software GPU. */
export interface BackendScale {
  /** square matmul sizes */
  matmul: number[];
  /** posterior: n training points in d dimensions, at q candidates */
  posterior: { n: number; d: number; q: number };
  /** pathwise draws: `paths` sample paths on n points in d dimensions, at q candidates */
  draws: { n: number; d: number; q: number; paths: number };
  /** one GP fit (MAP hyperparameters) of n points in d dimensions */
  fit: { n: number; d: number };
  /** the campaign-large case, at this budget */
  campaign: { label: string; budget: number };
}

export const LOCAL_SCALE: BackendScale = {
  matmul: [256, 512, 1024],
  posterior: { n: 500, d: 30, q: 5000 },
  draws: { n: 200, d: 30, q: 5000, paths: 16 },
  fit: { n: 1000, d: 6 },
  campaign: { label: 'dtlz2 d=30 m=2', budget: 500 },
};

/** A smooth test function of the first dimensions: sums of sines. x: length ≥ d. */
function sinusoids(x: ArrayLike<number>, d: number): number {
  let s = 0;
  for (let k = 0; k < Math.min(d, 8); k++) s += Math.sin((2 + k) * x[k] + 0.3 * k) / (1 + 0.5 * k);
  return s;
}

function points(n: number, d: number, random: Random): Float64Array {
  return Float64Array.from({ length: n * d }, () => random.uniform());
}

/** GFLOP/s of a square product of this size on the active backend (the sum reads back one number, not the product). */
export async function matmulGflops(size: number): Promise<number> {
  const [a, b] = [tf.randomNormal([size, size]), tf.randomNormal([size, size])];
  try {
    const once = async () => {
      const total = tf.tidy(() => tf.sum(tf.matMul(a, b)));
      await total.data();
      total.dispose();
    };
    const timing = await timeCallsAsync(once, { minSeconds: 0.5, maxRepeats: 20, minRepeats: 2, warmupSeconds: 0.2 });
    return (2 * size ** 3) / timing.medianSeconds / 1e9;
  } finally {
    tf.dispose([a, b]);
  }
}

/** Candidates per second of the posterior mean and variance of one GP (fixed hyperparameters) on the active backend. */
export async function posteriorThroughput({ n, d, q }: BackendScale['posterior'], repeats = 3): Promise<number> {
  const random = new Random(1);
  const X = points(n, d, random);
  const y = Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d), d));
  const h = { lengthscales: new Float64Array(d).fill(0.8), outputScale: 1, noise: 1e-3 };
  const surrogate = Surrogate.build(X, y, n, d, 1, [h]);
  const candidates = points(q, d, random);
  try {
    const timing = await timeCallsAsync(() => surrogate.predict(candidates, q), { minSeconds: 0.2, maxRepeats: repeats, minRepeats: 1, warmupSeconds: 0 });
    return q / timing.medianSeconds;
  } finally {
    surrogate.dispose();
  }
}

/** Candidates per second of `paths` pathwise sample paths (the trust regions' Thompson draws) on the active backend. */
export async function drawsThroughput({ n, d, q, paths }: BackendScale['draws'], repeats = 3): Promise<number> {
  const random = new Random(2);
  const X = points(n, d, random);
  const Y = Float64Array.from({ length: n * paths }, () => random.normal());
  const draws = posteriorDraws(X, Y, n, d, paths, { lengthscales: new Float64Array(d).fill(0.8), outputScale: 1, noise: 1e-3 }, random);
  const candidates = points(q, d, random);
  try {
    const timing = await timeCallsAsync(() => draws.at(candidates, q), { minSeconds: 0.2, maxRepeats: repeats, minRepeats: 1, warmupSeconds: 0 });
    return q / timing.medianSeconds;
  } finally {
    draws.dispose();
  }
}

/** Seconds of one cold GP fit (multi-start MAP, as the first fit of a campaign) on the active backend's CPU linear algebra. */
export function fitSeconds({ n, d }: BackendScale['fit']): number {
  const random = new Random(3);
  const X = points(n, d, random);
  const raw = Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d), d) + 0.05 * random.normal());
  const mean = raw.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const started = performance.now();
  fitModel({ X, y: raw.map((v) => (v - mean) / sd), n, d, seed: 1 });
  return (performance.now() - started) / 1000;
}

export interface CampaignFigures {
  hypervolume: number;
  evaluations: number;
  minutes: number;
  seconds_per_batch_median: number;
  seconds_per_batch_max: number;
  /** median seconds a batch spent planning and fitting (host threads) and completing (the proposing thread) */
  seconds_fits_median: number;
  seconds_complete_median: number;
  /** the run was stopped at its time limit before the budget was spent */
  stopped_at_limit: boolean;
}

/**
 * One campaign-large case on a pool of `backend` (its host threads, and its GPU thread for
 * webgpu), seed 1, at `budget` evaluations; stopped after the batch in flight once `limitSeconds`
 * have passed. `onIteration` sees every iteration's report.
 */
export async function runCampaignCase(
  c: LargeCase,
  backend: TensorBackendName,
  limitSeconds = Infinity,
  onIteration?: (report: IterationReport) => void,
): Promise<CampaignFigures> {
  const mdl = caseMdl(c, 'cma-es', 1);
  const pool = new EnginePool({ threads: engineThreads(), backend });
  const stop = new AbortController();
  const started = performance.now();
  const seconds: number[] = [];
  const phases: { fits: number[]; complete: number[] } = { fits: [], complete: [] };
  let evaluations = 0;
  try {
    const state = await runLocalCampaign(mdl, caseEvaluator(c, mdl), {
      pool,
      stopAfterBatch: stop.signal,
      onIteration: (report) => {
        if (report.iteration > 1) seconds.push(report.proposeSeconds);
        if (report.iteration > 1 && report.phases) {
          phases.fits.push(report.phases.plan + report.phases.fits);
          phases.complete.push(report.phases.complete);
        }
        evaluations = report.evaluationsCompleted;
        onIteration?.(report);
        if ((performance.now() - started) / 1000 > limitSeconds) stop.abort();
      },
    });
    return {
      hypervolume: state.convergenceHistory.at(-1) ?? 0,
      evaluations,
      minutes: (performance.now() - started) / 60_000,
      seconds_per_batch_median: seconds.length > 0 ? median(seconds) : 0,
      seconds_per_batch_max: seconds.length > 0 ? Math.max(...seconds) : 0,
      // planning and fits on the host threads, the completion on the proposing (device) thread
      seconds_fits_median: phases.fits.length > 0 ? median(phases.fits) : 0,
      seconds_complete_median: phases.complete.length > 0 ? median(phases.complete) : 0,
      stopped_at_limit: stop.signal.aborted && state.status === 'running',
    };
  } finally {
    await pool.destroy();
  }
}

/** The backends to compare: the thread's own, then every other one that starts here (a software GPU included), each with its device. */
export async function startableBackends(): Promise<{ name: TensorBackendName; device: string; failure?: string }[]> {
  const own = tensorBackendName();
  const out: { name: TensorBackendName; device: string; failure?: string }[] = [];
  for (const name of ['tensorflow', 'webgpu', 'wasm', 'cpu'] as const) {
    try {
      const device = await startBackendBeside(name);
      out.push({ name, device: device ? deviceLabel(device) + (device.software ? ' [software]' : '') : 'CPU' });
    } catch (error) {
      out.push({ name, device: '-', failure: (error as Error).message });
    }
  }
  await tf.setBackend(own);
  return out;
}

/** Runs `fn` with `name` as the thread's active backend, then restores the previous one. */
export async function onBackend<T>(name: TensorBackendName, fn: () => Promise<T>): Promise<T> {
  const previous = tf.getBackend();
  await tf.setBackend(name);
  try {
    return await fn();
  } finally {
    await tf.setBackend(previous);
  }
}

async function run(scale: BackendScale = LOCAL_SCALE): Promise<BenchReport> {
  const rows: BenchReport['rows'] = [];
  const notes: string[] = [];
  const c = { ...largeCase(scale.campaign.label), budget: scale.campaign.budget };
  let wasmPosterior: number | null = null;
  for (const backend of await startableBackends()) {
    if (backend.failure) {
      notes.push(`${backend.name} did not start: ${backend.failure}`);
      continue;
    }
    const measured = await onBackend(backend.name, async () => {
      const matmul: Record<string, number> = {};
      for (const size of scale.matmul) matmul[`matmul_${size}_gflops`] = await matmulGflops(size);
      const posterior = await posteriorThroughput(scale.posterior);
      const draws = await drawsThroughput(scale.draws);
      return { matmul, posterior, draws, fit: fitSeconds(scale.fit) };
    });
    if (backend.name === 'wasm') wasmPosterior = measured.posterior;
    const campaign = await runCampaignCase(c, backend.name);
    rows.push({
      backend: backend.name,
      device: backend.device,
      ...measured.matmul,
      posterior_points_per_s: Math.round(measured.posterior),
      draws_points_per_s: Math.round(measured.draws),
      fit_s: measured.fit,
      campaign_hv: campaign.hypervolume,
      campaign_s_per_batch: campaign.seconds_per_batch_median,
      campaign_minutes: campaign.minutes,
    });
  }
  for (const row of rows) row.posterior_vs_wasm = wasmPosterior ? (row.posterior_points_per_s as number) / wasmPosterior : null;
  notes.push(
    `posterior: one GP of ${scale.posterior.n} points in ${scale.posterior.d} dimensions, mean and variance at ${scale.posterior.q} candidates per call; ` +
      `draws: ${scale.draws.paths} sample paths on ${scale.draws.n} points at ${scale.draws.q} candidates; fit: ${scale.fit.n} points in ${scale.fit.d} dimensions, cold; ` +
      `campaign: ${c.label} to ${c.budget} evaluations in batches of ${c.batch}, seed 1, ${engineThreads()} host threads (and the GPU thread on webgpu).`,
  );
  notes.push(
    'GP fits run on the CPU on every backend (float64 L-BFGS; the Cholesky products on the CPU kernel beside a GPU): fit_s differs only by that kernel.',
  );
  return { rows, notes };
}

export const suite: BenchSuite = {
  name: 'backends',
  description: 'every tensor backend that starts here, side by side: matmul, posterior and draws throughput, a GP fit, one campaign-large case',
  run: () => run(),
};
