/**
 * Plain TypeScript implementation of exactly the algorithms of the WASM kernel
 * (`assembly/hypervolume.ts` and `assembly/lib/hv-*.ts`), step for step and in the same
 * floating-point order, so the two give the same numbers. It is the benchmark baseline for the
 * kernel, and a second implementation for the tests to compare against.
 *
 * Algorithms (minimisation; every row strictly better than ref once filtered):
 * - 2-D: one sweep in ascending second objective.
 * - 3-D: dimension sweep with a 2-D staircase (Beume, Fonseca, López-Ibáñez, Paquete &
 *   Vahrenhold 2009, "On the complexity of computing the hypervolume indicator").
 * - 4-D: HV4D+ (Guerreiro & Fonseca 2018, "Computing and updating hypervolume contributions in
 *   up to four dimensions"): sweep of the fourth objective adding exclusive 3-D contributions
 *   computed on a linked list with precomputed staircase neighbours, O(n^2).
 * - d >= 5: WFG (While, Bradstreet & Barone 2012, "A fast way of calculating exact
 *   hypervolumes"): slices along the last objective, exclusive volumes as box minus the
 *   hypervolume of the non-dominated limit set, with the sweeps above as base cases; in 5-D the
 *   4-D limit sets are only pruned of rows dominated by rows worse than p in one objective alone,
 *   and dominated input rows are dropped as WFG meets them.
 *
 * Row sets are `k x d` row-major Float64Arrays; a single row is addressed by (array, offset).
 */
import { checkHypervolumeInput } from '../src/engine/hypervolume.js';
import { buildFront, contribution2, frontContribution, hv2, hv3, hv4 } from './hypervolume-sweeps.js';

const RUN = 16;

/**
 * Sorting permutation of `rows` (`k x d`): ascending objective `key`, then ascending sum of the
 * objectives, then row index; with key = d - 1 a row that weakly dominates another comes first
 * except in rounding ties (see `sortedOrder` in assembly/lib/hv-rows.ts). Merge sort over runs of 16.
 */
function sortedOrder(rows: Float64Array, k: number, d: number, key: number): Int32Array {
  const keys = new Float64Array(2 * k);
  for (let i = 0; i < k; i++) {
    let sum = 0;
    for (let j = 0; j < d; j++) sum += rows[i * d + j];
    keys[2 * i] = rows[i * d + key];
    keys[2 * i + 1] = sum;
  }
  const before = (a: number, b: number): boolean => {
    const x = keys[2 * a];
    const y = keys[2 * b];
    return x < y || (x === y && keys[2 * a + 1] < keys[2 * b + 1]);
  };
  let a = new Int32Array(k);
  let b = new Int32Array(k);
  for (let i = 0; i < k; i++) a[i] = i;
  for (let lo = 0; lo < k; lo += RUN) {
    const hi = Math.min(lo + RUN, k);
    for (let i = lo + 1; i < hi; i++) {
      const v = a[i];
      let j = i - 1;
      while (j >= lo && before(v, a[j])) {
        a[j + 1] = a[j];
        j--;
      }
      a[j + 1] = v;
    }
  }
  for (let width = RUN; width < k; width *= 2) {
    for (let lo = 0; lo < k; lo += 2 * width) {
      const mid = Math.min(lo + width, k);
      const hi = Math.min(lo + 2 * width, k);
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) b[o++] = before(a[j], a[i]) ? a[j++] : a[i++];
      while (i < mid) b[o++] = a[i++];
      while (j < hi) b[o++] = a[j++];
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
}

/** Rows `perm[0..k)` of `rows` (`? x d`), in that order, as a new `k x d` block. */
function gatherRows(rows: Float64Array, perm: Int32Array, k: number, d: number): Float64Array {
  const out = new Float64Array(k * d);
  for (let t = 0; t < k; t++) out.set(rows.subarray(perm[t] * d, perm[t] * d + d), t * d);
  return out;
}

/**
 * The rows of `rows` visited in sorted order `perm` that no earlier kept row weakly dominates
 * (first d-1 objectives compared; the last is ordered by the sort), newest kept rows first.
 * Returns the kept rows (`count x d`, buffer may be longer) and their count.
 */
function gatherNondominated(rows: Float64Array, perm: Int32Array, k: number, d: number): [Float64Array, number] {
  const out = new Float64Array(k * d);
  const e = d - 1;
  let kept = 0;
  for (let t = 0; t < k; t++) {
    const r = perm[t] * d;
    let dominated = false;
    for (let u = kept - 1; u >= 0 && !dominated; u--) {
      const w = u * d;
      let j = 0;
      while (j < e && out[w + j] <= rows[r + j]) j++;
      dominated = j === e;
    }
    if (!dominated) {
      out.set(rows.subarray(r, r + d), kept * d);
      kept++;
    }
  }
  return [out, kept];
}

/**
 * WFG limit set: the first `count` rows of `rows` (`? x d`) limited by the row of `pts` at `p`
 * (componentwise maximum, first e objectives), as a `count x e` block; null when a row weakly
 * dominates p in those objectives.
 */
function limitSet(rows: Float64Array, count: number, d: number, pts: Float64Array, p: number, e: number): Float64Array | null {
  const out = new Float64Array(count * e);
  for (let i = 0; i < count; i++) {
    let outside = false;
    for (let j = 0; j < e; j++) {
      const q = rows[i * d + j];
      const pj = pts[p + j];
      out[i * e + j] = Math.max(q, pj);
      if (q > pj) outside = true;
    }
    if (!outside) return null;
  }
  return out;
}

/** Volume of the box between the row of `pts` at `p` and `ref`, first `e` objectives. */
function boxVolume(pts: Float64Array, p: number, e: number, ref: Float64Array): number {
  let v = 1;
  for (let j = 0; j < e; j++) v *= ref[j] - pts[p + j];
  return v;
}

/** Hypervolume of rows 0 and 1 of `rows` (`2 x d`) by inclusion-exclusion. */
function pairVolume(rows: Float64Array, d: number, ref: Float64Array): number {
  let va = 1;
  let vb = 1;
  let vab = 1;
  for (let j = 0; j < d; j++) {
    const x = rows[j];
    const y = rows[d + j];
    va *= ref[j] - x;
    vb *= ref[j] - y;
    vab *= ref[j] - Math.max(x, y);
  }
  return va + vb - vab;
}

/** Rows of `points` (`n x m`) strictly better than ref in every objective, and their count. */
function rowsBelowRef(points: Float64Array, n: number, m: number, ref: Float64Array): [Float64Array, number] {
  const out = new Float64Array(n * m);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    let inside = true;
    for (let j = 0; j < m && inside; j++) inside = points[i * m + j] < ref[j];
    if (inside) {
      out.set(points.subarray(i * m, i * m + m), kept * m);
      kept++;
    }
  }
  return [out, kept];
}

/** Hypervolume of `rows` (`k x d`, inside ref) sorted by the last objective. */
function hvSorted(rows: Float64Array, k: number, d: number, ref: Float64Array): number {
  if (k === 0) return 0;
  if (k === 1) return boxVolume(rows, 0, d, ref);
  if (k === 2) return pairVolume(rows, d, ref);
  if (d === 2) return hv2(rows, k, d, ref);
  if (d === 3) return hv3(rows, k, d, ref);
  if (d === 4) return hv4(rows, k, d, ref);
  if (d === 5) return wfg5(rows, k, ref);
  return wfg(rows, k, d, ref);
}

/**
 * Exclusive hypervolume of the row of `pts` at `p` (first e objectives) over the first `count`
 * rows of `rows` (`? x d`, sorted by the last objective): box minus the hypervolume of the limit
 * set, filtered to its non-dominated rows except in 4-D, where HV4D+ drops them itself.
 */
function exclusive(rows: Float64Array, count: number, d: number, pts: Float64Array, p: number, e: number, ref: Float64Array): number {
  const box = boxVolume(pts, p, e, ref);
  if (count === 0) return box;
  const lim = limitSet(rows, count, d, pts, p, e);
  if (lim === null) return 0;
  if (e === 4 && d === 4) return box - hv4(lim, count, 4, ref);
  const [filt, kept] = gatherNondominated(lim, sortedOrder(lim, count, e, e - 1), count, e);
  return box - hvSorted(filt, kept, e, ref);
}

/**
 * The 4-objective limit set, by the row at `p`, of the kept rows of `rows` (`? x d`): `alive`
 * lists them in row order, `byFourth` by the fourth objective, the order of the output. Rows that
 * another limited row weakly dominates are left out: for each objective j, the lowest row worse
 * than p in j alone limits to p with only coordinate j raised and covers every other limited row
 * whose coordinate j is at least as high (see `limitOrdered4` in the kernel). Null when a kept row
 * weakly dominates p (newest tried first).
 */
function limitOrdered(rows: Float64Array, d: number, alive: number[], byFourth: number[], p: number): Float64Array | null {
  const low = new Float64Array(4).fill(Infinity);
  const axisRow = new Int32Array(4).fill(-1);
  for (let u = alive.length - 1; u >= 0; u--) {
    const i = alive[u];
    let worse = -1;
    let n = 0;
    for (let j = 0; j < 4; j++) {
      if (rows[i * d + j] > rows[p + j]) {
        worse = j;
        n++;
      }
    }
    if (n === 0) return null;
    if (n === 1 && rows[i * d + worse] < low[worse]) {
      low[worse] = rows[i * d + worse];
      axisRow[worse] = i;
    }
  }
  const out = new Float64Array(alive.length * 4);
  let n = 0;
  for (const i of byFourth) {
    let high = 0;
    let last = -1;
    for (let j = 0; j < 4; j++) {
      const v = Math.max(rows[i * d + j], rows[p + j]);
      out[n * 4 + j] = v;
      if (v >= low[j]) {
        high++;
        last = j;
      }
    }
    if (high === 0 || (high === 1 && axisRow[last] === i)) n++;
  }
  return out.subarray(0, n * 4);
}

/** WFG (d >= 6, non-dominated rows): sum over rows of (ref_d - p_d) times the exclusive (d-1)-D volume over earlier rows. */
function wfg(rows: Float64Array, k: number, d: number, ref: Float64Array): number {
  const e = d - 1;
  let volume = 0;
  for (let i = 0; i < k; i++) volume += (ref[e] - rows[i * d + e]) * exclusive(rows, i, d, rows, i * d, e, ref);
  return volume;
}

/**
 * WFG for 5 objectives (dominated rows allowed): a row found dominated while building its limit
 * set is left out of all later ones; the kept rows are listed in row order and, by insertion, in
 * order of their fourth objective (see `wfg5` in the kernel).
 */
function wfg5(rows: Float64Array, k: number, ref: Float64Array): number {
  const order = sortedOrder(rows, k, 5, 3);
  const rank = new Int32Array(k);
  order.forEach((i, t) => (rank[i] = t));
  const alive: number[] = [];
  const byFourth: number[] = [];
  let volume = 0;
  for (let i = 0; i < k; i++) {
    const lim = limitOrdered(rows, 5, alive, byFourth, i * 5);
    if (lim === null) continue;
    volume += (ref[4] - rows[i * 5 + 4]) * (boxVolume(rows, i * 5, 4, ref) - hvSorted(lim, lim.length / 4, 4, ref));
    alive.push(i);
    let t = byFourth.length;
    while (t > 0 && rank[byFourth[t - 1]] > rank[i]) t--;
    byFourth.splice(t, 0, i);
  }
  return volume;
}

/** Same contract as `hypervolume` in ./hypervolume.ts. */
export function hypervolumeReference(points: Float64Array, n: number, m: number, ref: ArrayLike<number>): number {
  checkHypervolumeInput('points', points, n, m, ref);
  const r = Float64Array.from(ref);
  const [rows, k] = rowsBelowRef(points, n, m, r);
  if (k === 0) return 0;
  if (m === 1) {
    let best = rows[0];
    for (let i = 1; i < k; i++) best = Math.min(best, rows[i]);
    return r[0] - best;
  }
  const perm = sortedOrder(rows, k, m, m - 1);
  if (m >= 6) {
    const [sorted, kept] = gatherNondominated(rows, perm, k, m);
    return hvSorted(sorted, kept, m, r);
  }
  return hvSorted(gatherRows(rows, perm, k, m), k, m, r);
}

/** Same contract as `hypervolumeImprovements` in ./hypervolume.ts. */
export function hypervolumeImprovementsReference(
  front: Float64Array,
  n: number,
  m: number,
  ref: ArrayLike<number>,
  candidates: Float64Array,
  q: number,
): Float64Array {
  checkHypervolumeInput('front points', front, n, m, ref);
  checkHypervolumeInput('candidates', candidates, q, m, ref);
  const r = Float64Array.from(ref);
  const [rows, inside] = rowsBelowRef(front, n, m, r);
  const [sorted, k] = inside > 0 ? gatherNondominated(rows, sortedOrder(rows, inside, m, m - 1), inside, m) : [rows, 0];
  const front3 = m === 3 ? buildFront(sorted, k, 3, r) : null;
  const out = new Float64Array(q);
  for (let c = 0; c < q; c++) {
    const p = c * m;
    let inRef = true;
    for (let j = 0; j < m; j++) if (!(candidates[p + j] < r[j])) inRef = false;
    let gain = 0;
    if (inRef) {
      if (m === 1) gain = (k > 0 ? sorted[0] : r[0]) - candidates[p];
      else if (m === 2) gain = contribution2(sorted, k, candidates[p], candidates[p + 1], r);
      else if (front3 !== null) gain = frontContribution(front3, candidates, p);
      else gain = exclusive(sorted, k, m, candidates, p, m, r);
    }
    out[c] = Math.max(gain, 0);
  }
  return out;
}
