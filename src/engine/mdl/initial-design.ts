import type { Mdl } from './schema.js';

/**
 * How many evaluations the initial design takes (before a warm start replaces it): initial_samples
 * when given; one population for nsga2; otherwise 2 (d + 1) points for d parameters, at most half
 * the budget. The campaign step draws it and pre-flight compares it with the budget.
 */
export function initialDesignSize(mdl: Mdl): number {
  const { optimizer } = mdl;
  if (optimizer.initial_samples !== undefined) return optimizer.initial_samples;
  if (optimizer.method === 'nsga2') return optimizer.batch_size;
  return Math.max(1, Math.min(2 * (mdl.parameters.length + 1), Math.floor(optimizer.budget / 2)));
}
