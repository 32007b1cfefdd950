import { paretoMask } from '../pareto.js';
import type { Mdl } from '../mdl/schema.js';
import { isFeasible } from './feasibility.js';
import { objectiveMatrix, toObjectiveRecord } from './objective-space.js';
import { frontSummary } from './state.js';
import type { ResultRow } from './result-row.js';
import type { CampaignState } from './types.js';

export type { ResultRow };

/** The results payload: the Pareto front, hypervolume and convergence history, plus every evaluation (with `is_pareto`) and the reference point. */
export interface CampaignResults {
  pareto_front: ResultRow[];
  evaluations: ResultRow[];
  hypervolume: number;
  convergence_history: number[];
  /** objective name → reference value in MDL units; null before any data */
  reference_point: Record<string, number> | null;
  /** the strategy that proposes after the initial design and why; null before the first step */
  strategy: { name: string; reason: string } | null;
}

/**
 * Results from the stored evaluations: every successful evaluation (partial ones too), whether it meets the outcome
 * constraints, and `is_pareto` computed over the feasible ones (warm-start rows included); the
 * current hypervolume and its history.
 */
export function campaignResults(mdl: Mdl, state: CampaignState): CampaignResults {
  // partial measurements are listed with the values they have; they are never feasible or on the front
  const rows = state.evaluations.flatMap((e, i) => (e.objectives ? [i] : []));
  const feasible = objectiveMatrix(mdl, state.evaluations, 'feasible');
  const mask = feasible.n > 0 ? paretoMask(feasible.Y, feasible.n, feasible.m) : new Uint8Array(0);
  const onFront = new Set(feasible.rows.filter((_, k) => mask[k] === 1));
  const feasibleRows = new Set(feasible.rows);
  const evaluations: ResultRow[] = rows.map((r) => {
    const e = state.evaluations[r];
    return {
      id: e.id,
      parameters: e.parameters,
      objectives: e.objectives!,
      ...(e.outcomes ? { outcomes: e.outcomes } : {}),
      iteration: e.iteration,
      feasible: feasibleRows.has(r),
      is_pareto: onFront.has(r),
      ...(e.externalId !== undefined ? { external_id: e.externalId } : {}),
      ...(e.offPlan ? { off_plan: true as const } : {}),
    };
  });
  const history = state.convergenceHistory;
  const hv = history.length > 0 ? history[history.length - 1] : frontSummary(mdl, state).hypervolume;
  return {
    pareto_front: evaluations.filter((e) => e.is_pareto),
    evaluations,
    hypervolume: hv,
    convergence_history: [...history],
    reference_point: state.referencePoint ? toObjectiveRecord(mdl, state.referencePoint) : null,
    strategy: state.strategy ? { name: state.strategy.name, reason: state.strategy.reason } : null,
  };
}

/** The best value of each objective among the feasible evaluations, in MDL units and directions. */
export function bestObjectives(mdl: Mdl, state: CampaignState): Record<string, number> {
  const best: Record<string, number> = {};
  for (const e of state.evaluations) {
    if (!e.objectives || !isFeasible(mdl, e)) continue;
    for (const o of mdl.objectives) {
      const v = e.objectives[o.name];
      const current = best[o.name];
      if (current === undefined || (o.direction === 'maximize' ? v > current : v < current)) best[o.name] = v;
    }
  }
  return best;
}
