import { objectiveSpreads } from '../acquisition/reach.js';
import type { ReachFrame } from '../acquisition/reach-frame.js';
import type { Observations } from './types.js';

/**
 * Outcome constraints folded into the objectives, for the strategies that rank points rather
 * than model an acquisition (trust-region centres, batch success, Thompson selection; NSGA-II):
 * a feasible row keeps its objectives; an infeasible one moves beyond the reference point, to
 * ref + spread·(1 + v) in every objective, where v is its total normalized violation. Every
 * feasible point then dominates every infeasible one, and infeasible points dominate one another
 * by smaller violation: Deb's constrained domination (Deb 2000), in the form hypervolume, Pareto
 * ranks and crowding already understand.
 */

/**
 * Y: `n x m` minimization-space objectives; S: `n x c` constraint slacks (≥ 0 where a constraint
 * holds); ref, spread: length m; scale: length c, the unit of each slack. Returns a new `n x m`.
 */
export function penalizedObjectives(
  Y: Float64Array,
  S: Float64Array,
  n: number,
  m: number,
  c: number,
  ref: readonly number[],
  spread: ArrayLike<number>,
  scale: ArrayLike<number>,
): Float64Array {
  const out = Float64Array.from(Y.subarray(0, n * m));
  if (c === 0) return out;
  for (let i = 0; i < n; i++) {
    let violation = 0;
    for (let k = 0; k < c; k++) violation += Math.max(0, -S[i * c + k]) / scale[k];
    if (violation === 0) continue;
    for (let j = 0; j < m; j++) out[i * m + j] = ref[j] + spread[j] * (1 + violation);
  }
  return out;
}

/** Per slack column of `n x c` S: its standard deviation (1 when constant), the unit violations are counted in. */
export function slackScales(S: Float64Array, n: number, c: number): Float64Array {
  const scale = new Float64Array(c).fill(1);
  for (let k = 0; k < c; k++) {
    let mean = 0;
    for (let i = 0; i < n; i++) mean += S[i * c + k] / n;
    let variance = 0;
    for (let i = 0; i < n; i++) variance += (S[i * c + k] - mean) ** 2 / Math.max(1, n - 1);
    if (variance > 0) scale[k] = Math.sqrt(variance);
  }
  return scale;
}

/**
 * The observations' objectives with infeasible rows folded in as above, and the units used: the
 * step's reach frame's reference and scale (acquisition/reach-frame.ts), or without a reference
 * point the same rule about the worst observed values.
 */
export function rankingObjectives(o: Observations, frame: ReachFrame | null): { Y: Float64Array; spread: Float64Array; scale: Float64Array } {
  const ref = frame?.ref ?? o.ref ?? Array.from({ length: o.m }, (_, j) => worst(o, j));
  const spread = frame?.scale ?? objectiveSpreads(o.Y, o.n, o.m, ref);
  const scale = slackScales(o.C, o.n, o.c);
  return { Y: penalizedObjectives(o.Y, o.C, o.n, o.m, o.c, ref, spread, scale), spread, scale };
}

function worst(o: Observations, j: number): number {
  let hi = -Infinity;
  for (let i = 0; i < o.n; i++) hi = Math.max(hi, o.Y[i * o.m + j]);
  return hi;
}
