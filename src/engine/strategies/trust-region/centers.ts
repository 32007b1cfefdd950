import { achievement } from '../../acquisition/reach.js';
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
export function centerPreference(Y: Float64Array, n: number, m: number, ref: readonly number[], scale: ArrayLike<number>): number[] {
  if (n === 0) return [];
  const contribution = exclusiveContributions(Y, n, m, ref);
  const rank = nondominatedRanks(Y, n, m);
  const outside = outsideDistances(Y, n, m, ref, scale);
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
  if (m === 2) return contributionsOfTwo(Y, front, ref, out);
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
 * Two objectives: along the front sorted by the first objective (the second then falls), a
 * point's exclusive contribution is the rectangle between its neighbours, (x_next − x)·(y_prev − y),
 * with the reference point closing both ends; a point outside the reference box, or one that
 * repeats another, contributes nothing. O(n log n) for the whole front, where removing each point
 * in turn costs a hypervolume per point. `front`: the non-dominated rows of `n x 2` Y; fills `out`.
 */
function contributionsOfTwo(Y: Float64Array, front: readonly number[], ref: readonly number[], out: Float64Array): Float64Array {
  const inside = front.filter((r) => Y[2 * r] < ref[0] && Y[2 * r + 1] < ref[1]).sort((a, b) => Y[2 * a] - Y[2 * b] || Y[2 * b + 1] - Y[2 * a + 1] || a - b);
  inside.forEach((r, k) => {
    const before = k > 0 ? inside[k - 1] : -1;
    const after = k + 1 < inside.length ? inside[k + 1] : -1;
    const repeats = (other: number) => other >= 0 && Y[2 * other] === Y[2 * r] && Y[2 * other + 1] === Y[2 * r + 1];
    if (repeats(before) || repeats(after)) return;
    const right = after >= 0 ? Y[2 * after] : ref[0];
    const top = before >= 0 ? Y[2 * before + 1] : ref[1];
    out[r] = (right - Y[2 * r]) * (top - Y[2 * r + 1]);
  });
  return out;
}

/**
 * How far each row lies outside the reference box: max over objectives of (y − ref) in units of
 * `scale`, the step's reach frame's (≤ 0 inside; acquisition/reach.ts's achievement
 * scalarization). Y: `n x m`, infeasible rows folded beyond the reference.
 */
export function outsideDistances(Y: Float64Array, n: number, m: number, ref: readonly number[], scale: ArrayLike<number>): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => achievement(Y, i * m, ref, scale));
}

/** Hypervolume of the rows `members` of `Y` (`n x m`). */
export function hypervolumeOf(Y: Float64Array, m: number, members: readonly number[], ref: readonly number[]): number {
  const rows = new Float64Array(members.length * m);
  members.forEach((r, k) => rows.set(Y.subarray(r * m, (r + 1) * m), k * m));
  return hypervolume(rows, members.length, m, ref);
}
