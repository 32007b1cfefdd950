import { ReachFrame } from '../acquisition/reach-frame.js';
import type { Mdl } from '../mdl/schema.js';
import { isFeasible } from './feasibility.js';
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
 * worst gap in the reach frame's units (acquisition/reach-frame.ts: each objective's spread over
 * the successful evaluations; the quantity the engine's reach criterion improves, here on the
 * measured values). Null once a feasible evaluation is inside the box (the hypervolume then
 * measures progress), and before any feasible evaluation or reference point exists.
 */
export function referenceDistance(mdl: Mdl, state: CampaignState): ReferenceDistance | null {
  const ref = state.referencePoint;
  if (!ref) return null;
  const { Y, n, m, rows } = objectiveMatrix(mdl, state.evaluations);
  const frame = new ReachFrame(
    Y,
    n,
    m,
    ref,
    Uint8Array.from(rows, (r) => (isFeasible(mdl, state.evaluations[r]) ? 1 : 0)),
  );
  const best = frame.closest();
  if (best < 0 || frame.inside > 0) return null;
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
