import type { Mdl } from '../mdl/schema.js';
import type { SearchSpace } from '../space.js';
import { GLOBAL_MAX_POINTS } from './global.js';
import type { StrategyChoice } from './strategy-choice.js';

/**
 * From this many encoded dimensions, `auto` prefers trust regions: a global GP spreads its data
 * too thin to rank candidates (Eriksson et al. 2019, "Scalable global optimization via local
 * Bayesian optimization"), while local models keep learning where the good points are.
 */
export const TRUST_REGION_MIN_DIMENSION = 20;

/**
 * `optimizer.method` decides for nsga2, random and lhs; for cma-es `optimizer.strategy` does, and
 * `auto` picks trust regions in high dimensions or when the campaign will hold more rows than the
 * global model takes (budget plus warm start above GLOBAL_MAX_POINTS).
 */
export function chooseStrategy(mdl: Mdl, space: SearchSpace, warmStartRows: number): StrategyChoice {
  const { method, strategy, budget } = mdl.optimizer;
  if (method !== 'cma-es') return { name: method, reason: `optimizer.method is ${method}` };
  if (strategy !== 'auto') return { name: strategy, reason: `optimizer.strategy is ${strategy}` };
  const d = space.dimension;
  const rows = budget + warmStartRows;
  if (d >= TRUST_REGION_MIN_DIMENSION) {
    return {
      name: 'trust-region',
      reason: `auto: ${d} encoded dimensions (from ${TRUST_REGION_MIN_DIMENSION} on, local models in trust regions beat one global model)`,
    };
  }
  if (rows > GLOBAL_MAX_POINTS) {
    return {
      name: 'trust-region',
      reason: `auto: up to ${rows} evaluations, more than the ${GLOBAL_MAX_POINTS} one exact global model takes`,
    };
  }
  return { name: 'global', reason: `auto: ${d} encoded dimensions and at most ${rows} evaluations suit one global model` };
}
