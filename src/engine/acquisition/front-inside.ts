import { paretoIndices } from '../pareto.js';
import type { ReachFrame } from './reach-frame.js';

/**
 * The front's designs inside the reference box: the rows of `frame` inside it (feasible, strictly
 * better than the reference: the frame's rule) that no other feasible row dominates, in order;
 * the donors of a lone trust region and the parents of the global search's recombined starts. An
 * infeasible point that dominates a feasible one hides nothing: counting it cost C3-DTLZ4 with 3
 * objectives (whose infeasible region lies in front of its front) 10 points of the maximum at 90
 * evaluations with recombined starts (seeds 1–5: 52.9 against 63.2 %). Kept apart from
 * reach-frame.ts, which the dashboard's type check reaches and which so imports no compiled
 * kernel.
 */
export function frontInside(frame: ReachFrame): number[] {
  const { m } = frame;
  const inside = frame.feasibleRows.filter((i) => frame.isInside(i));
  const Y = new Float64Array(inside.length * m);
  inside.forEach((i, k) => Y.set(frame.Y.subarray(i * m, (i + 1) * m), k * m));
  return Array.from(paretoIndices(Y, inside.length, m), (k) => inside[k]);
}
