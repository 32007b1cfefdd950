/**
 * The region a front leaves open, as disjoint boxes kept up to date point by point, and the
 * hypervolume improvement of any point read off them. Minimisation space throughout.
 *
 * Local upper bounds (Klamroth, Lacour & Vanderpooten 2015, "On the representation of the search
 * region in multi-objective optimization"). For a front P strictly below the reference point r,
 * the points below r that no p ∈ P weakly dominates are the union of the open boxes {z < u} over
 * the local upper bounds u ∈ U(P), the maximal points with no front point in their box. Each u has,
 * per objective k, a defining point z^k(u): a front point with z^k_k = u_k and z^k_i < u_i in the
 * other objectives, or the dummy d^k (r_k in objective k, −∞ elsewhere) where no front point
 * bounds u in objective k. With no front, U = {r}, defined by the m dummies.
 *
 * Adding p (KLV 2015, Algorithm 3, without re-filtering): every u with p < u is replaced by its
 * children u^j = (u_1, …, p_j, …, u_m), for each j with p_j > max_{k≠j} z^k_j(u); u^j keeps u's
 * defining points and takes p as its j-th. The other bounds stay as they are, so a point costs a
 * scan of U plus O(m²) per replaced bound, never a rebuild.
 *
 * Disjoint boxes. B(u) = Π_j (l_j(u), u_j) with l_j(u) = max_{k>j} z^k_j(u) (l_m = −∞)
 * partition the open region, one box per local upper bound, non-empty for points in general
 * position (Lacour, Klamroth & Fonseca 2017, "A box decomposition algorithm to compute the
 * hypervolume indicator", partition the dominated region the same way with max_{k<j}). Why:
 * raise an open point z in objective m until a front point (or d^m) blocks it, then in m−1 with
 * objective m held at the value reached, and so on down to objective 1. That ends at one local
 * upper bound u, each z^k(u) being the point that blocked objective k, which lies at or below z in
 * the objectives before k, so z ∈ B(u); and z ∈ B(u) forces that same walk to end at u, so no
 * other box holds z. Hence, for any y,
 *
 *   HVI(y) = HV(P ∪ {y}) − HV(P) = Σ_u Π_j max(0, u_j − max(l_j(u), y_j)),
 *
 * the volume of [y, r] inside the open region: exactly 0 for y weakly dominated by P or not below
 * r, since a box meeting [y, r] in a null set has a side of length ≤ 0.
 *
 * Ties. The update's rules assume no two points share a coordinate. Comparing a coordinate of a
 * newer point as smaller than an equal one of an older point makes that so, without moving any
 * value (a symbolic perturbation): then p < u reads p_j ≤ u_j, and p_j > z^k_j reads as written.
 * A point weakly dominated by an accepted one is skipped (it adds no volume), so repeated rows are
 * harmless, and a point weakly dominating older ones replaces them. Ties can leave boxes of zero
 * width; they add nothing to any improvement.
 *
 * Sizes and costs, for n front points in m objectives: |U| = n + 1 at m = 2, 2n + 1 at m = 3
 * (points in general position), and O(n^⌊m/2⌋) in general (KLV 2015); measured counts on
 * spherical fronts are in docs/architecture.md ("Numerics"). The constructor inserts the front in
 * ascending order of its last objective, so a bound whose u_m lies below the next point's can never
 * be replaced again and leaves the scan (as in LKF 2017): building costs about n times the bounds
 * of the (m−1)-objective projection, times m. `add` scans every bound: O(|U| m + |A| m²) for
 * the |A| bounds it replaces. An improvement costs O(|U| m).
 */
import { checkHypervolumeInput } from './hypervolume.js';
import { BoxTree } from './hypervolume-boxes-tree.js';

export class NondominatedBoxes {
  readonly m: number;
  readonly ref: Float64Array;
  /** the m dummies d^k, then every accepted front point: `rows x m` */
  private points: Float64Array;
  private rows = 0;
  /** per local upper bound u: u itself (its box's upper corner), the box's lower corner, and the row in `points` of each z^k(u): `size x m` each */
  private upper: Float64Array;
  private lower: Float64Array;
  private defining: Int32Array;
  private size = 0;
  private stopped = false;
  private changes = 0;
  /** the boxes indexed for improvements, built on first use after a change */
  private index: BoxTree | null = null;
  /** scratch for one insertion: the bounds it replaces and their children (`children x m` each) */
  private replaced = new Int32Array(16);
  private childUpper = new Float64Array(16);
  private childLower = new Float64Array(16);
  private childDefining = new Int32Array(16);

  /**
   * front: `n x m` row-major minimisation-space objectives (rows not strictly below `ref` in every
   * objective, and rows weakly dominated by another, add nothing and are left out); ref: length m,
   * finite. NaN and −Infinity coordinates are refused; m ≥ 1. `most`: the building stops as soon
   * as there are more boxes than this, leaving `complete` false (a caller that can only afford so
   * many boxes learns it without paying for the rest).
   */
  constructor(front: Float64Array, n: number, m: number, ref: ArrayLike<number>, most = Infinity) {
    checkHypervolumeInput('front points', front, n, m, ref);
    this.m = m;
    this.ref = Float64Array.from({ length: m }, (_, j) => ref[j]);
    this.points = new Float64Array((m + n) * m);
    for (let k = 0; k < m; k++) {
      this.points.fill(-Infinity, k * m, k * m + m);
      this.points[k * m + k] = this.ref[k];
    }
    this.rows = m;
    this.upper = new Float64Array(Math.max(4, 2 * n + 1) * m);
    this.lower = new Float64Array(this.upper.length);
    this.defining = new Int32Array(this.upper.length);
    this.upper.set(this.ref);
    this.lower.fill(-Infinity, 0, m);
    for (let k = 0; k < m; k++) this.defining[k] = k;
    this.size = 1;

    const order: number[] = [];
    for (let i = 0; i < n; i++) if (this.below(front, i * m)) order.push(i);
    const last = m - 1;
    order.sort((a, b) => front[a * m + last] - front[b * m + last] || a - b);
    let frozen = 0;
    for (const i of order) {
      if (this.weaklyDominated(front, i * m)) continue;
      const row = this.accept(front, i * m);
      frozen = this.freezeBelow(frozen, front[i * m + last]);
      this.insert(row, frozen);
      if (this.size > most) {
        this.stopped = true;
        break;
      }
    }
  }

  /** False when the constructor stopped at its `most` boxes: then the boxes do not describe the front, and nothing may be read from them. */
  get complete(): boolean {
    return !this.stopped;
  }

  /** Number of boxes (local upper bounds). */
  get count(): number {
    return this.size;
  }

  /** Increases with every `add` that changed the boxes, so a copy of them (on a device) knows when it is stale. */
  get revision(): number {
    return this.changes;
  }

  /**
   * The disjoint boxes (l, u), copied: `lower` and `upper` are `count x m` row-major. A lower
   * corner may be −Infinity; upper corners are finite, at most ref. Their union is the region
   * below ref that no front point weakly dominates.
   */
  boxes(): { count: number; lower: Float64Array; upper: Float64Array } {
    const n = this.size * this.m;
    return { count: this.size, lower: this.lower.slice(0, n), upper: this.upper.slice(0, n) };
  }

  /**
   * Where each box's corners come from: the front points and dummies (`rows x m`, copied), and per
   * box and objective j (`count x m`) the row whose j-th coordinate is u_j, and the row whose j-th
   * coordinate is l_j, or −1 where l_j = −∞. Every corner coordinate is one of the rows' values, so
   * a function of one objective's coordinate can be evaluated once per row and read off per box.
   */
  cornerRows(): { rows: number; points: Float64Array; upperRow: Int32Array; lowerRow: Int32Array } {
    const { m, points, defining } = this;
    const upperRow = this.defining.slice(0, this.size * m);
    const lowerRow = new Int32Array(this.size * m).fill(-1);
    for (let o = 0; o < this.size * m; o += m) {
      for (let j = 0; j < m; j++) {
        let best = -Infinity;
        for (let k = j + 1; k < m; k++) {
          const row = defining[o + k];
          if (points[row * m + j] > best) {
            best = points[row * m + j];
            lowerRow[o + j] = row;
          }
        }
      }
    }
    return { rows: this.rows, points: points.slice(0, this.rows * m), upperRow, lowerRow };
  }

  /**
   * Adds `point` (length m) to the front and updates the boxes. Returns false, changing nothing,
   * when it is not strictly below ref in every objective or an accepted point weakly dominates it.
   */
  add(point: ArrayLike<number>): boolean {
    checkHypervolumeInput('the added point', point, 1, this.m, this.ref);
    if (!this.below(point, 0) || this.weaklyDominated(point, 0)) return false;
    this.insert(this.accept(point, 0), 0);
    this.changes++;
    this.index = null;
    return true;
  }

  /** HV(front ∪ {y}) − HV(front) for `y` (length m, no NaN or −Infinity), in float64; ≥ 0. */
  improvement(y: ArrayLike<number>): number {
    checkHypervolumeInput('candidate', y, 1, this.m, this.ref);
    const point = Float64Array.from({ length: this.m }, (_, j) => y[j]);
    return this.improvementAt(point, 0);
  }

  /** `improvement` of each of the `count` rows of `Y` (`count x m` row-major). */
  improvements(Y: Float64Array, count: number): Float64Array {
    checkHypervolumeInput('candidates', Y, count, this.m, this.ref);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = this.improvementAt(Y, i * this.m);
    return out;
  }

  private improvementAt(y: Float64Array, at: number): number {
    this.index ??= new BoxTree(this.m, this.size, this.lower, this.upper);
    return this.index.sum(y, at);
  }

  private below(p: ArrayLike<number>, at: number): boolean {
    for (let j = 0; j < this.m; j++) if (!(p[at + j] < this.ref[j])) return false;
    return true;
  }

  private weaklyDominated(p: ArrayLike<number>, at: number): boolean {
    const { m, points } = this;
    for (let q = m * m; q < this.rows * m; q += m) {
      let all = true;
      for (let j = 0; j < m && all; j++) all = points[q + j] <= p[at + j];
      if (all) return true;
    }
    return false;
  }

  /** Stores p as a front point; returns its row. */
  private accept(p: ArrayLike<number>, at: number): number {
    const { m } = this;
    if ((this.rows + 1) * m > this.points.length) this.points = grown(this.points, (this.rows + 1) * m);
    for (let j = 0; j < m; j++) this.points[this.rows * m + j] = p[at + j];
    return this.rows++;
  }

  /**
   * Moves the bounds in [from, size) whose last coordinate lies below `level` to the front of that
   * range and returns where the rest begins: points inserted in ascending last objective can
   * never replace them (p < u needs p_m ≤ u_m).
   */
  private freezeBelow(from: number, level: number): number {
    const { m } = this;
    let frozen = from;
    for (let b = from; b < this.size; b++) {
      if (this.upper[b * m + m - 1] < level) {
        if (b !== frozen) this.swap(b, frozen);
        frozen++;
      }
    }
    return frozen;
  }

  /** Replaces every bound in [from, size) that the point in `row` lies below by its valid children. */
  private insert(row: number, from: number): void {
    const { m, points, upper } = this;
    const p = row * m;
    let replacedCount = 0;
    for (let b = from, o = from * m; b < this.size; b++, o += m) {
      let inside = true;
      for (let j = 0; j < m && inside; j++) inside = points[p + j] <= upper[o + j];
      if (!inside) continue;
      if (replacedCount === this.replaced.length) this.replaced = grown(this.replaced, replacedCount + 1);
      this.replaced[replacedCount++] = b;
    }
    let children = 0;
    for (let r = 0; r < replacedCount; r++) children = this.addChildren(this.replaced[r], row, children);
    // children take the replaced bounds' places, then the end of the list; surplus places are filled from the end
    const reused = Math.min(children, replacedCount);
    for (let c = 0; c < reused; c++) this.setBound(this.replaced[c], c);
    for (let c = reused; c < children; c++) {
      if ((this.size + 1) * m > this.upper.length) this.growBounds(this.size + 1);
      this.setBound(this.size++, c);
    }
    for (let r = replacedCount - 1; r >= reused; r--) {
      const last = --this.size;
      if (this.replaced[r] !== last) this.copyBound(last, this.replaced[r]);
    }
  }

  /** Appends to the scratch the children of bound b when the point in `row` lies below it; returns the new child count. */
  private addChildren(b: number, row: number, children: number): number {
    const { m, points, upper, lower, defining } = this;
    const o = b * m;
    const p = row * m;
    for (let j = 0; j < m; j++) {
      let bound = -Infinity;
      for (let k = 0; k < m; k++) if (k !== j) bound = Math.max(bound, points[defining[o + k] * m + j]);
      if (!(points[p + j] > bound)) continue;
      const c = children * m;
      if (c + m > this.childUpper.length) {
        this.childUpper = grown(this.childUpper, c + m);
        this.childLower = grown(this.childLower, c + m);
        this.childDefining = grown(this.childDefining, c + m);
      }
      for (let k = 0; k < m; k++) {
        this.childUpper[c + k] = upper[o + k];
        this.childDefining[c + k] = defining[o + k];
      }
      this.childUpper[c + j] = points[p + j];
      this.childDefining[c + j] = row;
      // l_i = max over k > i of z^k_i: unchanged from the parent for i ≥ j, where k never reaches j
      for (let i = 0; i < m; i++) {
        if (i >= j) {
          this.childLower[c + i] = lower[o + i];
          continue;
        }
        let l = -Infinity;
        for (let k = i + 1; k < m; k++) l = Math.max(l, points[this.childDefining[c + k] * m + i]);
        this.childLower[c + i] = l;
      }
      children++;
    }
    return children;
  }

  private setBound(b: number, child: number): void {
    const { m } = this;
    this.upper.set(this.childUpper.subarray(child * m, child * m + m), b * m);
    this.lower.set(this.childLower.subarray(child * m, child * m + m), b * m);
    this.defining.set(this.childDefining.subarray(child * m, child * m + m), b * m);
  }

  private copyBound(from: number, to: number): void {
    const { m } = this;
    this.upper.copyWithin(to * m, from * m, from * m + m);
    this.lower.copyWithin(to * m, from * m, from * m + m);
    this.defining.copyWithin(to * m, from * m, from * m + m);
  }

  private swap(a: number, b: number): void {
    const { m, upper, lower, defining } = this;
    for (let j = 0; j < m; j++) {
      const [x, y] = [a * m + j, b * m + j];
      [upper[x], upper[y]] = [upper[y], upper[x]];
      [lower[x], lower[y]] = [lower[y], lower[x]];
      [defining[x], defining[y]] = [defining[y], defining[x]];
    }
  }

  private growBounds(bounds: number): void {
    const need = bounds * this.m;
    this.upper = grown(this.upper, need);
    this.lower = grown(this.lower, need);
    this.defining = grown(this.defining, need);
  }
}

/** A copy of `a` with room for at least `need` values (doubling, so appends cost O(1) amortised). */
function grown<T extends Float64Array | Int32Array>(a: T, need: number): T {
  const next = new (a.constructor as new (length: number) => T)(Math.max(need, 2 * a.length));
  next.set(a);
  return next;
}
