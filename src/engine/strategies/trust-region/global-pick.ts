import { proposeBatch } from '../../acquisition/batch.js';
import type { GpHyperparameters } from '../../gp/priors.js';
import { Surrogate } from '../../gp/surrogate.js';
import type { StrategyContext } from '../types.js';

/**
 * A lone trust region ends its batch with one pick of the global strategy's acquisition (EHVI or
 * the reach criterion, maximized over the whole space: acquisition/batch.ts) on the region's own
 * model, while that model covers every observation. A region moves a few tenths of
 * the range per batch and perturbs a few inputs at a time, so a front that lies on the bounds of
 * many inputs at once (ZDT's 29 distance inputs at 0) is still out of its reach at 90
 * evaluations, where one model over the whole space finds it; the region's picks keep refining
 * where a global search over 24 inputs finds nothing. Measured at 90 evaluations (batches of 4,
 * the suite's 23 cases with 24 or 30 inputs, 5 seeds): ZDT1 with 30 inputs 56.1 → 88.6 % of the
 * maximum, with 5 % noise 17.0 → 72.6, ZDT2 44.5 → 77.9; the 23 cases average 35.5 → 40.5, the
 * WFG cases mostly within their seeds' spread (docs/benchmarks.md). The pick is judged with the
 * region's (a success grows it): judged apart, ZDT2 reached 65.5 against 76.9 and noisy ZDT1
 * 54.0 against 66.4 in the experiment that chose the rule.
 *
 * Cost: one acquisition search per batch (raw samples and CMA-ES, as a global step's pick), about
 * 0.1 s a batch at 90 rows in 24–30 dimensions.
 *
 * In a noisy campaign the pick, like the region's own, improves on the measured front: noisy
 * EHVI there (the global strategy's choice) left ZDT1 with 30 inputs and 5 % noise at 56.7 % of
 * the maximum against 72.6 (90 evaluations, seeds 1–5; seed 1 30.6 against 73.3).
 */
export const GLOBAL_PICKS = 1;

/**
 * How many of the batch's `free` places (those the steps and probes left) take a global pick:
 * GLOBAL_PICKS with one region whose model covers every observation (`modelRows` of `n`), no
 * outcome constraint (the region models active constraints with one shared GP, which the global
 * acquisition does not read) and at least one place left for the region's own draws; else 0.
 */
export function globalPickCount(regions: number, modelRows: number, n: number, constraints: number, free: number): number {
  return regions === 1 && modelRows === n && constraints === 0 && free > GLOBAL_PICKS ? GLOBAL_PICKS : 0;
}

/**
 * `count` points chosen by the global strategy's batch acquisition on the region's fitted model
 * (`objectives`: one set of hyperparameters per objective, fitted to every observation), with the
 * region's picks `chosen` and the step's pending candidates believed at the model's mean first.
 * Returns the points (encoded, snapped) and the acquisition's label.
 */
export async function globalPicks(
  context: StrategyContext,
  objectives: readonly GpHyperparameters[],
  chosen: readonly Float64Array[],
  count: number,
): Promise<{ points: Float64Array[]; label: string }> {
  const o = context.observations;
  const { n, d, m } = o;
  const X = o.X.slice(0, n * d);
  const Y = o.Y.slice(0, n * m);
  const batch = await proposeBatch({
    space: context.space,
    X,
    Y,
    n,
    m,
    ref: o.ref!,
    q: count,
    pending: [...(o.pending ?? []), ...chosen],
    acquisition: context.campaign.acquisition,
    random: context.random,
    surrogate: Surrogate.build(X, Y, n, d, m, objectives),
    ...(context.campaign.reach ? { reach: context.campaign.reach } : {}),
    computeScale: context.computeScale,
  });
  return { points: batch.points, label: batch.acquisition };
}
