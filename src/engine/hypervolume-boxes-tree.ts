/**
 * Sums Π_j max(0, u_j − max(l_j, y_j)) over a fixed set of boxes (l, u) for one point y at a
 * time, visiting only the boxes whose upper corner lies above y in every objective: the others
 * add nothing, and for a Monte Carlo sample near a front they are about 98 % of a decomposition's
 * boxes (measured on spherical fronts at m = 4 to 6). The boxes are ordered as the leaves of a
 * k-d tree over their upper corners (each node split at the median of the objective where its
 * corners spread most), and each node keeps the largest upper corner below it, so a subtree whose
 * largest corner does not exceed y in some objective is skipped whole.
 */

/** Boxes per leaf: small enough to prune well, large enough that the tree costs little to walk. */
const LEAF = 8;

export class BoxTree {
  /** the boxes in leaf order, `count x m` row-major */
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  /** per node: its boxes [start, end), its children (−1 for a leaf) and the largest upper corner (`nodes x m`) */
  private readonly start: Int32Array;
  private readonly end: Int32Array;
  private readonly left: Int32Array;
  private readonly right: Int32Array;
  private readonly top: Float64Array;
  private readonly stack: Int32Array;
  private nodes = 0;

  /** lower, upper: `count x m` row-major corners (lower ones may be −Infinity). */
  constructor(
    readonly m: number,
    readonly count: number,
    lower: Float64Array,
    upper: Float64Array,
  ) {
    const order = Int32Array.from({ length: count }, (_, i) => i);
    // leaves hold more than LEAF / 2 boxes (halves of a node of more than LEAF), so at most 2 count / LEAF of them
    const capacity = 4 * Math.ceil(count / LEAF) + 1;
    this.start = new Int32Array(capacity);
    this.end = new Int32Array(capacity);
    this.left = new Int32Array(capacity);
    this.right = new Int32Array(capacity);
    this.top = new Float64Array(capacity * m);
    let depth = 1;
    this.build(order, upper, 0, count, 1, (d) => (depth = Math.max(depth, d)));
    // a depth-first walk holds at most one pending sibling per level
    this.stack = new Int32Array(depth + 1);
    this.lower = new Float64Array(count * m);
    this.upper = new Float64Array(count * m);
    order.forEach((b, i) => {
      this.lower.set(lower.subarray(b * m, b * m + m), i * m);
      this.upper.set(upper.subarray(b * m, b * m + m), i * m);
    });
  }

  /** Σ over the boxes of Π_j max(0, u_j − max(l_j, y_j)) for `y[at .. at+m)`. */
  sum(y: Float64Array, at: number): number {
    const { m, lower, upper, top, stack, left, right, start, end } = this;
    let total = 0;
    let depth = 0;
    stack[depth++] = 0;
    while (depth > 0) {
      const node = stack[--depth];
      let j = 0;
      for (let o = node * m; j < m; j++) if (!(top[o + j] > y[at + j])) break;
      if (j < m) continue;
      if (left[node] >= 0) {
        stack[depth++] = left[node];
        stack[depth++] = right[node];
        continue;
      }
      for (let o = start[node] * m, stop = end[node] * m; o < stop; o += m) {
        let volume = 1;
        for (j = 0; j < m; j++) {
          const l = lower[o + j];
          const v = y[at + j];
          const side = upper[o + j] - (l > v ? l : v);
          if (!(side > 0)) break;
          volume *= side;
        }
        if (j === m) total += volume;
      }
    }
    return total;
  }

  /** Makes the node for order[from, to) at `depth` and returns its index; reports the deepest level to `reach`. */
  private build(order: Int32Array, upper: Float64Array, from: number, to: number, depth: number, reach: (depth: number) => void): number {
    const { m } = this;
    const node = this.nodes++;
    this.start[node] = from;
    this.end[node] = to;
    const o = node * m;
    this.top.fill(-Infinity, o, o + m);
    const low = new Float64Array(m).fill(Infinity);
    for (let i = from; i < to; i++) {
      for (let j = 0; j < m; j++) {
        const v = upper[order[i] * m + j];
        if (v > this.top[o + j]) this.top[o + j] = v;
        if (v < low[j]) low[j] = v;
      }
    }
    reach(depth);
    if (to - from <= LEAF) {
      this.left[node] = -1;
      this.right[node] = -1;
      return node;
    }
    let axis = 0;
    for (let j = 1; j < m; j++) if (this.top[o + j] - low[j] > this.top[o + axis] - low[axis]) axis = j;
    order.subarray(from, to).sort((a, b) => upper[a * m + axis] - upper[b * m + axis]);
    const mid = (from + to) >> 1;
    this.left[node] = this.build(order, upper, from, mid, depth + 1, reach);
    this.right[node] = this.build(order, upper, mid, to, depth + 1, reach);
    return node;
  }
}
