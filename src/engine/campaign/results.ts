import { paretoMask } from '../pareto.js';
import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { objectiveMatrix, toObjectiveRecord } from './objective-space.js';
import { frontSummary } from './state.js';
import type { CampaignState } from './types.js';

/** One evaluation in the results payload (interface.md 2.3). */
export interface ResultRow {
  id: string;
  parameters: Record<string, ParameterValue>;
  objectives: Record<string, number>;
  iteration: number;
  is_pareto: boolean;
}

/** The results payload of interface.md 2.3 with the members decisions.md adds. */
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
 * Results from the stored evaluations: every successful evaluation with `is_pareto` computed over
 * all of them (warm-start rows included), the current hypervolume and its history.
 */
export function campaignResults(mdl: Mdl, state: CampaignState): CampaignResults {
  const { Y, n, m, rows } = objectiveMatrix(mdl, state.evaluations);
  const mask = n > 0 ? paretoMask(Y, n, m) : new Uint8Array(0);
  const evaluations: ResultRow[] = rows.map((r, k) => {
    const e = state.evaluations[r];
    return {
      id: e.id,
      parameters: e.parameters,
      objectives: e.objectives!,
      iteration: e.iteration,
      is_pareto: mask[k] === 1,
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

/** The best value of each objective so far, in MDL units and directions. */
export function bestObjectives(mdl: Mdl, state: CampaignState): Record<string, number> {
  const best: Record<string, number> = {};
  for (const e of state.evaluations) {
    if (!e.objectives) continue;
    for (const o of mdl.objectives) {
      const v = e.objectives[o.name];
      const current = best[o.name];
      if (current === undefined || (o.direction === 'maximize' ? v > current : v < current)) best[o.name] = v;
    }
  }
  return best;
}
