// The 4-objective limit sets of WFG in 5-D (While, Bradstreet & Barone 2012, "A fast way of
// calculating exact hypervolumes", IEEE TEC 16(1)), pruned cheaply before HV4D+ sees them.
//
// A row q limited by p becomes max(q, p): p with the coordinates where q is worse raised to q's.
// A row worse than p in one objective j alone limits to p with only coordinate j raised, so the
// lowest such row weakly dominates every limited row whose coordinate j is at least as high. A
// first pass finds these (at most four) rows, the second drops the limited rows they dominate.
// HV4D+ tolerates dominated rows, so pruning only pays where it is this cheap: a general
// dominance filter, or one by the rows worse than p in two objectives, cost more than they saved
// when measured. Each row pruned here spares HV4D+ a list walk.

/** Per objective j: the lowest coordinate j among rows worse than p only in j, and that row. */
const AXIS_LOW = memory.data(32, 16);
const AXIS_ROW = memory.data(16, 16);

/**
 * The 4-objective limit set by `p` of the `count` rows of `rows` (`? x d`, d >= 4) whose indices
 * (i32) `alive` lists in row order and `byFourth` in ascending fourth objective, written to `out`
 * in the latter order (`? x 4`), pruned as above; returns how many rows were written, or -1 when
 * one of the rows weakly dominates `p` (the newest rows are tried first, as the likeliest).
 */
export function limitOrdered4(rows: usize, d: i32, alive: usize, byFourth: usize, count: i32, p: usize, out: usize): i32 {
  const p01 = v128.load(p);
  const p23 = v128.load(p, 16);
  v128.store(AXIS_LOW, f64x2.splat(Infinity));
  v128.store(AXIS_LOW, f64x2.splat(Infinity), 16);
  v128.store(AXIS_ROW, i32x4.splat(-1));
  for (let u = count - 1; u >= 0; u--) {
    const i = load<i32>(alive + ((<usize>u) << 2));
    const q = rows + ((<usize>i * <usize>d) << 3);
    const worse = i64x2.bitmask(f64x2.gt(v128.load(q), p01)) | (i64x2.bitmask(f64x2.gt(v128.load(q, 16), p23)) << 2);
    if (worse == 0) return -1;
    if (popcnt(worse) != 1) continue;
    const j = <usize>ctz(worse);
    const qj = load<f64>(q + (j << 3));
    if (qj < load<f64>(AXIS_LOW + (j << 3))) {
      store<f64>(AXIS_LOW + (j << 3), qj);
      store<i32>(AXIS_ROW + (j << 2), i);
    }
  }
  const m01 = v128.load(AXIS_LOW);
  const m23 = v128.load(AXIS_LOW, 16);
  let o = out;
  for (let t = 0; t < count; t++) {
    const i = load<i32>(byFourth + ((<usize>t) << 2));
    const q = rows + ((<usize>i * <usize>d) << 3);
    const l01 = f64x2.max(v128.load(q), p01);
    const l23 = f64x2.max(v128.load(q, 16), p23);
    // At or above the lowest coordinate j in objective j alone, and not that row itself: dominated.
    const high = i64x2.bitmask(f64x2.ge(l01, m01)) | (i64x2.bitmask(f64x2.ge(l23, m23)) << 2);
    if (high != 0 && (popcnt(high) != 1 || load<i32>(AXIS_ROW + ((<usize>ctz(high)) << 2)) != i)) continue;
    v128.store(o, l01);
    v128.store(o, l23, 16);
    o += 32;
  }
  return <i32>((o - out) >> 5);
}
