import { proposeBatch } from '../acquisition/batch.js';
import { JointPosterior, type Posterior } from '../acquisition/posterior.js';
import type { GpHyperparameters } from '../gp/priors.js';
import { FailureModel } from '../gp/failure-model.js';
import { Surrogate, standardization, standardizedColumn } from '../gp/surrogate.js';
import { nondominatedRanks } from './nsga2/sorting.js';
import type { FitRequest, Observations, Strategy, StrategyContext } from './types.js';

/**
 * One exact GP per objective over the campaign's data, and a batch by greedy Kriging-believer
 * EHVI (or ParEGO) maximized with CMA-ES (acquisition/batch.ts): the strategy of choice for
 * small budgets in few dimensions.
 *
 * Above GLOBAL_MAX_POINTS rows the exact GP would cost O(n³) per fit and per batch, so the model
 * sees the best GLOBAL_MAX_POINTS rows by non-dominated rank (newest first within a rank); the
 * trust-region strategy is the one meant for such budgets.
 */
export const GLOBAL_MAX_POINTS = 600;

export const globalStrategy: Strategy = {
  name: 'global',
  plan(context) {
    const data = modelData(context.observations);
    const warm = warmStart(context);
    const outputs = data.m + data.c;
    const partial = hasPartial(context.observations);
    const fits: FitRequest[] = Array.from({ length: outputs }, (_, o) => {
      const own = partial && o < data.m ? objectiveData(context.observations, data, o) : null;
      return {
        X: own ? own.X : data.X,
        y: own ? standardizedColumn(own.y, own.n, 1, 0) : standardizedColumn(data.outputs, data.n, outputs, o),
        n: own ? own.n : data.n,
        d: data.d,
        seed: context.random.seed(),
        ...(warm && o < data.m ? { initial: warm[o] } : {}),
        ...declaredNoise(context, data, o),
        ...(o < data.m && context.campaign.exact[o] ? { exact: true } : {}),
      };
    });
    const failures = failureData(context.observations, data);
    if (failures) {
      fits.push({ X: failures.X, y: standardizedColumn(failures.y, failures.n, 1, 0), n: failures.n, d: data.d, seed: context.random.seed() });
    }
    return { fits };
  },
  async propose(context, fitted) {
    const data = modelData(context.observations);
    const outputs = data.m + data.c;
    const parts: Posterior[] = hasPartial(context.observations)
      ? separateModels(context.observations, data, fitted)
      : [Surrogate.build(data.X, data.outputs, data.n, data.d, outputs, fitted.slice(0, outputs))];
    const failures = failureData(context.observations, data);
    if (failures) parts.push(FailureModel.fit(failures.X, failures.y, failures.n, data.d, fitted[outputs].lengthscales));
    const batch = await proposeBatch({
      space: context.space,
      X: data.X,
      Y: data.Y,
      n: data.n,
      m: data.m,
      ref: context.observations.ref!,
      q: context.q,
      // an asynchronous step's pending candidates are believed at the model's prediction (Kriging believer)
      pending: context.observations.pending ?? [],
      acquisition: context.campaign.acquisition,
      random: context.random,
      surrogate: parts.length === 1 ? parts[0] : new JointPosterior(parts),
      constraints: data.c + (failures ? 1 : 0),
      feasible: data.feasible,
      baseline: context.observations.noisy ? 'predicted' : 'measured',
      ...(context.campaign.reach ? { reach: context.campaign.reach.restrictedTo(data.rows) } : {}),
      computeScale: context.computeScale,
    });
    return { points: batch.points, label: batch.acquisition, acquisition: batch.acquisition, hyperparameters: fitted.slice(0, data.m) };
  },
};

/**
 * An objective whose MDL declares its measurement sd is fitted with that noise held fixed: the
 * variance of one measurement over the variance of the column, the units the fit works in.
 */
function declaredNoise(context: StrategyContext, data: ModelData, o: number): { noise?: number } {
  const sd = o < data.m ? context.campaign.noiseSd[o] : undefined;
  if (sd === undefined) return {};
  const { std } = standardization(Float64Array.from({ length: data.n }, (_, i) => data.Y[i * data.m + o]));
  return { noise: (sd / std) ** 2 };
}

/** Whether some partial measurement holds a value a model of one objective can learn from. */
function hasPartial(o: Observations): boolean {
  return o.partial !== undefined && o.partial.Y.some((v) => Number.isFinite(v));
}

/**
 * The rows the model of objective `j` sees when some measurements are partial: the model's
 * complete rows, then every partial measurement that has objective `j`. X: `n x d`; y: `n`.
 */
function objectiveData(o: Observations, data: ModelData, j: number): { X: Float64Array; y: Float64Array; n: number } {
  const { d, m } = data;
  const partial = o.partial!;
  const extra: number[] = [];
  for (let i = 0; i < partial.n; i++) if (Number.isFinite(partial.Y[i * m + j])) extra.push(i);
  const n = data.n + extra.length;
  const X = new Float64Array(n * d);
  X.set(data.X);
  const y = new Float64Array(n);
  for (let i = 0; i < data.n; i++) y[i] = data.Y[i * m + j];
  extra.forEach((r, k) => {
    X.set(partial.X.subarray(r * d, (r + 1) * d), (data.n + k) * d);
    y[data.n + k] = partial.Y[r * m + j];
  });
  return { X, y, n };
}

/**
 * One GP per objective on its own rows (complete ones and the partial measurements that have
 * it), and one over the complete rows for the outcome-constraint slacks: the outputs in the
 * order of the single joint surrogate they replace.
 */
function separateModels(o: Observations, data: ModelData, fitted: readonly GpHyperparameters[]): Posterior[] {
  const { m, c, d } = data;
  const parts: Posterior[] = Array.from({ length: m }, (_, j) => {
    const own = objectiveData(o, data, j);
    return Surrogate.build(own.X, own.y, own.n, d, 1, [fitted[j]]);
  });
  if (c > 0) {
    const slacks = new Float64Array(data.n * c);
    for (let i = 0; i < data.n; i++) slacks.set(data.outputs.subarray(i * (m + c) + m, (i + 1) * (m + c)), i * c);
    parts.push(Surrogate.build(data.X, slacks, data.n, d, c, fitted.slice(m, m + c)));
  }
  return parts;
}

/** The previous fit, when it fits this model's shape. */
function warmStart(context: StrategyContext): GpHyperparameters[] | undefined {
  const previous = context.previousHyperparameters;
  if (!previous || previous.length !== context.observations.m) return undefined;
  if (previous.some((h) => h.lengthscales.length !== context.observations.d)) return undefined;
  return previous;
}

interface ModelData {
  X: Float64Array;
  /** `n x m` minimization-space objectives */
  Y: Float64Array;
  /** `n x (m + c)`: the objectives, then the outcome-constraint slacks (the model's outputs) */
  outputs: Float64Array;
  feasible: Uint8Array;
  /** the observation row of each model row */
  rows: number[];
  n: number;
  d: number;
  m: number;
  c: number;
}

/**
 * The rows the global model sees: all of them, or the best GLOBAL_MAX_POINTS (feasible before
 * infeasible, then by non-dominated rank, newest first).
 */
function modelData(o: Observations): ModelData {
  const { d, m, c } = o;
  let keep = Array.from({ length: o.n }, (_, i) => i);
  if (o.n > GLOBAL_MAX_POINTS) {
    const rank = nondominatedRanks(o.Y, o.n, m);
    keep = keep.sort((a, b) => o.feasible[b] - o.feasible[a] || rank[a] - rank[b] || b - a).slice(0, GLOBAL_MAX_POINTS);
  }
  const n = keep.length;
  const X = new Float64Array(n * d);
  const Y = new Float64Array(n * m);
  const outputs = new Float64Array(n * (m + c));
  const feasible = new Uint8Array(n);
  keep.forEach((r, i) => {
    X.set(o.X.subarray(r * d, (r + 1) * d), i * d);
    Y.set(o.Y.subarray(r * m, (r + 1) * m), i * m);
    outputs.set(o.Y.subarray(r * m, (r + 1) * m), i * (m + c));
    outputs.set(o.C.subarray(r * c, (r + 1) * c), i * (m + c) + m);
    feasible[i] = o.feasible[r];
  });
  return { X, Y, outputs, feasible, rows: keep, n, d, m, c };
}

/**
 * Rows of the failure model (gp/failure-model.ts), a dense classifier whose fit costs O(n³) for
 * each of its hyperparameter candidates: 200 rows keep a fit near 0.1 s.
 */
const FAILURE_MODEL_ROWS = 200;

/**
 * Failures as information: when evaluations have failed, the inputs of successes (label +1) and
 * failures (−1) for the failure model, whose probability of success weights the acquisition like
 * an outcome constraint, so the batch moves away from where evaluations fail instead of
 * resampling there. Above FAILURE_MODEL_ROWS it keeps the latest failures (at most half the
 * rows) and the successes nearest to any of them, the ones that place the boundary. Null
 * without failures.
 */
function failureData(o: Observations, data: ModelData): { X: Float64Array; y: Float64Array; n: number } | null {
  if (o.failed.length === 0) return null;
  const { d } = data;
  const failed = o.failed.slice(-Math.max(FAILURE_MODEL_ROWS - data.n, FAILURE_MODEL_ROWS / 2));
  let successes = Array.from({ length: data.n }, (_, i) => i);
  const room = FAILURE_MODEL_ROWS - failed.length;
  if (successes.length > room) {
    const distance = successes.map((i) => nearest(data.X.subarray(i * d, (i + 1) * d), failed));
    successes = successes.sort((a, b) => distance[a] - distance[b]).slice(0, room);
  }
  const n = successes.length + failed.length;
  const X = new Float64Array(n * d);
  successes.forEach((r, i) => X.set(data.X.subarray(r * d, (r + 1) * d), i * d));
  failed.forEach((x, i) => X.set(x, (successes.length + i) * d));
  const y = Float64Array.from({ length: n }, (_, i) => (i < successes.length ? 1 : -1));
  return { X, y, n };
}

/** Squared Euclidean distance from x to the nearest of the points. */
function nearest(x: Float64Array, points: readonly Float64Array[]): number {
  let best = Infinity;
  for (const p of points) {
    let r2 = 0;
    for (let j = 0; j < x.length; j++) r2 += (x[j] - p[j]) ** 2;
    best = Math.min(best, r2);
  }
  return best;
}
