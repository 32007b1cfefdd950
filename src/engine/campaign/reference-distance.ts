import { achievement, objectiveSpreads, pointsInside } from '../acquisition/reach.js';
import type { Mdl } from '../mdl/schema.js';
import { objectiveMatrix } from './objective-space.js';
import type { CampaignState } from './types.js';

/** How far the campaign still is from its reference box, while nothing is inside it. */
export interface ReferenceDistance {
  /** the feasible evaluation closest to the reference box */
  evaluation_id: string;
  /**
   * objective name → how far that evaluation misses the objective's reference value, in the
   * objective's units (≥ 0; 0 where it already meets it)
   */
  distance: Record<string, number>;
}

/**
 * The progress that exists while the hypervolume is 0: the feasible evaluation closest to the
 * reference box and, per objective, how far it misses the reference. "Closest" is the smallest
 * worst gap in units of each objective's observed spread (acquisition/reach.ts's achievement
 * scalarization, the quantity the engine's reach criterion improves). Null once a feasible
 * evaluation is inside the box (the hypervolume then measures progress), and before any feasible
 * evaluation or reference point exists.
 */
export function referenceDistance(mdl: Mdl, state: CampaignState): ReferenceDistance | null {
  const ref = state.referencePoint;
  if (!ref) return null;
  const { Y, n, m, rows } = objectiveMatrix(mdl, state.evaluations, 'feasible');
  if (n === 0 || pointsInside(Y, n, m, ref) > 0) return null;
  const spread = objectiveSpreads(Y, n, m, ref);
  let best = 0;
  let bestValue = Infinity;
  for (let i = 0; i < n; i++) {
    const value = achievement(Y, i * m, ref, spread);
    if (value < bestValue) {
      bestValue = value;
      best = i;
    }
  }
  // in minimization space y − r is how far the value misses its reference, whatever the direction
  const distance: Record<string, number> = {};
  mdl.objectives.forEach((o, j) => (distance[o.name] = Math.max(0, Y[best * m + j] - ref[j])));
  return { evaluation_id: state.evaluations[rows[best]].id, distance };
}

/** The distance in a phrase for logs and the CLI, e.g. "reference not reached: closest eval_7 misses f1 by 0.12, f2 by 0". */
export function describeReferenceDistance(d: ReferenceDistance): string {
  const gaps = Object.entries(d.distance).map(([name, gap]) => `${name} by ${Number(gap.toPrecision(3))}`);
  return `reference not reached: closest ${d.evaluation_id} misses ${gaps.join(', ')}`;
}
