import type { Random } from '../random.js';
import { frontInside } from './front-inside.js';
import type { SearchSpace } from '../space.js';
import type { ReachFrame } from './reach-frame.js';

/**
 * Recombinations of the front's designs among the acquisition search's starting points (global
 * strategy, hypervolume picks). On a front that is reached, a design's parameters do two jobs:
 * some place it along the front, the others (DTLZ's distance parameters, a formulation's
 * balance) decide how close to the true front it lies, and the improvement search, started from a
 * few front designs and random points, moves one design at a time. At 300 evaluations on DTLZ2
 * with 3 objectives and 12 parameters the front's designs still lay a median g = 0.038 off the
 * true front, and the same designs moved onto it would hold 91.5 % of the maximum against 85.1.
 * A child of two front designs places itself by some of their parameters and converges by the
 * others, so where one design has found good values for the second kind, the search can carry
 * them to other places on the front, as a genetic algorithm's crossover does. The search scores
 * the children with the random points and starts its CMA-ES instances from the best of all, so
 * a useless child costs one posterior evaluation.
 */
export const RECOMBINED_STARTS = 64;

/**
 * The fewest objectives with recombined starts. Measured at 90 evaluations (5 seeds, the suite's
 * 77 cases on the global strategy): with three or more objectives 18 of 42 cases gained and 10
 * lost (DTLZ7 with 3 objectives and 12 parameters 55.9 → 82.2 % of the maximum, DTLZ4 with 3 and
 * 7 +7.4, DTLZ2 with 4 and 13 +4.5; DTLZ5 with 3 and 12 lost most, 75.2 → 70.4); with two, where the
 * front is a curve, 15 of 35 lost and 8 gained, none by more than 1.7 points (DTLZ4 with 11
 * parameters 29.9 → 24.3, DTLZ7 with 11 96.0 → 91.4, noisy DTLZ2 83.4 → 80.7).
 */
export const RECOMBINED_FROM_OBJECTIVES = 3;

/**
 * `count` children of the front's designs inside the reference box (`frontInside`):
 * each of two parents drawn at random, every parameter from the second with probability ½ (a categorical
 * parameter's one-hot block whole); the same design drawn twice gives that design. Empty with
 * fewer than two such designs or fewer than RECOMBINED_FROM_OBJECTIVES objectives (no random
 * draw is made then).
 *
 * X: `n x d` encoded inputs of the frame's rows; frame: the step's reach frame over them (its
 * values decide the front: measured, or a noisy batch's predictions).
 */
export function recombinedStarts(space: SearchSpace, X: Float64Array, frame: ReachFrame, count: number, random: Random): Float64Array[] {
  if (frame.m < RECOMBINED_FROM_OBJECTIVES) return [];
  const parents = frontInside(frame);
  if (parents.length < 2) return [];
  const d = space.dimension;
  const row = (i: number) => X.subarray(i * d, (i + 1) * d);
  const children: Float64Array[] = [];
  for (let k = 0; k < count; k++) {
    const child = Float64Array.from(row(parents[random.int(parents.length)]));
    const other = row(parents[random.int(parents.length)]);
    for (const { offset, width } of space.layout) if (random.uniform() < 0.5) child.set(other.subarray(offset, offset + width), offset);
    children.push(child);
  }
  return children;
}
