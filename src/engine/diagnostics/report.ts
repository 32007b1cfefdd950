import { normalCdf } from '../normal.js';
import { ExactEhvi } from '../acquisition/ehvi.js';
import { MonteCarloEhvi } from '../acquisition/mc-ehvi.js';
import { observe } from '../campaign/observations.js';
import type { CampaignState } from '../campaign/types.js';
import { DENSE_LIMIT, fitHyperparameters } from '../gp/fit.js';
import { deserializeHyperparameters, type GpHyperparameters } from '../gp/priors.js';
import { standardization } from '../gp/surrogate.js';
import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { Random } from '../random.js';
import { SearchSpace } from '../space.js';
import type { Observations } from '../strategies/types.js';
import { DenseGp } from './dense-gp.js';
import { parameterImportance, type ParameterImportance } from './importance.js';
import { checkMetrics, type CheckedPrediction, type CheckMetrics } from './model-check.js';

/**
 * The model report of a campaign: how well the surrogate predicts what was measured, which
 * parameters each objective depends on, and what the model expects of the candidates awaiting
 * evaluation. Pure and deterministic in (mdl, state): a worker computes it beside the loop, the
 * CLI at the end of a run.
 *
 * The report's GPs see the most recent CHECK_POINTS successful evaluations (the region the
 * campaign searches now), each output with its own MAP hyperparameters; where the campaign's
 * global model was fitted on the same inputs, its hyperparameters warm-start the fit.
 */

/** Most recent successful evaluations the report's models see (the dense float64 limit). */
export const CHECK_POINTS = DENSE_LIMIT;
/** Fewer successful evaluations than this and there is nothing to check. */
export const MIN_CHECK_POINTS = 5;
/** Monte Carlo samples of the expected hypervolume improvement with three or more objectives. */
const EHVI_SAMPLES = 512;

export interface OutputCheck extends CheckMetrics {
  /** an objective's name, or an outcome constraint's expression */
  name: string;
  kind: 'objective' | 'constraint';
  /** objectives: measured and predicted values in MDL units; constraints: the slack (≥ 0 where it holds) */
  predictions: CheckedPrediction[];
}

export interface NextCandidate {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  /** objective name → the model's mean and standard deviation (latent, MDL units and direction) */
  predicted: Record<string, { mean: number; sd: number }>;
  /** probability that every outcome constraint holds (1 without outcome constraints) */
  probability_feasible: number;
  /** expected hypervolume improvement over the current feasible front, times probability_feasible */
  expected_improvement: number;
}

export interface ModelReport {
  /** completed iterations when the report was made */
  iteration: number;
  /** successful evaluations of the campaign */
  evaluations: number;
  /** evaluations the report's models saw (the most recent ones) */
  points: number;
  outputs: OutputCheck[];
  importance: { objective: string; parameters: ParameterImportance[] }[];
  next: NextCandidate[];
  /** why the report is empty, when it is */
  message?: string;
}

export function diagnoseCampaign(mdl: Mdl, state: Readonly<CampaignState>): ModelReport {
  const space = new SearchSpace(mdl);
  const o = observe(mdl, state, space);
  const base = { iteration: state.iteration, evaluations: o.n, points: 0, outputs: [], importance: [], next: [] };
  if (o.n < MIN_CHECK_POINTS) {
    return { ...base, message: `The model report needs at least ${MIN_CHECK_POINTS} successful evaluations; the campaign has ${o.n}.` };
  }
  const random = new Random(state.seed ^ (state.iteration * 0x9e3779b1));
  const rows = Array.from({ length: Math.min(o.n, CHECK_POINTS) }, (_, k) => o.n - Math.min(o.n, CHECK_POINTS) + k);
  const n = rows.length;
  const { d, m, c } = o;
  const X = new Float64Array(n * d);
  rows.forEach((r, k) => X.set(o.X.subarray(r * d, (r + 1) * d), k * d));
  const signs = mdl.objectives.map((objective) => (objective.direction === 'maximize' ? -1 : 1));
  const stored = state.hyperparameters?.map(deserializeHyperparameters) ?? [];

  const models: { gp: DenseGp; mean: number; std: number; h: GpHyperparameters }[] = [];
  const outputs: OutputCheck[] = [];
  for (let k = 0; k < m + c; k++) {
    const raw = Float64Array.from(rows, (r) => (k < m ? o.Y[r * m + k] : o.C[r * c + (k - m)]));
    const { mean, std } = standardization(raw);
    const y = raw.map((v) => (v - mean) / std);
    const warm = k < m && stored[k]?.lengthscales.length === d ? stored[k] : undefined;
    const h = fitHyperparameters(X, y, n, d, { seed: random.seed(), restarts: warm ? 1 : 2, maxIterations: 100, initial: warm }).hyperparameters;
    const gp = new DenseGp(X, y, n, d, h);
    models.push({ gp, mean, std, h });
    const loo = gp.leaveOneOut();
    const sign = k < m ? signs[k] : 1;
    const predictions = rows.map((r, i) => ({
      id: o.ids[r],
      measured: sign * raw[i],
      predicted: sign * (mean + std * loo.mean[i]),
      sd: std * Math.sqrt(loo.variance[i]),
    }));
    outputs.push({
      name: k < m ? mdl.objectives[k].name : mdl.outcome_constraints[k - m].expression,
      kind: k < m ? 'objective' : 'constraint',
      ...checkMetrics(predictions),
      predictions,
    });
  }

  const importance = mdl.objectives.map((objective, k) => ({
    objective: objective.name,
    parameters: parameterImportance(
      space.layout,
      d,
      models[k].h.lengthscales,
      (points, q) => models[k].gp.meanAt(points, q),
      (r) => space.snap(Float64Array.from({ length: d }, () => r.uniform())),
      random,
    ),
  }));

  return { ...base, points: n, outputs, importance, next: nextCandidates(mdl, state, space, o, models, random) };
}

/** The model's view of the candidates awaiting evaluation. */
function nextCandidates(
  mdl: Mdl,
  state: Readonly<CampaignState>,
  space: SearchSpace,
  o: Observations,
  models: readonly { gp: DenseGp; mean: number; std: number }[],
  random: Random,
): NextCandidate[] {
  const q = state.pending.length;
  if (q === 0 || !o.ref) return [];
  const { d, m, c } = o;
  const X = new Float64Array(q * d);
  state.pending.forEach((p, i) => X.set(space.snap(space.encode(p.parameters)), i * d));
  const moments = models.map(({ gp, mean, std }) => {
    const p = gp.predict(X, q);
    return { mean: p.mean.map((v) => mean + std * v), sd: p.variance.map((v) => std * Math.sqrt(v)) };
  });
  // minimization-space moments of the objectives, `q x m`
  const mu = new Float64Array(q * m);
  const sigma = new Float64Array(q * m);
  for (let i = 0; i < q; i++) {
    for (let k = 0; k < m; k++) {
      mu[i * m + k] = moments[k].mean[i];
      sigma[i * m + k] = moments[k].sd[i];
    }
  }
  const front = feasibleRows(o);
  const acquisition = m <= 2 ? new ExactEhvi(front.Y, front.n, m as 1 | 2, o.ref) : new MonteCarloEhvi(front.Y, front.n, m, o.ref, EHVI_SAMPLES, random);
  const ehvi = acquisition.evaluate(mu, sigma, q);
  return state.pending.map((p, i) => {
    let feasible = 1;
    for (let k = m; k < m + c; k++) {
      const sd = moments[k].sd[i];
      feasible *= sd > 0 ? normalCdf(moments[k].mean[i] / sd) : moments[k].mean[i] >= 0 ? 1 : 0;
    }
    const predicted: Record<string, { mean: number; sd: number }> = {};
    mdl.objectives.forEach((objective, k) => {
      const sign = objective.direction === 'maximize' ? -1 : 1;
      predicted[objective.name] = { mean: sign * moments[k].mean[i], sd: moments[k].sd[i] };
    });
    return { id: p.id, iteration: p.iteration, parameters: p.parameters, predicted, probability_feasible: feasible, expected_improvement: ehvi[i] * feasible };
  });
}

/** The feasible rows' minimization-space objectives. */
function feasibleRows(o: Observations): { Y: Float64Array; n: number } {
  const kept: number[] = [];
  for (let i = 0; i < o.n; i++) if (o.feasible[i] === 1) kept.push(i);
  const Y = new Float64Array(kept.length * o.m);
  kept.forEach((r, k) => Y.set(o.Y.subarray(r * o.m, (r + 1) * o.m), k * o.m));
  return { Y, n: kept.length };
}
