import { proposeBatch } from '../acquisition/batch.js';
import type { GpHyperparameters } from '../gp/priors.js';
import { Surrogate, standardizedColumn } from '../gp/surrogate.js';
import { nondominatedRanks } from './nsga2/sorting.js';
import type { Observations, Strategy, StrategyContext } from './types.js';

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
    return {
      fits: Array.from({ length: data.m }, (_, o) => ({
        X: data.X,
        y: standardizedColumn(data.Y, data.n, data.m, o),
        n: data.n,
        d: data.d,
        seed: context.random.seed(),
        ...(warm ? { initial: warm[o] } : {}),
      })),
    };
  },
  propose(context, fitted) {
    const data = modelData(context.observations);
    const surrogate = Surrogate.build(data.X, data.Y, data.n, data.d, data.m, fitted);
    const batch = proposeBatch({
      space: context.space,
      X: data.X,
      Y: data.Y,
      n: data.n,
      m: data.m,
      ref: context.observations.ref!,
      q: context.q,
      pending: [],
      acquisition: context.mdl.optimizer.acquisition,
      random: context.random,
      surrogate,
    });
    return { points: batch.points, label: batch.acquisition, hyperparameters: [...fitted] };
  },
};

/** The previous fit, when it fits this model's shape. */
function warmStart(context: StrategyContext): GpHyperparameters[] | undefined {
  const previous = context.previousHyperparameters;
  if (!previous || previous.length !== context.observations.m) return undefined;
  if (previous.some((h) => h.lengthscales.length !== context.observations.d)) return undefined;
  return previous;
}

/** The rows the global model sees: all of them, or the best GLOBAL_MAX_POINTS. */
function modelData(o: Observations): { X: Float64Array; Y: Float64Array; n: number; d: number; m: number } {
  const { d, m } = o;
  if (o.n <= GLOBAL_MAX_POINTS) return { X: o.X, Y: o.Y, n: o.n, d, m };
  const rank = nondominatedRanks(o.Y, o.n, m);
  const order = Array.from({ length: o.n }, (_, i) => i).sort((a, b) => rank[a] - rank[b] || b - a);
  const keep = order.slice(0, GLOBAL_MAX_POINTS);
  const X = new Float64Array(keep.length * d);
  const Y = new Float64Array(keep.length * m);
  keep.forEach((r, i) => {
    X.set(o.X.subarray(r * d, (r + 1) * d), i * d);
    Y.set(o.Y.subarray(r * m, (r + 1) * m), i * m);
  });
  return { X, Y, n: keep.length, d, m };
}
