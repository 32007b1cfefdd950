import { initialDesignSize } from '../mdl/initial-design.js';
import type { Mdl } from '../mdl/schema.js';
import { budgetUsed } from './state.js';
import type { CampaignState } from './types.js';

/**
 * How many iterations the campaign will have run when its budget is spent: those completed, the
 * one in flight, and the batches the remaining budget buys (the initial design first, if it is
 * still to come). Stagnation can end a campaign sooner; this is the plan, not a promise.
 */
export function plannedIterations(mdl: Mdl, state: CampaignState): number {
  let remaining = Math.max(0, mdl.optimizer.budget - budgetUsed(state));
  let planned = state.iteration + (state.pending.length > 0 ? 1 : 0);
  if (state.status !== 'running') return planned;
  const designPending =
    state.iteration === 0 && state.pending.length === 0 && !(mdl.optimizer.method === 'cma-es' && state.evaluations.some((e) => e.iteration === 0));
  if (designPending && remaining > 0) {
    remaining -= Math.min(remaining, initialDesignSize(mdl));
    planned += 1;
  }
  return planned + Math.ceil(remaining / mdl.optimizer.batch_size);
}
