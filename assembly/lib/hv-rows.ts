// Row primitives shared by the hypervolume algorithms. A "row" is one point of `d` f64 objectives
// stored contiguously in linear memory; a set of `k` rows is a `k x d` row-major block.
// Everything is in minimisation space relative to a reference point `ref` (d f64).

import { arenaAlloc } from './hv-arena';

const RUN: i32 = 16;

@inline
function rowPtr(rows: usize, i: i32, d: i32): usize {
  return rows + ((<usize>i * <usize>d) << 3);
}

/**
 * Copies one row of `d` f64 from `src` to `dst` (not overlapping). Rows are short, and V8 runs
 * `memory.copy` as a call into the engine, which costs more than the copy itself.
 */
@inline
function copyRow(dst: usize, src: usize, d: i32): void {
  let j = 0;
  for (; j + 1 < d; j += 2) {
    const off = (<usize>j) << 3;
    v128.store(dst + off, v128.load(src + off));
  }
  if (j < d) {
    const off = (<usize>j) << 3;
    store<f64>(dst + off, load<f64>(src + off));
  }
}

/**
 * Sorting permutation of `rows` (`k x d`): ascending objective `key`, ties by ascending sum of the
 * objectives, then by row index. Returns a pointer to `k` i32 row indices in arena memory (the
 * caller releases it with its own arena mark). Floating-point sums are monotone, so a row that
 * weakly dominates another never sorts after it unless their rounded sums tie, and duplicates
 * tie on everything but the index: with key = d - 1, `gatherNondominated` then only needs one-way
 * tests, and in the rare tie it merely keeps a dominated row, which every algorithm here
 * tolerates. Stable
 * bottom-up merge sort over insertion-sorted runs: O(k log k) whatever the input.
 */
export function sortedOrder(rows: usize, k: i32, d: i32, key: i32): usize {
  const keys = arenaAlloc((<usize>k) << 4);
  for (let i = 0; i < k; i++) {
    const row = rowPtr(rows, i, d);
    let sum = 0.0;
    for (let j = 0; j < d; j++) sum += load<f64>(row + ((<usize>j) << 3));
    const at = keys + ((<usize>i) << 4);
    store<f64>(at, load<f64>(row + ((<usize>key) << 3)));
    store<f64>(at, sum, 8);
  }
  let a = arenaAlloc((<usize>k) << 2);
  let b = arenaAlloc((<usize>k) << 2);
  for (let i = 0; i < k; i++) store<i32>(a + ((<usize>i) << 2), i);
  for (let lo = 0; lo < k; lo += RUN) {
    const hi = min(lo + RUN, k);
    for (let i = lo + 1; i < hi; i++) {
      const v = load<i32>(a + ((<usize>i) << 2));
      let j = i - 1;
      while (j >= lo) {
        const u = load<i32>(a + ((<usize>j) << 2));
        if (!keyBefore(keys, v, u)) break;
        store<i32>(a + ((<usize>(j + 1)) << 2), u);
        j--;
      }
      store<i32>(a + ((<usize>(j + 1)) << 2), v);
    }
  }
  for (let width = RUN; width < k; width <<= 1) {
    for (let lo = 0; lo < k; lo += width << 1) {
      const mid = min(lo + width, k);
      const hi = min(lo + (width << 1), k);
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) {
        const u = load<i32>(a + ((<usize>i) << 2));
        const v = load<i32>(a + ((<usize>j) << 2));
        if (keyBefore(keys, v, u)) {
          store<i32>(b + ((<usize>o) << 2), v);
          j++;
        } else {
          store<i32>(b + ((<usize>o) << 2), u);
          i++;
        }
        o++;
      }
      if (i < mid) memory.copy(b + ((<usize>o) << 2), a + ((<usize>i) << 2), (<usize>(mid - i)) << 2);
      else if (j < hi) memory.copy(b + ((<usize>o) << 2), a + ((<usize>j) << 2), (<usize>(hi - j)) << 2);
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
}

/** Whether row a sorts before row b by (last objective, sum); equal pairs keep their order. */
@inline
function keyBefore(keys: usize, a: i32, b: i32): bool {
  const ka = keys + ((<usize>a) << 4);
  const kb = keys + ((<usize>b) << 4);
  const x = load<f64>(ka);
  const y = load<f64>(kb);
  return x < y || (x == y && load<f64>(ka, 8) < load<f64>(kb, 8));
}

/** Copies rows `perm[0..k)` of `rows` (`? x d`) into `dst` (`k x d`) in that order. */
export function gatherRows(rows: usize, perm: usize, k: i32, d: i32, dst: usize): void {
  for (let t = 0; t < k; t++) {
    copyRow(rowPtr(dst, t, d), rowPtr(rows, load<i32>(perm + ((<usize>t) << 2)), d), d);
  }
}

/**
 * Copies into `dst` the rows of `rows` (`? x d`), visited in the sorted order `perm` (k indices),
 * that no earlier kept row weakly dominates; returns how many were kept. Duplicates keep their
 * first copy. Thanks to the sort order only earlier rows can dominate, and their last objective
 * is already <=, so only the first d-1 objectives are compared. Kept rows are scanned newest
 * first: neighbours in the sort order are the likeliest dominators.
 */
export function gatherNondominated(rows: usize, perm: usize, k: i32, d: i32, dst: usize): i32 {
  const e = d - 1;
  let kept = 0;
  for (let t = 0; t < k; t++) {
    const row = rowPtr(rows, load<i32>(perm + ((<usize>t) << 2)), d);
    let dominated = false;
    for (let u = kept - 1; u >= 0; u--) {
      const w = rowPtr(dst, u, d);
      let j = 0;
      for (; j + 1 < e; j += 2) {
        const off = (<usize>j) << 3;
        const le = f64x2.le(v128.load(w + off), v128.load(row + off));
        if (!i64x2.all_true(le)) break;
      }
      if (j + 1 >= e) {
        if (j == e || load<f64>(w + ((<usize>j) << 3)) <= load<f64>(row + ((<usize>j) << 3))) {
          dominated = true;
          break;
        }
      }
    }
    if (!dominated) {
      copyRow(rowPtr(dst, kept, d), row, d);
      kept++;
    }
  }
  return kept;
}

/**
 * The limit set of WFG (While, Bradstreet & Barone 2012): each of the first `count` rows of `rows`
 * (`? x d`) replaced by its componentwise maximum with `p`, keeping the first `e` objectives
 * (e <= d), written to `out` (`count x e`). Returns -1 as soon as one row weakly dominates `p` in
 * those objectives, because then `p` adds nothing and the caller can skip it.
 */
export function limitSet(rows: usize, count: i32, d: i32, p: usize, e: i32, out: usize): i32 {
  for (let i = 0; i < count; i++) {
    const q = rowPtr(rows, i, d);
    const o = rowPtr(out, i, e);
    let outside = 0;
    let j = 0;
    for (; j + 1 < e; j += 2) {
      const off = (<usize>j) << 3;
      const qv = v128.load(q + off);
      const pv = v128.load(p + off);
      v128.store(o + off, f64x2.max(qv, pv));
      outside |= i64x2.bitmask(f64x2.gt(qv, pv));
    }
    if (j < e) {
      const off = (<usize>j) << 3;
      const qj = load<f64>(q + off);
      const pj = load<f64>(p + off);
      store<f64>(o + off, max(qj, pj));
      if (qj > pj) outside = 1;
    }
    if (outside == 0) return -1;
  }
  return count;
}

/** Volume of the box between `p` and `ref` in the first `e` objectives. */
@inline
export function boxVolume(p: usize, e: i32, ref: usize): f64 {
  let v = 1.0;
  for (let j = 0; j < e; j++) {
    const off = (<usize>j) << 3;
    v *= load<f64>(ref + off) - load<f64>(p + off);
  }
  return v;
}

/** Hypervolume of two rows `a`, `b` (d objectives) by inclusion-exclusion. */
export function pairVolume(a: usize, b: usize, d: i32, ref: usize): f64 {
  let va = 1.0;
  let vb = 1.0;
  let vab = 1.0;
  for (let j = 0; j < d; j++) {
    const off = (<usize>j) << 3;
    const r = load<f64>(ref + off);
    const x = load<f64>(a + off);
    const y = load<f64>(b + off);
    va *= r - x;
    vb *= r - y;
    vab *= r - max(x, y);
  }
  return va + vb - vab;
}

/**
 * Copies the rows of `points` (`n x m`) that are strictly better than `ref` in every objective to
 * `dst`; returns how many. The others bound no volume.
 */
export function rowsBelowRef(points: usize, n: i32, m: i32, ref: usize, dst: usize): i32 {
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const p = rowPtr(points, i, m);
    let inside = true;
    for (let j = 0; j < m; j++) {
      const off = (<usize>j) << 3;
      if (!(load<f64>(p + off) < load<f64>(ref + off))) {
        inside = false;
        break;
      }
    }
    if (inside) {
      copyRow(rowPtr(dst, kept, m), p, m);
      kept++;
    }
  }
  return kept;
}
