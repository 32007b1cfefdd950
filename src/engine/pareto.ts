/**
 * Pareto (non-dominated) filtering in minimisation space. Row i is dominated when another row is
 * <= in every objective and < in at least one; identical rows are therefore all kept (or all
 * dropped). Every method visits the rows in an order where any dominator of a row comes before
 * it, so each row is tested against earlier rows only:
 * - m = 2: lexicographic sort and a running minimum, O(n log n);
 * - m = 3: lexicographic sort and a Fenwick tree of prefix minima of the third objective over
 *   the ranks of the second, O(n log n);
 * - m >= 4: sort by coordinate sum, then each row against the non-dominated rows found so far,
 *   with early exit, O(n f m) for f non-dominated rows; that scan runs in the WASM hypervolume
 *   kernel (SIMD), several times faster than in JavaScript.
 */
import { nondominatedVerdicts } from './hypervolume.js';

/** 1 where row i of `points` (`n x m` row-major) is non-dominated, else 0. */
export function paretoMask(points: Float64Array, n: number, m: number): Uint8Array {
  checkPoints(points, n, m);
  const mask = new Uint8Array(n);
  if (n === 0) return mask;
  if (m === 1) {
    let best = Infinity;
    for (let i = 0; i < n; i++) best = Math.min(best, points[i]);
    for (let i = 0; i < n; i++) mask[i] = points[i] === best ? 1 : 0;
    return mask;
  }
  if (m === 2) mask2(points, n, mask);
  else if (m === 3) mask3(points, n, mask);
  else maskAny(points, n, m, mask);
  return mask;
}

/** Indices (ascending) of the non-dominated rows of `points` (`n x m` row-major). */
export function paretoIndices(points: Float64Array, n: number, m: number): Int32Array {
  const mask = paretoMask(points, n, m);
  let count = 0;
  for (let i = 0; i < n; i++) count += mask[i];
  const out = new Int32Array(count);
  for (let i = 0, k = 0; i < n; i++) if (mask[i]) out[k++] = i;
  return out;
}

function checkPoints(points: Float64Array, n: number, m: number): void {
  if (!Number.isInteger(m) || m < 1) throw new Error(`pareto: the number of objectives must be a positive integer, got ${m}.`);
  if (!Number.isInteger(n) || n < 0) throw new Error(`pareto: the number of points must be a non-negative integer, got ${n}.`);
  if (points.length < n * m) throw new Error(`pareto: points hold ${points.length} values, fewer than ${n} x ${m}.`);
  for (let i = 0; i < n * m; i++) {
    if (Number.isNaN(points[i])) throw new Error(`pareto: point ${Math.floor(i / m)} objective ${i % m} is NaN.`);
  }
}

/** Row indices sorted lexicographically (objective 0 first). */
function lexOrder(points: Float64Array, n: number, m: number): Int32Array {
  const order = Int32Array.from({ length: n }, (_, i) => i);
  return order.sort((a, b) => compareLex(points, m, a, b));
}

function compareLex(points: Float64Array, m: number, a: number, b: number): number {
  for (let j = 0; j < m; j++) {
    const x = points[a * m + j];
    const y = points[b * m + j];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** End (exclusive) of the run of rows identical to order[start]. */
function runEnd(points: Float64Array, m: number, order: Int32Array, start: number): number {
  let end = start + 1;
  while (end < order.length && compareLex(points, m, order[start], order[end]) === 0) end++;
  return end;
}

/**
 * In lexicographic order every earlier distinct row has x <= this x, so it dominates this row
 * exactly when its y is <= this y: compare with the smallest earlier y.
 */
function mask2(points: Float64Array, n: number, mask: Uint8Array): void {
  const order = lexOrder(points, n, 2);
  let bestY = Infinity;
  for (let start = 0; start < n;) {
    const end = runEnd(points, 2, order, start);
    const y = points[order[start] * 2 + 1];
    const keep = bestY > y ? 1 : 0;
    for (let t = start; t < end; t++) mask[order[t]] = keep;
    bestY = Math.min(bestY, y);
    start = end;
  }
}

/**
 * As in 2-D, every earlier distinct row has x <= this x; it dominates this row exactly when its
 * (y, z) is weakly smaller, i.e. when the smallest z among earlier rows with y <= this y is <=
 * this z: a prefix-minimum query over y ranks.
 */
function mask3(points: Float64Array, n: number, mask: Uint8Array): void {
  const order = lexOrder(points, n, 3);
  const ys = Float64Array.from({ length: n }, (_, i) => points[i * 3 + 1]).sort();
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || ys[i] !== ys[i - 1]) ys[distinct++] = ys[i];
  const rank = (y: number): number => {
    let lo = 0;
    let hi = distinct;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ys[mid] <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const tree = new Float64Array(distinct + 1).fill(Infinity);
  for (let start = 0; start < n;) {
    const end = runEnd(points, 3, order, start);
    const row = order[start] * 3;
    const r = rank(points[row + 1]);
    const z = points[row + 2];
    let best = Infinity;
    for (let i = r; i > 0; i -= i & -i) best = Math.min(best, tree[i]);
    const keep = best > z ? 1 : 0;
    for (let t = start; t < end; t++) mask[order[t]] = keep;
    for (let i = r; i <= distinct; i += i & -i) tree[i] = Math.min(tree[i], z);
    start = end;
  }
}

/**
 * Rows sorted by coordinate sum (ties lexicographic): a dominator has a smaller or equal rounded
 * sum, so it comes first, and small sums make good dominators to test first; identical rows end
 * up adjacent. A dominated row is always dominated by some non-dominated one, so the kernel checks
 * each row against the non-dominated rows kept so far only. With infinite coordinates sums may be NaN, so plain lexicographic order
 * (where dominators also come first) is used instead.
 */
function maskAny(points: Float64Array, n: number, m: number, mask: Uint8Array): void {
  const sums = new Float64Array(n);
  let finite = true;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < m; j++) s += points[i * m + j];
    sums[i] = s;
    finite &&= Number.isFinite(s);
  }
  if (!finite) sums.fill(0);
  const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => (sums[a] !== sums[b] ? (sums[a] < sums[b] ? -1 : 1) : compareLex(points, m, a, b)));
  const sorted = new Float64Array(n * m);
  for (let t = 0; t < n; t++) sorted.set(points.subarray(order[t] * m, order[t] * m + m), t * m);
  const verdicts = nondominatedVerdicts(sorted, n, m);
  for (let t = 0; t < n; t++) mask[order[t]] = verdicts[t];
}
