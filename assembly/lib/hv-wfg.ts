// Hypervolume in any number of objectives: WFG (While, Bradstreet & Barone 2012, "A fast way of
// calculating exact hypervolumes", IEEE TEC 16(1)) on top of the 2-, 3- and 4-D sweeps.
//
// With the rows sorted by the last objective ascending, slicing along it and summing by parts
// gives HV = sum_i (ref_d - p_i[d]) * excl_{d-1}(p_i, {p_0..p_{i-1}}), and each exclusive
// contribution is box(p_i) - HV_{d-1}(limit set of p_i), as in WFG. Each limit set is sorted by its
// own last objective and filtered to its non-dominated rows, which is both WFG's pruning and the
// input order the next level needs. Five objectives get their own loop (`wfg5`), because their
// limit sets go to HV4D+, which tolerates dominated rows: limiting preserves the order of the
// rows by their fourth objective, so that order is kept incrementally instead of sorted once per
// point, and instead of a full filter, one linear pass drops the limited rows that the few rows
// worse than p in a single objective dominate.

import { arenaAlloc, arenaMark, arenaRelease } from './hv-arena';
import { boxVolume, gatherNondominated, limitSet, pairVolume, sortedOrder } from './hv-rows';
import { limitOrdered4 } from './hv-limit4';
import { hv2, hv3 } from './hv-sweep';
import { hv4 } from './hv-4d';

/**
 * Hypervolume of `rows` (`k x d`, every row strictly better than `ref`) sorted in `sortedOrder`
 * order (ascending last objective). Dominated rows are allowed for d <= 5; for d >= 6 they are
 * allowed but cost time, so callers filter them first.
 */
export function hvSorted(rows: usize, k: i32, d: i32, ref: usize): f64 {
  if (k == 0) return 0;
  if (k == 1) return boxVolume(rows, d, ref);
  if (k == 2) return pairVolume(rows, rows + ((<usize>d) << 3), d, ref);
  if (d == 2) return hv2(rows, k, d, ref);
  if (d == 3) return hv3(rows, k, d, ref);
  if (d == 4) return hv4(rows, k, d, ref);
  if (d == 5) return wfg5(rows, k, ref);
  return wfg(rows, k, d, ref);
}

/**
 * Exclusive hypervolume of `p` (its first `e` objectives) with respect to the first `count` rows
 * of `rows` (`? x d`, d >= e, sorted by their last objective): box(p) - HV_e(limit set). 0 when a
 * row weakly dominates p. `lim` and `filt` hold `count x e` f64 each.
 */
export function exclusive(rows: usize, count: i32, d: i32, p: usize, e: i32, ref: usize, lim: usize, filt: usize): f64 {
  const box = boxVolume(p, e, ref);
  if (count == 0) return box;
  const n = limitSet(rows, count, d, p, e, lim);
  if (n < 0) return 0;
  if (e == 4 && d == 4) return box - hv4(lim, n, 4, ref);
  const mark = arenaMark();
  const kept = gatherNondominated(lim, sortedOrder(lim, n, e, e - 1), n, e, filt);
  arenaRelease(mark);
  return box - hvSorted(filt, kept, e, ref);
}

/** WFG for `rows` (`k x d`, d >= 6, non-dominated, sorted by the last objective). */
function wfg(rows: usize, k: i32, d: i32, ref: usize): f64 {
  const e = d - 1;
  const mark = arenaMark();
  const lim = arenaAlloc((<usize>k * <usize>e) << 3);
  const filt = arenaAlloc((<usize>k * <usize>e) << 3);
  const rLast = load<f64>(ref + ((<usize>e) << 3));
  let volume = 0.0;
  for (let i = 0; i < k; i++) {
    const p = rows + ((<usize>i * <usize>d) << 3);
    volume += (rLast - load<f64>(p + ((<usize>e) << 3))) * exclusive(rows, i, d, p, e, ref, lim, filt);
  }
  arenaRelease(mark);
  return volume;
}

/**
 * WFG for `rows` (`k x 5`, sorted by the last objective, dominated rows allowed). The limit sets
 * need no sort or filter of their own (see `limitOrdered4`), and a row found weakly dominated
 * while building its own limit set (its exclusive volume is 0) is left out of all later ones,
 * since the earlier row dominating it covers whatever its limited copy would; so no separate
 * non-dominated filter runs first, and the rows kept are listed in row order and, by insertion,
 * in order of their fourth objective.
 */
function wfg5(rows: usize, k: i32, ref: usize): f64 {
  const mark = arenaMark();
  const lim = arenaAlloc((<usize>k) << 5);
  const order = sortedOrder(rows, k, 5, 3);
  const rank = arenaAlloc((<usize>k) << 2);
  for (let t = 0; t < k; t++) store<i32>(rank + ((<usize>load<i32>(order + ((<usize>t) << 2))) << 2), t);
  const alive = arenaAlloc((<usize>k) << 2);
  const byFourth = arenaAlloc((<usize>k) << 2);
  const r4 = load<f64>(ref, 32);
  let count = 0;
  let volume = 0.0;
  for (let i = 0; i < k; i++) {
    const p = rows + <usize>i * 40;
    const n = limitOrdered4(rows, 5, alive, byFourth, count, p, lim);
    if (n < 0) continue;
    volume += (r4 - load<f64>(p, 32)) * (boxVolume(p, 4, ref) - hvSorted(lim, n, 4, ref));
    store<i32>(alive + ((<usize>count) << 2), i);
    const r = load<i32>(rank + ((<usize>i) << 2));
    let t = count;
    while (t > 0) {
      const u = load<i32>(byFourth + ((<usize>(t - 1)) << 2));
      if (load<i32>(rank + ((<usize>u) << 2)) < r) break;
      store<i32>(byFourth + ((<usize>t) << 2), u);
      t--;
    }
    store<i32>(byFourth + ((<usize>t) << 2), i);
    count++;
  }
  arenaRelease(mark);
  return volume;
}
