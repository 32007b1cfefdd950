import { achievement, objectiveSpreads } from '../../acquisition/reach.js';
import { hypervolume, hypervolumeImprovements } from '../../hypervolume.js';
import { paretoIndices } from '../../pareto.js';
import { nondominatedRanks } from '../nsga2/sorting.js';

/**
 * How good a place each observed point is to centre a trust region on (MORBO, Daulton et al.
 * 2022: centres by hypervolume contribution). Points on the Pareto front that add hypervolume
 * come first, largest exclusive contribution first; then every other point by non-dominated rank
 * and, within a rank, by how far it stays outside the reference box (a point that reaches no
 * further than the reference still leads the way there, which matters before anything does).
 *
 * Y: `n x m` minimization-space objectives; ref: length m. Returns row indices, best first.
 */
export function centerPreference(Y: Float64Array, n: number, m: number, ref: readonly number[]): number[] {
  if (n === 0) return [];
  const contribution = exclusiveContributions(Y, n, m, ref);
  const rank = nondominatedRanks(Y, n, m);
  const outside = outsideDistances(Y, n, m, ref);
  return Array.from({ length: n }, (_, i) => i).sort(
    (a, b) =>
      Number(contribution[b] > 0) - Number(contribution[a] > 0) || contribution[b] - contribution[a] || rank[a] - rank[b] || outside[a] - outside[b] || a - b,
  );
}

/**
 * Exclusive hypervolume contribution of each row: HV(front) − HV(front without it) for rows of
 * the Pareto front, 0 for the others. Y: `n x m`.
 */
export function exclusiveContributions(Y: Float64Array, n: number, m: number, ref: readonly number[]): Float64Array {
  const out = new Float64Array(n);
  const front = Array.from(paretoIndices(Y, n, m));
  if (front.length === 0) return out;
  const rows = new Float64Array(front.length * m);
  front.forEach((r, k) => rows.set(Y.subarray(r * m, (r + 1) * m), k * m));
  const others = new Float64Array((front.length - 1) * m);
  front.forEach((r, k) => {
    others.set(rows.subarray(0, k * m), 0);
    others.set(rows.subarray((k + 1) * m), k * m);
    out[r] = hypervolumeImprovements(others, front.length - 1, m, ref, rows.subarray(k * m, (k + 1) * m), 1)[0];
  });
  return out;
}

/**
 * How far each row lies outside the reference box: max over objectives of (y − ref) in units of
 * that objective's observed spread (≤ 0 inside; acquisition/reach.ts's achievement scalarization). Y: `n x m`.
 */
export function outsideDistances(Y: Float64Array, n: number, m: number, ref: readonly number[]): Float64Array {
  const spread = objectiveSpreads(Y, n, m, ref);
  return Float64Array.from({ length: n }, (_, i) => achievement(Y, i * m, ref, spread));
}

/** Hypervolume of the rows `members` of `Y` (`n x m`). */
export function hypervolumeOf(Y: Float64Array, m: number, members: readonly number[], ref: readonly number[]): number {
  const rows = new Float64Array(members.length * m);
  members.forEach((r, k) => rows.set(Y.subarray(r * m, (r + 1) * m), k * m));
  return hypervolume(rows, members.length, m, ref);
}
