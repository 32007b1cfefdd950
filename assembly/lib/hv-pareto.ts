// Non-dominated filtering for the Pareto mask in four or more objectives: the O(n f m) scan of
// each row against the non-dominated rows found before it, on rows the caller has already
// ordered so that every dominator precedes the rows it dominates and identical rows are adjacent.
// Kept rows are stored with an even stride (a zero pad column when m is odd) so every test is whole
// f64x2 lanes, and four kept rows are tested per branch: on a large front almost every test fails
// at a random lane, and branching on each would be mispredicted half the time.

import { arenaAlloc } from './hv-arena';

let kept: usize = 0;
let row: usize = 0;
let stride: usize = 0;
let count = 0;

/** Starts a scan of up to `n` rows of `m` objectives; scratch comes from the arena. */
export function nondominatedBegin(n: i32, m: i32): void {
  stride = (<usize>((m + 1) & ~1)) << 3;
  kept = arenaAlloc(<usize>(n + 3) * stride);
  row = arenaAlloc(stride);
  store<f64>(row + stride - 8, 0);
  // The three rows past the last kept one stay +inf, which dominates nothing, so the 4-wide test
  // needs no tail case.
  fillInfinity(kept, 3 * stride);
  count = 0;
}

/**
 * Continues the scan with rows `from..to` of `rows` (`? x m`, in the caller's order): writes 1 to
 * `keep[t]` (u8) when row t is non-dominated, else 0. Identical rows share one verdict. The caller
 * feeds the rows in chunks so that V8 can switch to optimised code between calls.
 */
export function nondominatedChunk(rows: usize, from: i32, to: i32, m: i32, keep: usize): void {
  const bytes = (<usize>m) << 3;
  for (let t = from; t < to; t++) {
    const src = rows + <usize>t * bytes;
    if (t > 0 && sameRow(src, src - bytes, m)) {
      store<u8>(keep + <usize>t, load<u8>(keep + <usize>(t - 1)));
      continue;
    }
    memory.copy(row, src, bytes);
    const dominated = anyDominates(kept, count, stride, row);
    store<u8>(keep + <usize>t, dominated ? 0 : 1);
    if (!dominated) {
      memory.copy(kept + <usize>count * stride, row, stride);
      count++;
      fillInfinity(kept + <usize>(count + 2) * stride, stride);
    }
  }
}

/** Whether one of the first `count` rows of `kept` (stride bytes apart) is <= `row` everywhere. */
function anyDominates(kept: usize, count: i32, stride: usize, row: usize): bool {
  for (let u = 0; u < count; u += 4) {
    const w = kept + <usize>u * stride;
    let a = i64x2.splat(-1);
    let b = i64x2.splat(-1);
    let c = i64x2.splat(-1);
    let d = i64x2.splat(-1);
    for (let j: usize = 0; j < stride; j += 16) {
      const r = v128.load(row + j);
      a = v128.and(a, f64x2.le(v128.load(w + j), r));
      b = v128.and(b, f64x2.le(v128.load(w + stride + j), r));
      c = v128.and(c, f64x2.le(v128.load(w + 2 * stride + j), r));
      d = v128.and(d, f64x2.le(v128.load(w + 3 * stride + j), r));
    }
    if (i64x2.all_true(a) | i64x2.all_true(b) | i64x2.all_true(c) | i64x2.all_true(d)) return true;
  }
  return false;
}

function fillInfinity(at: usize, bytes: usize): void {
  for (let j: usize = 0; j < bytes; j += 8) store<f64>(at + j, Infinity);
}

@inline
function sameRow(a: usize, b: usize, m: i32): bool {
  for (let j = 0; j < m; j++) {
    const off = (<usize>j) << 3;
    if (load<f64>(a + off) != load<f64>(b + off)) return false;
  }
  return true;
}
