import { paretoMask } from '../pareto.js';
import type { Mdl } from '../mdl/schema.js';
import { isFeasible } from './feasibility.js';
import { designKey, noisyFront, type Design, type NoisyFront } from './noisy-front.js';
import { objectiveMatrix, toObjectiveRecord } from './objective-space.js';
import { frontSummary } from './state.js';
import type { ResultRow } from './result-row.js';
import { resultStatus } from './result-status.js';
import type { CampaignState } from './types.js';

export type { ResultRow };

/** The results payload: the Pareto front, hypervolume and convergence history, plus every evaluation (with `is_pareto`) and the reference point. */
export interface CampaignResults {
  pareto_front: ResultRow[];
  evaluations: ResultRow[];
  /** the headline: of the measured front, or in a noisy campaign of the model front's predicted values */
  hypervolume: number;
  /** the hypervolume of the raw feasible measurements (equal to `hypervolume` in a noiseless campaign) */
  measured_hypervolume: number;
  /** whether the front and the headline hypervolume are the model's (noisy-front.ts) */
  noisy: boolean;
  /** why the campaign counts as noisy, in a sentence; null when it does not (or before any model) */
  noise_reason: string | null;
  convergence_history: number[];
  /** objective name → reference value in MDL units; null before any data */
  reference_point: Record<string, number> | null;
  /** the strategy that proposes after the initial design and why; null before the first step */
  strategy: { name: string; reason: string } | null;
}

/**
 * Results from the stored evaluations: every successful evaluation (partial ones too), whether it meets the outcome
 * constraints, and `is_pareto` computed over the feasible ones (warm-start rows included); the
 * current hypervolume and its history. A noisy campaign's front is the model's instead (see
 * noisyResults).
 */
export function campaignResults(mdl: Mdl, state: CampaignState): CampaignResults {
  const modelled = noisyFront(mdl, state);
  if (modelled) return noisyResults(mdl, state, modelled);
  // partial measurements are listed with the values they have; they are never feasible or on the front
  const rows = state.evaluations.flatMap((e, i) => (e.objectives ? [i] : []));
  const feasible = objectiveMatrix(mdl, state.evaluations, 'feasible');
  const mask = feasible.n > 0 ? paretoMask(feasible.Y, feasible.n, feasible.m) : new Uint8Array(0);
  const onFront = new Set(feasible.rows.filter((_, k) => mask[k] === 1));
  const feasibleRows = new Set(feasible.rows);
  const evaluations: ResultRow[] = rows.map((r) => ({ ...resultRow(mdl, state, r), feasible: feasibleRows.has(r), is_pareto: onFront.has(r) }));
  const history = state.convergenceHistory;
  const measured = frontSummary(mdl, state).hypervolume;
  return {
    pareto_front: onceEach(
      mdl,
      evaluations.filter((e) => e.is_pareto),
    ),
    evaluations,
    hypervolume: history.length > 0 ? history[history.length - 1] : measured,
    measured_hypervolume: measured,
    noisy: false,
    noise_reason: null,
    convergence_history: [...history],
    reference_point: state.referencePoint ? toObjectiveRecord(mdl, state.referencePoint) : null,
    strategy: state.strategy ? { name: state.strategy.name, reason: state.strategy.reason } : null,
  };
}

/**
 * A noisy campaign's results: every evaluation with its design's prediction; the front lists each
 * design on the model's front once, its measurements pooled (their mean) beside the prediction;
 * the headline hypervolume is that of the predictions, the raw measurements' is kept apart.
 */
function noisyResults(mdl: Mdl, state: CampaignState, modelled: NoisyFront): CampaignResults {
  // partial measurements are listed too, with what they have and without a design's prediction
  const rows = state.evaluations.flatMap((e, i) => (e.objectives ? [i] : []));
  const designOf = new Map<number, Design>();
  for (const design of modelled.designs) for (const r of design.rows) designOf.set(r, design);
  const feasibleRows = new Set(objectiveMatrix(mdl, state.evaluations, 'feasible').rows);
  const evaluations: ResultRow[] = rows.map((r) => {
    const design = designOf.get(r);
    return {
      ...resultRow(mdl, state, r),
      feasible: feasibleRows.has(r),
      is_pareto: design?.onFront ?? false,
      ...(design ? designFields(mdl, state, design) : {}),
    };
  });
  const pareto_front: ResultRow[] = modelled.designs
    .filter((design) => design.onFront)
    .map((design) => ({
      ...resultRow(mdl, state, design.rows[0]),
      objectives: toObjectiveRecord(mdl, design.measured),
      feasible: true,
      is_pareto: true,
      ...designFields(mdl, state, design),
    }));
  return {
    pareto_front,
    evaluations,
    hypervolume: modelled.hypervolume,
    measured_hypervolume: modelled.measuredHypervolume,
    noisy: true,
    noise_reason: modelled.reason,
    convergence_history: [...state.convergenceHistory],
    reference_point: state.referencePoint ? toObjectiveRecord(mdl, state.referencePoint) : null,
    strategy: state.strategy ? { name: state.strategy.name, reason: state.strategy.reason } : null,
  };
}

/**
 * A noiseless front's rows, each design once: a design measured again with the same values (the
 * noise check's repeat that agreed) is one point, listed as its first measurement with
 * `design_id` and `measurements` as a noisy front lists its designs. Repeats whose values differ
 * are different points (an objective declared `noise: false` may differ between measurements).
 */
function onceEach(mdl: Mdl, front: ResultRow[]): ResultRow[] {
  const first = new Map<string, ResultRow>();
  const count = new Map<ResultRow, number>();
  for (const row of front) {
    const key = designKey(mdl, row) + JSON.stringify(mdl.objectives.map((o) => row.objectives[o.name]));
    const seen = first.get(key);
    if (seen) count.set(seen, (count.get(seen) ?? 1) + 1);
    else first.set(key, row);
  }
  return [...first.values()].map((row) => (count.has(row) ? { ...row, design_id: row.id, measurements: count.get(row) } : row));
}

function resultRow(mdl: Mdl, state: CampaignState, r: number): Omit<ResultRow, 'feasible' | 'is_pareto'> {
  const e = state.evaluations[r];
  return {
    id: e.id,
    parameters: e.parameters,
    objectives: e.objectives!,
    ...(e.outcomes ? { outcomes: e.outcomes } : {}),
    iteration: e.iteration,
    status: resultStatus(mdl, e) === 'partial' ? 'partial' : 'measured',
    ...(e.externalId !== undefined ? { external_id: e.externalId } : {}),
    ...(e.offPlan ? { off_plan: true as const } : {}),
  };
}

function designFields(mdl: Mdl, state: CampaignState, design: Design): Pick<ResultRow, 'predicted' | 'design_id' | 'measurements'> {
  const mean = toObjectiveRecord(mdl, design.predicted);
  const predicted: Record<string, { mean: number; sd: number }> = {};
  mdl.objectives.forEach((o, j) => (predicted[o.name] = { mean: mean[o.name], sd: design.sd[j] }));
  return { predicted, design_id: state.evaluations[design.rows[0]].id, measurements: design.rows.length };
}

/**
 * The best value of each objective among the feasible evaluations, in MDL units and directions;
 * in a noisy campaign, the best predicted value among its designs (a lucky measurement is no
 * design's value).
 */
export function bestObjectives(mdl: Mdl, state: CampaignState): Record<string, number> {
  const best: Record<string, number> = {};
  const consider = (values: Record<string, number>) => {
    for (const o of mdl.objectives) {
      const v = values[o.name];
      const current = best[o.name];
      if (current === undefined || (o.direction === 'maximize' ? v > current : v < current)) best[o.name] = v;
    }
  };
  const modelled = noisyFront(mdl, state);
  if (modelled) {
    for (const design of modelled.designs) consider(toObjectiveRecord(mdl, design.predicted));
    return best;
  }
  for (const e of state.evaluations) {
    if (!e.objectives || !isFeasible(mdl, e)) continue;
    consider(e.objectives);
  }
  return best;
}
