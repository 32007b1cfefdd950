import { DenseGp } from '../diagnostics/dense-gp.js';
import { NOISE_FLOOR, deserializeHyperparameters, type SerializedHyperparameters } from '../gp/priors.js';
import { standardization } from '../gp/surrogate.js';
import { hypervolume } from '../hypervolume.js';
import type { Mdl } from '../mdl/schema.js';
import { paretoMask } from '../pareto.js';
import { SearchSpace } from '../space.js';
import { nondominatedRanks } from '../strategies/nsga2/sorting.js';
import { isFeasible } from './feasibility.js';
import { objectiveMatrix } from './objective-space.js';
import type { CampaignState, EvaluationRecord } from './types.js';

/**
 * Results that stay true when measurements are noisy. A noisy measurement that happened to come
 * out well looks better than the design is, so a front picked by raw values is a front of lucky
 * draws and its hypervolume overstates what any design reaches. A noisy campaign therefore
 * reports the model's front: the evaluated designs whose in-sample posterior means no other
 * design's posterior mean dominates, each with its measured and predicted values, and the
 * hypervolume of those predictions (BoTorch reports the same front).
 */

/**
 * Fitted noise variance, relative to the objective's variance (the GP's noise in standardized
 * units), from which an undeclared objective counts as noisy: a noise standard deviation of 30 %
 * of the objective's spread. Exact functions fit noise well below it (the small benchmark
 * protocol's noiseless problems stay under 0.02); measurement noise of a few percent of the
 * spread does not reach it, so a campaign that knows it is noisy says so in its MDL.
 */
export const MATERIAL_NOISE_VARIANCE = 0.09;

/**
 * The model's front is built on at most this many rows (the best by non-dominated rank of the
 * measurements, newest first within a rank); the float64 GP costs O(n³) per objective.
 */
export const NOISY_FRONT_MAX_ROWS = 600;

/**
 * Why a campaign counts as noisy, in a sentence; null when it does not. In order: a declaration in
 * the MDL; a builtin evaluator with `noise`; repeated measurements of one design that disagree
 * (an exact measurement repeats itself); the fitted noise at MATERIAL_NOISE_VARIANCE or above,
 * unless the measurements are known to repeat. Objectives declared `noise: false` take part in
 * none of these judgements.
 *
 * A builtin evaluator's noise is stated in the MDL, and is a function of the candidate, so a
 * repeat reproduces it and the noise check (noise-probe.ts) can never find it; the fit alone
 * rarely does (5 % relative noise fits well under MATERIAL_NOISE_VARIANCE). Left to those, such a
 * campaign reported its raw front: on the suite's DTLZ2 with 5 % noise at 90 evaluations a
 * headline of 104 % of the problem's maximum (seed 1).
 *
 * A function the model fits poorly fits noise too (DTLZ4's x^100 bias reached 0.15 of the
 * variance at 300 evaluations), so the fit alone would turn an exact campaign's results into the
 * model's predictions, and its hypervolume would fall as the fit worsened. The fit is therefore
 * not asked when repeated measurements of a design all agree, or when the evaluator is a builtin
 * function without `noise` (its values are exact by construction).
 */
export function noiseReason(
  mdl: Mdl,
  hyperparameters: readonly SerializedHyperparameters[] | null | undefined,
  evaluations: readonly EvaluationRecord[] = [],
): string | null {
  const declared = mdl.objectives.filter((o) => o.noise === true || typeof o.noise === 'object');
  if (declared.length > 0) return `the MDL declares measurement noise on ${declared.map((o) => o.name).join(', ')}`;
  const noise = builtinNoise(mdl);
  if (noise > 0 && mdl.objectives.some((o) => o.noise !== false)) {
    return `the builtin evaluator adds measurement noise (a relative standard deviation of ${Number((100 * noise).toPrecision(4))} %)`;
  }
  const { disagreement, repeats } = replicateEvidence(mdl, evaluations);
  if (disagreement) return `repeated measurements of one design disagree (${disagreement})`;
  if (repeats) return null;
  if (mdl.evaluator?.type === 'builtin') return null;
  if (!hyperparameters || hyperparameters.length !== mdl.objectives.length) return null;
  const material = mdl.objectives.filter((o, j) => o.noise !== false && hyperparameters[j].noise >= MATERIAL_NOISE_VARIANCE);
  if (material.length === 0) return null;
  return (
    `the fitted measurement noise of ${material.map((o) => o.name).join(', ')} is at least ` +
    `${Math.round(100 * Math.sqrt(MATERIAL_NOISE_VARIANCE))} % of the objective's spread`
  );
}

/**
 * Per objective, whether its measurements are known to be exact: declared `noise: false`, or
 * declared neither way in a campaign whose repeated measurements all agree (some design measured
 * twice, none disagreeing) or whose evaluator is a builtin function without noise. A builtin
 * evaluator with noise is never exact, though its repeats agree (its noise is a function of the
 * candidate). The fit caps such an objective's noise variance (gp/priors.ts EXACT_NOISE_MAX), so
 * a function the kernel follows poorly is not modelled as mostly noise.
 */
export function exactObjectives(mdl: Mdl, evaluations: readonly EvaluationRecord[]): boolean[] {
  const { disagreement, repeats } = replicateEvidence(mdl, evaluations);
  const builtin = mdl.evaluator?.type === 'builtin';
  const exact = disagreement === null && (builtin ? builtinNoise(mdl) === 0 : repeats);
  return mdl.objectives.map((o) => o.noise === false || (o.noise === undefined && exact));
}

/** The relative noise sd a builtin evaluator adds to every measurement: 0 without `noise`, or for another evaluator. */
function builtinNoise(mdl: Mdl): number {
  return mdl.evaluator?.type === 'builtin' ? (mdl.evaluator.noise ?? 0) : 0;
}

/** Whether the campaign is noisy (noiseReason). */
export function isNoisy(mdl: Mdl, state: Readonly<CampaignState>): boolean {
  return noiseReason(mdl, state.hyperparameters, state.evaluations) !== null;
}

/**
 * What repeated measurements say: the first objective and evaluation ids where two measurements
 * of the same parameter values differ (null when none do), and whether any design was measured
 * twice. Every step asks, so evaluations are first grouped by their first parameter's value, and
 * only those sharing it are keyed in full (at 200 parameters and thousands of evaluations the full
 * keys were a tenth of a step).
 */
function replicateEvidence(mdl: Mdl, evaluations: readonly EvaluationRecord[]): { disagreement: string | null; repeats: boolean } {
  let repeats = false;
  const judged = mdl.objectives.filter((o) => o.noise !== false);
  const lead = mdl.parameters[0].name;
  const byLead = new Map<unknown, EvaluationRecord[]>();
  const first = new Map<string, EvaluationRecord>();
  for (const e of evaluations) {
    if (!e.objectives) continue;
    const group = byLead.get(e.parameters[lead]);
    if (!group) {
      byLead.set(e.parameters[lead], [e]);
      continue;
    }
    // the group's earlier members are keyed in full the first time a second member comes
    if (group.length === 1) first.set(designKey(mdl, group[0]), group[0]);
    group.push(e);
    const key = designKey(mdl, e);
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, e);
      continue;
    }
    repeats = true;
    for (const o of judged) {
      const [a, b] = [earlier.objectives![o.name], e.objectives[o.name]];
      if (Math.abs(a - b) > 1e-12 * Math.max(1, Math.abs(a), Math.abs(b))) return { disagreement: `${o.name} of ${earlier.id} and ${e.id}`, repeats };
    }
  }
  return { disagreement: null, repeats };
}

/** Measurements of the same parameter values are one design. */
export function designKey(mdl: Mdl, e: Pick<EvaluationRecord, 'parameters'>): string {
  return JSON.stringify(mdl.parameters.map((p) => e.parameters[p.name]));
}

/** Evaluations of the same parameter values: one design, its measurements pooled. */
export interface Design {
  /** indices into state.evaluations of its successful, feasible measurements, in order */
  rows: number[];
  /** pooled (mean) measured objectives, minimization space, length m */
  measured: Float64Array;
  /** in-sample posterior mean, minimization space, length m */
  predicted: Float64Array;
  /** posterior standard deviation of the mean, length m (objective units) */
  sd: Float64Array;
  /** non-dominated among the designs' posterior means */
  onFront: boolean;
}

export interface NoisyFront {
  reason: string;
  /** every feasible design the model covers, in order of first measurement */
  designs: Design[];
  /** hypervolume of the front designs' predicted values (the headline) */
  hypervolume: number;
  /** hypervolume of the raw feasible measurements, as a noiseless campaign reports it */
  measuredHypervolume: number;
}

/** The last front computed for a state object, with the MDL it was computed for. */
const cache = new WeakMap<object, { mdl: Mdl; front: NoisyFront | null }>();

/**
 * The model's front of a noisy campaign; null for a noiseless campaign, before the reference
 * point is fixed, or before any model has been fitted (the initial design: then the measured
 * front stands). The model is one float64 GP per objective with the state's latest
 * hyperparameters over the successful evaluations; an objective's declared noise sd replaces the
 * fitted noise. Pure; cached per state object and MDL (a state is never changed once its front is read).
 */
export function noisyFront(mdl: Mdl, state: Readonly<CampaignState>): NoisyFront | null {
  const cached = cache.get(state);
  if (cached?.mdl === mdl) return cached.front;
  const front = computeNoisyFront(mdl, state);
  cache.set(state, { mdl, front });
  return front;
}

function computeNoisyFront(mdl: Mdl, state: Readonly<CampaignState>): NoisyFront | null {
  const reason = noiseReason(mdl, state.hyperparameters, state.evaluations);
  const hyperparameters = state.hyperparameters;
  const ref = state.referencePoint;
  if (reason === null || !hyperparameters || hyperparameters.length !== mdl.objectives.length || ref === null) return null;
  const space = new SearchSpace(mdl);
  if (hyperparameters.some((h) => h.lengthscales.length !== space.dimension)) return null;
  const all = objectiveMatrix(mdl, state.evaluations);
  if (all.n === 0) return null;
  const { m } = all;
  const keep = modelRows(all.Y, all.n, m);
  const n = keep.length;
  const d = space.dimension;
  const X = new Float64Array(n * d);
  keep.forEach((k, i) => X.set(space.snap(space.encode(state.evaluations[all.rows[k]].parameters)), i * d));

  // designs: feasible model rows grouped by their parameter values
  const byKey = new Map<string, number[]>();
  const designX: number[] = [];
  keep.forEach((k, i) => {
    const record = state.evaluations[all.rows[k]];
    if (!isFeasible(mdl, record)) return;
    const key = designKey(mdl, record);
    const group = byKey.get(key);
    if (group) group.push(k);
    else {
      byKey.set(key, [k]);
      designX.push(i);
    }
  });
  const groups = [...byKey.values()];
  const q = groups.length;
  const Xq = new Float64Array(q * d);
  designX.forEach((i, g) => Xq.set(X.subarray(i * d, (i + 1) * d), g * d));

  const predicted = new Float64Array(q * m);
  const sd = new Float64Array(q * m);
  for (let j = 0; j < m; j++) {
    const raw = Float64Array.from(keep, (k) => all.Y[k * m + j]);
    const { mean, std } = standardization(raw);
    const h = deserializeHyperparameters(hyperparameters[j]);
    const declared = mdl.objectives[j].noise;
    if (typeof declared === 'object') h.noise = Math.max((declared.sd / std) ** 2, NOISE_FLOOR);
    const gp = new DenseGp(
      X,
      raw.map((v) => (v - mean) / std),
      n,
      d,
      h,
    );
    const posterior = gp.predict(Xq, q);
    for (let g = 0; g < q; g++) {
      predicted[g * m + j] = posterior.mean[g] * std + mean;
      sd[g * m + j] = Math.sqrt(posterior.variance[g]) * std;
    }
  }
  const mask = q > 0 ? paretoMask(predicted, q, m) : new Uint8Array(0);
  const designs: Design[] = groups.map((group, g) => {
    const measured = new Float64Array(m);
    for (const k of group) for (let j = 0; j < m; j++) measured[j] += all.Y[k * m + j] / group.length;
    return {
      rows: group.map((k) => all.rows[k]),
      measured,
      predicted: predicted.slice(g * m, (g + 1) * m),
      sd: sd.slice(g * m, (g + 1) * m),
      onFront: mask[g] === 1,
    };
  });
  const onFront = designs.filter((x) => x.onFront);
  const frontY = Float64Array.from(onFront.flatMap((x) => Array.from(x.predicted)));
  const feasible = objectiveMatrix(mdl, state.evaluations, 'feasible');
  return {
    reason,
    designs,
    hypervolume: onFront.length > 0 ? hypervolume(frontY, onFront.length, m, ref) : 0,
    measuredHypervolume: feasible.n > 0 ? hypervolume(feasible.Y, feasible.n, m, ref) : 0,
  };
}

/** Indices of the rows the model sees: all, or the best NOISY_FRONT_MAX_ROWS (rank, then newest). */
function modelRows(Y: Float64Array, n: number, m: number): number[] {
  const rows = Array.from({ length: n }, (_, i) => i);
  if (n <= NOISY_FRONT_MAX_ROWS) return rows;
  const rank = nondominatedRanks(Y, n, m);
  return rows
    .sort((a, b) => rank[a] - rank[b] || b - a)
    .slice(0, NOISY_FRONT_MAX_ROWS)
    .sort((a, b) => a - b);
}
