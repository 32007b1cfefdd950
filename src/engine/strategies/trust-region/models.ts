import { posteriorDraws, type PosteriorDraws } from '../../gp/pathwise.js';
import { deserializeHyperparameters, type GpHyperparameters } from '../../gp/priors.js';
import { standardization } from '../../gp/surrogate.js';
import type { Random } from '../../random.js';
import { penalizedObjectives } from '../feasibility.js';
import type { FitRequest, Observations } from '../types.js';
import type { RegionDraw } from './refine.js';
import type { RegionMemory } from './regions.js';
import type { CandidatePool } from './selection.js';

/**
 * A trust region's local models, and what they cost. Each objective gets a GP of its own (they
 * shape the box and the draws the batch is ranked on). The outcome constraints are modelled
 * only where they decide something, and then together:
 *
 * - a constraint that none of the region's local rows violates is not modelled there: the
 *   region's data show no sign of it, so its candidates treat it as satisfied (the region's
 *   proposals are then exactly those of a campaign without it);
 * - the constraints that some local row violates (the active ones) share one GP: one set of
 *   hyperparameters fitted on the sum of their log likelihoods, one kernel matrix and one
 *   Cholesky factor, one set of Fourier features with weights drawn per constraint
 *   (gp/pathwise.ts posteriorDraws). A region then fits m + 1 models, not m + c, and a draw of
 *   every active slack at N candidates costs O((F + n)·N) per constraint beyond the first.
 *
 * The shared kernel trades each constraint's own lengthscales for one set that every active
 * constraint's data pull on: its relevance weights cover the union of the inputs the active
 * constraints depend on. A slack whose inputs the others do not use is then modelled with a
 * little extra prior variance along theirs, which the local data (100–200 rows) mostly condition
 * away; the feasibility of candidates near the centre is what the draws have to get right.
 */

/** One region's local data: the rows of its models and what they are fitted to. */
export interface LocalData {
  rows: number[];
  /** `rows x d` encoded inputs */
  X: Float64Array;
  /** `rows x m` minimization-space objectives */
  Y: Float64Array;
  /** the outcome constraints modelled here (indices into the observations' c): those some local row violates */
  active: number[];
  /** `rows x active.length` slacks of the active constraints */
  S: Float64Array;
  /**
   * partial measurements near the region (some objectives missing): `n x d` encoded inputs and
   * `n x m` minimization-space objectives, NaN where not measured; each objective's model also
   * learns from those that have it
   */
  partial?: { X: Float64Array; Y: Float64Array; n: number };
}

/**
 * Objective j's rows in the region: the local rows, then the nearby partial measurements that
 * have j. X: `n x d` encoded inputs; y: `n` minimization-space values (not standardized).
 */
export function objectiveRows(data: LocalData, d: number, m: number, j: number): { X: Float64Array; y: Float64Array; n: number } {
  const rows = data.rows.length;
  const own = column(data.Y, rows, m, j);
  const partial = data.partial;
  const extra: number[] = [];
  if (partial) for (let i = 0; i < partial.n; i++) if (Number.isFinite(partial.Y[i * m + j])) extra.push(i);
  if (extra.length === 0) return { X: data.X, y: own, n: rows };
  const n = rows + extra.length;
  const X = new Float64Array(n * d);
  X.set(data.X);
  const y = new Float64Array(n);
  y.set(own);
  extra.forEach((r, k) => {
    X.set(partial!.X.subarray(r * d, (r + 1) * d), (rows + k) * d);
    y[rows + k] = partial!.Y[r * m + j];
  });
  return { X, y, n };
}

/** Objective j's rows, standardized, with the mean and std that undo it. */
function standardizedObjective(data: LocalData, d: number, m: number, j: number): { X: Float64Array; y: Float64Array; n: number; mean: number; std: number } {
  const rows = objectiveRows(data, d, m, j);
  const t = standardization(rows.y);
  return { ...rows, y: rows.y.map((v) => (v - t.mean) / t.std), mean: t.mean, std: t.std };
}

/**
 * The local rows' inputs, objectives and the slacks of the constraints they violate (or of
 * `active`, when given).
 */
export function localData(o: Observations, rows: number[], active = activeConstraints(o.C, rows, o.c)): LocalData {
  const { d, m, c } = o;
  const a = active.length;
  const X = new Float64Array(rows.length * d);
  const Y = new Float64Array(rows.length * m);
  const S = new Float64Array(rows.length * a);
  rows.forEach((r, i) => {
    X.set(o.X.subarray(r * d, (r + 1) * d), i * d);
    Y.set(o.Y.subarray(r * m, (r + 1) * m), i * m);
    active.forEach((k, j) => (S[i * a + j] = o.C[r * c + k]));
  });
  return { rows, X, Y, active, S };
}

/** The constraints (indices, ascending) that at least one of `rows` violates; C: `n x c` slacks. */
export function activeConstraints(C: Float64Array, rows: readonly number[], c: number): number[] {
  const active: number[] = [];
  for (let k = 0; k < c; k++) if (rows.some((r) => C[r * c + k] < 0)) active.push(k);
  return active;
}

/**
 * L-BFGS iterations of a local fit: `iterations`, fewer where one likelihood gradient (O(n²d))
 * costs more than at COST_ROWS rows in COST_DIMENSIONS dimensions, so no fit costs more than one
 * there; at least LEAST_ITERATIONS. A refit resumes from the region's last optimum every batch, so
 * its iterations add up over the campaign (at 200 rows in 200 dimensions, 30 per batch make
 * hundreds by the end); a region's first fit, or a restarted region's, still probes two starts.
 */
const COST_ROWS = 200;
const COST_DIMENSIONS = 100;
const LEAST_ITERATIONS = 20;

export function fitIterations(iterations: number, n: number, d: number): number {
  const share = (COST_ROWS * COST_ROWS * COST_DIMENSIONS) / (n * n * d);
  return Math.max(Math.min(iterations, LEAST_ITERATIONS), Math.min(iterations, Math.round(iterations * share)));
}

/**
 * The fits a region needs, in order: one per objective, then one shared by the active
 * constraints when there are any, warm-started from the region's previous fits, each with
 * fitIterations; `declaredSd[j]` is objective j's declared measurement sd (held fixed, in the
 * standardized column's units); `exact[j]` says objective j's measurements are known to be exact
 * (its noise is then capped).
 */
export function regionFits(
  data: LocalData,
  d: number,
  region: RegionMemory,
  declaredSd: readonly (number | undefined)[],
  iterations: number,
  random: Random,
  exact: readonly boolean[] = [],
): FitRequest[] {
  const n = data.rows.length;
  const m = declaredSd.length;
  const previous = region.hyperparameters && region.hyperparameters.length >= m ? region.hyperparameters : null;
  const fits: FitRequest[] = declaredSd.map((sd, j) => {
    const objective = standardizedObjective(data, d, m, j);
    return {
      X: objective.X,
      y: objective.y,
      n: objective.n,
      d,
      seed: random.seed(),
      ...(previous ? { initial: deserializeHyperparameters(previous[j]) } : {}),
      restarts: previous ? 1 : 2,
      maxIterations: fitIterations(iterations, objective.n, d),
      ...(sd !== undefined ? { noise: (sd / objective.std) ** 2 } : {}),
      ...(exact[j] ? { exact: true } : {}),
    };
  });
  const a = data.active.length;
  if (a > 0) {
    const warm = region.constraints;
    fits.push({
      X: data.X,
      y: standardizedColumns(data.S, n, a).y,
      ...(a > 1 ? { outputs: a } : {}),
      n,
      d,
      seed: random.seed(),
      ...(warm ? { initial: deserializeHyperparameters(warm) } : {}),
      restarts: warm ? 1 : 2,
      maxIterations: fitIterations(iterations, n, d),
    });
  }
  return fits;
}

/** How many of the fits regionFits plans for this region's data. */
export function fitCount(data: LocalData, m: number): number {
  return m + (data.active.length > 0 ? 1 : 0);
}

/**
 * One region's draws: the objectives' (refinement works on these) and the active constraints'
 * together. Their tensors are freed by `disposeRegionModels`.
 */
export interface RegionModels {
  draw: RegionDraw;
  /** one draw per objective, for evaluation at many candidates at once */
  objectives: PosteriorDraws[];
  /** the active constraints' shared draws, with each slack's standardization; null when none is active */
  constraints: { draws: PosteriorDraws; mean: number[]; std: number[] } | null;
  /** per active constraint, the unit its violation is counted in (feasibility.ts) */
  scale: Float64Array;
}

/**
 * Thompson draws of the region's objectives (one per fitted model) and active constraints (one
 * shared model) on its local data. `box` is the region's box; `scale` the slack units of all c
 * constraints.
 */
export function regionModels(
  data: LocalData,
  d: number,
  fitted: { objectives: readonly GpHyperparameters[]; constraints: GpHyperparameters | null },
  box: { lower: Float64Array; upper: Float64Array },
  scale: ArrayLike<number>,
  random: Random,
): RegionModels {
  const n = data.rows.length;
  const m = fitted.objectives.length;
  const standardized = fitted.objectives.map((_, j) => standardizedObjective(data, d, m, j));
  const objectives = fitted.objectives.map((h, j) => posteriorDraws(standardized[j].X, standardized[j].y, standardized[j].n, d, 1, h, random));
  const draw: RegionDraw = {
    m,
    // every objective's draw and gradient on the tensor backend, side by side: `count x m` and `count x m x d`
    evaluate: async (points, count) => {
      const each = await Promise.all(objectives.map((o) => o.withGradients(points, count)));
      const values = new Float64Array(count * m);
      const gradients = new Float64Array(count * m * d);
      each.forEach((e, j) => {
        for (let a = 0; a < count; a++) {
          values[a * m + j] = e.values[a];
          gradients.set(e.gradients.subarray(a * d, (a + 1) * d), (a * m + j) * d);
        }
      });
      return { values, gradients };
    },
    mean: standardized.map((s) => s.mean),
    std: standardized.map((s) => s.std),
    ...box,
  };
  const a = data.active.length;
  let constraints: RegionModels['constraints'] = null;
  if (a > 0 && fitted.constraints) {
    const slacks = standardizedColumns(data.S, n, a);
    constraints = { draws: posteriorDraws(data.X, slacks.y, n, d, a, fitted.constraints, random), mean: slacks.mean, std: slacks.std };
  }
  return { draw, objectives, constraints, scale: Float64Array.from(data.active, (k) => scale[k]) };
}

/**
 * The draws at `count x d` candidates X as a pool's `count x m` S: the sampled objectives, moved
 * beyond the reference point where a sampled active slack is negative (feasibility.ts), so
 * selection only counts candidates the draw says are feasible. The draws are evaluated on the
 * tensor backend, every model's queued before the first is read back.
 */
export async function sampleAt(
  models: RegionModels,
  X: Float64Array,
  count: number,
  ref: readonly number[],
  spread: ArrayLike<number>,
): Promise<Omit<CandidatePool, 'region'>> {
  const { draw, constraints } = models;
  const m = models.objectives.length;
  const [objectives, sampledSlacks] = await Promise.all([
    Promise.all(models.objectives.map((o) => o.at(X, count))),
    constraints ? constraints.draws.at(X, count) : null,
  ]);
  const Y = new Float64Array(count * m);
  objectives.forEach((at, j) => {
    for (let i = 0; i < count; i++) Y[i * m + j] = draw.mean[j] + draw.std[j] * at[i];
  });
  const a = constraints?.draws.outputs ?? 0;
  const slacks = new Float64Array(count * a);
  if (constraints && sampledSlacks) {
    for (let i = 0; i < count; i++) for (let k = 0; k < a; k++) slacks[i * a + k] = constraints.mean[k] + constraints.std[k] * sampledSlacks[i * a + k];
  }
  return { X, S: penalizedObjectives(Y, slacks, count, m, a, ref, spread, models.scale), count };
}

/** Frees the tensors of a region's draws. */
export function disposeRegionModels(models: RegionModels): void {
  for (const o of models.objectives) o.dispose();
  models.constraints?.draws.dispose();
}

/** Each column of `n x w` Y standardized (`n x w`), with the means and stds to undo it. */
export function standardizedColumns(Y: Float64Array, n: number, w: number): { y: Float64Array; mean: number[]; std: number[] } {
  const y = new Float64Array(n * w);
  const mean: number[] = [];
  const std: number[] = [];
  for (let k = 0; k < w; k++) {
    const raw = column(Y, n, w, k);
    const t = standardization(raw);
    for (let i = 0; i < n; i++) y[i * w + k] = (raw[i] - t.mean) / t.std;
    mean.push(t.mean);
    std.push(t.std);
  }
  return { y, mean, std };
}

/** Column k of `n x w` Y. */
function column(Y: Float64Array, n: number, w: number, k: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Y[i * w + k]);
}
