// Exact hypervolume kernel (minimisation): the hypervolume of a point set, the hypervolume
// improvement of many candidates over one front, and the non-dominated scan behind Pareto masks.
// The caller writes its inputs into linear memory (starting at `heapBase()`), passes their
// addresses, and names where scratch space may start; scratch grows the memory on demand and is
// reused by later calls.

import { arenaAlloc, arenaMark, arenaRelease, arenaReset, ensureMemory } from './lib/hv-arena';
import { gatherNondominated, gatherRows, rowsBelowRef, sortedOrder } from './lib/hv-rows';
import { contribution2 } from './lib/hv-sweep';
import { buildFront, frontContribution } from './lib/hv-4d';
import { nondominatedBegin, nondominatedChunk } from './lib/hv-pareto';
import { exclusive, hvSorted } from './lib/hv-wfg';

/** First byte the caller may use for its inputs. */
export function heapBase(): usize {
  return __heap_base;
}

/** Grows linear memory so it covers the first `end` bytes. */
export function reserve(end: usize): void {
  ensureMemory(end);
}

/**
 * Hypervolume of `points` (`n x m` f64) with respect to `ref` (m f64): rows not strictly better
 * than ref in every objective are dropped, the rest sorted by the last objective; for m >= 6 they
 * are also filtered to the non-dominated ones, as WFG needs (for m = 5 WFG drops them itself).
 */
export function hypervolume(points: usize, n: i32, m: i32, ref: usize, scratch: usize): f64 {
  arenaReset(scratch);
  const rows = arenaAlloc((<usize>n * <usize>m) << 3);
  const k = rowsBelowRef(points, n, m, ref, rows);
  if (k == 0) return 0;
  if (m == 1) {
    let best = load<f64>(rows);
    for (let i = 1; i < k; i++) best = min(best, load<f64>(rows + ((<usize>i) << 3)));
    return load<f64>(ref) - best;
  }
  const sorted = arenaAlloc((<usize>k * <usize>m) << 3);
  const mark = arenaMark();
  const perm = sortedOrder(rows, k, m, m - 1);
  let kept = k;
  if (m >= 6) kept = gatherNondominated(rows, perm, k, m, sorted);
  else gatherRows(rows, perm, k, m, sorted);
  arenaRelease(mark);
  return hvSorted(sorted, kept, m, ref);
}

/**
 * For each of the `q` rows of `candidates` (`q x m` f64), HV(front + {c}) - HV(front), written to
 * `out` (q f64). The front (`n x m`) is reduced once to its non-dominated rows inside ref, sorted;
 * each improvement is then the exclusive contribution of c (WFG's box minus limit set), by the
 * cheapest route for m: a binary search for m = 2, one HV4D+ contribution walk over the front's
 * linked list (built once) for m = 3.
 */
export function improvements(front: usize, n: i32, m: i32, ref: usize, candidates: usize, q: i32, out: usize, scratch: usize): void {
  arenaReset(scratch);
  const rows = arenaAlloc((<usize>n * <usize>m) << 3);
  const inside = rowsBelowRef(front, n, m, ref, rows);
  const sorted = arenaAlloc((<usize>inside * <usize>m) << 3);
  const mark = arenaMark();
  const k = inside > 0 ? gatherNondominated(rows, sortedOrder(rows, inside, m, m - 1), inside, m, sorted) : 0;
  arenaRelease(mark);
  const lim = arenaAlloc((<usize>k * <usize>m) << 3);
  const filt = arenaAlloc((<usize>k * <usize>m) << 3);
  if (m == 3) buildFront(sorted, k, 3, ref);
  for (let c = 0; c < q; c++) {
    const p = candidates + ((<usize>c * <usize>m) << 3);
    let inRef = true;
    for (let j = 0; j < m; j++) {
      const off = (<usize>j) << 3;
      if (!(load<f64>(p + off) < load<f64>(ref + off))) inRef = false;
    }
    let gain = 0.0;
    if (inRef) {
      if (m == 1) gain = (k > 0 ? load<f64>(sorted) : load<f64>(ref)) - load<f64>(p);
      else if (m == 2) gain = contribution2(sorted, k, load<f64>(p), load<f64>(p, 8), ref);
      else if (m == 3) gain = frontContribution(p);
      else gain = exclusive(sorted, k, m, p, m, ref, lim, filt);
    }
    store<f64>(out + ((<usize>c) << 3), max(gain, 0.0));
  }
}

/**
 * Starts Pareto verdicts for `n` rows of `m` objectives, ordered by the caller so that dominators
 * come first and identical rows are adjacent; `paretoChunk` then scans them part by part.
 */
export function paretoBegin(n: i32, m: i32, scratch: usize): void {
  arenaReset(scratch);
  nondominatedBegin(n, m);
}

/** Verdicts (1 non-dominated, 0 dominated) for rows `from..to` of `rows` (`n x m` f64) into `keep` (n u8). */
export function paretoChunk(rows: usize, from: i32, to: i32, m: i32, keep: usize): void {
  nondominatedChunk(rows, from, to, m, keep);
}
