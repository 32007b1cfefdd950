import type { PosteriorPath } from '../../gp/pathwise.js';

/**
 * Which outcome constraints need a model in a region. A constraint that every local point meets
 * with room to spare decides nothing there: candidates in the region meet it as the points around
 * them do, and a GP fitted to it would only say so at the cost of a fit and a draw. Such a
 * constraint gets a constant draw instead (its smallest local slack, zero gradient), so the cost
 * of a region grows with the constraints that are active near it, not with every constraint of the
 * campaign. Once a local point comes near its boundary or violates it, the constraint is modelled
 * again from the next step on.
 */

/**
 * A constraint is skipped when its smallest local slack is positive and at least this share of
 * the spread of its local slacks: the boundary is then further from every local point than the
 * slack varies across them.
 */
const ROOM = 0.25;

/**
 * The outputs of a region's local data that get a GP: every objective (0..m-1), then each slack
 * m + k that some local point violates or nearly does. Y: `rows x (m + c)`, objectives then slacks.
 */
export function modelledOutputs(Y: Float64Array, rows: number, m: number, c: number): number[] {
  const w = m + c;
  const outputs = Array.from({ length: m }, (_, j) => j);
  for (let k = m; k < w; k++) {
    const { lowest, highest } = slackRange(Y, rows, w, k);
    if (!(lowest > 0 && lowest >= ROOM * (highest - lowest))) outputs.push(k);
  }
  return outputs;
}

/** The smallest and largest value of column k of `rows x w` Y. */
export function slackRange(Y: Float64Array, rows: number, w: number, k: number): { lowest: number; highest: number } {
  let lowest = Infinity;
  let highest = -Infinity;
  for (let i = 0; i < rows; i++) {
    lowest = Math.min(lowest, Y[i * w + k]);
    highest = Math.max(highest, Y[i * w + k]);
  }
  return { lowest, highest };
}

/** A draw that is `value` everywhere (standardized units), for a constraint that decides nothing in a region. */
export function constantPath(value: number): PosteriorPath {
  return {
    at: (_points, count) => new Float64Array(count).fill(value),
    withGradient: (_x, gradient) => {
      gradient.fill(0);
      return value;
    },
  };
}
