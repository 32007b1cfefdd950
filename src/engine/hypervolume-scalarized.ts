import { paretoIndices } from './pareto.js';
import type { Random } from './random.js';

/**
 * Up to this many objectives each sample's improvement is exact from the WFG kernel (its HV4D+
 * walk at m = 3) wherever improvements are taken; beyond, Monte Carlo EHVI takes the box
 * decomposition while it is affordable (acquisition/front-improvement.ts) and this estimate past
 * it, and trust-region selection takes the estimate.
 */
export const EXACT_IMPROVEMENT_MAX_OBJECTIVES = 3;

/**
 * Hypervolume improvement estimated by random scalarizations (Golovin & Zhang 2020, "Random
 * hypervolume scalarizations for provable multi-objective black box optimization"), for many
 * objectives, where exact improvements cost too much per Monte Carlo sample (WFG's exclusive
 * contribution of one point grows with the front size to a power that rises with m; at m = 5 and
 * 100 front points it is near 100 µs, at m = 6 near 1 ms).
 *
 * For a direction λ on the positive unit sphere, s_λ(y) = min_j (r_j − y_j) / λ_j (0 when y is
 * not strictly below the reference point r) is how far the ray from r towards −λ stays in the
 * box that y dominates; and HV(A) = c_m E_λ[max_{a ∈ A} s_λ(a)^m] with
 * c_m = π^{m/2} / (2^m Γ(m/2 + 1)), the hypervolume being the volume of the union of those
 * boxes in polar coordinates around r. Hence, with S_λ the front's largest s_λ,
 * HV(front ∪ {y}) − HV(front) = c_m E_λ[(s_λ(y)^m − S_λ^m)^+], which this class averages over a
 * fixed set of directions: an unbiased estimate whose cost per point is O(L m) whatever the front
 * size, and which, like the exact improvement, is 0 for a dominated point, continuous in y, and
 * only shrinks as points join the front (so lazy greedy selection stays valid).
 */
export class ScalarizedImprovement {
  /** `directions x m`: 1 / λ_j */
  private readonly inverse: Float64Array;
  /** per direction: the front's largest s_λ */
  private readonly best: Float64Array;
  /** c_m / L times the product of the objectives' scales */
  private readonly scale: number;

  /**
   * front: `n x m` minimisation-space objectives (dominated rows and rows not below ref add
   * nothing); ref: length m, finite; directions: L, drawn with `random`.
   */
  constructor(
    front: Float64Array,
    n: number,
    readonly m: number,
    private readonly ref: ArrayLike<number>,
    readonly directions: number,
    random: Random,
  ) {
    if (!Number.isInteger(m) || m < 1) throw new Error(`scalarized hypervolume: the number of objectives must be a positive integer, got ${m}.`);
    if (ref.length !== m) throw new Error(`scalarized hypervolume: the reference point has ${ref.length} values but there are ${m} objectives.`);
    for (let j = 0; j < m; j++) {
      if (!Number.isFinite(ref[j])) throw new Error(`scalarized hypervolume: reference point value ${j} is ${ref[j]}; it must be finite.`);
    }
    // Each objective is measured in units of its span from the front's best value to ref (1 with
    // no front), which leaves every improvement's ranking as it is (a volume only scales by the
    // product of the units) but keeps the directions from all ending on the objective of the
    // smallest unit: RE61's objectives span 3 to 8,000,000, where raw units left the estimate
    // little better than random search.
    const units = objectiveUnits(front, n, m, ref);
    this.inverse = new Float64Array(directions * m);
    for (let l = 0; l < directions; l++) {
      // |z| / ‖z‖ for standard normal z is uniform on the positive unit sphere
      let norm = 0;
      for (let j = 0; j < m; j++) {
        const z = Math.abs(random.normal()) + 1e-300;
        this.inverse[l * m + j] = z;
        norm += z * z;
      }
      norm = Math.sqrt(norm);
      for (let j = 0; j < m; j++) this.inverse[l * m + j] = norm / (this.inverse[l * m + j] * units[j]);
    }
    this.best = new Float64Array(directions);
    for (const i of paretoIndices(front, n, m)) this.add(front, i * m);
    this.scale = (unitBallOrthant(m) * units.reduce((a, b) => a * b, 1)) / directions;
  }

  /** Adds the point `p[at .. at+m)` to the front. */
  add(p: ArrayLike<number>, at = 0): void {
    for (let l = 0; l < this.directions; l++) {
      const s = this.reach(p, at, l);
      if (s > this.best[l]) this.best[l] = s;
    }
  }

  /**
   * Estimated HV(front ∪ {y}) − HV(front) for `y[at .. at+m)`; ≥ 0. By default over every
   * direction; `first` and `count` take `count` consecutive directions from `first` (cyclically)
   * instead, still unbiased, so Monte Carlo samples can share the directions out between them.
   */
  improvement(y: ArrayLike<number>, at = 0, first = 0, count = this.directions): number {
    const { m, best, inverse, ref, directions } = this;
    let total = 0;
    for (let k = 0, l = first % directions; k < count; k++, l = l + 1 === directions ? 0 : l + 1) {
      const floor = best[l];
      let s = Infinity;
      const o = l * m;
      for (let j = 0; j < m && s > floor; j++) {
        const v = (ref[j] - y[at + j]) * inverse[o + j];
        if (v < s) s = v;
      }
      if (!(s > floor)) continue;
      let sm = s;
      let fm = floor;
      for (let j = 1; j < m; j++) {
        sm *= s;
        fm *= floor;
      }
      total += sm - fm;
    }
    return (total * this.scale * directions) / count;
  }

  /** `improvement` of each of the q rows of `Y` (`q x m` row-major). */
  improvements(Y: Float64Array, q: number): Float64Array {
    const out = new Float64Array(q);
    for (let i = 0; i < q; i++) out[i] = this.improvement(Y, i * this.m);
    return out;
  }

  /** s_λ of `p[at..]` for direction l: 0 unless p is strictly below ref in every objective. */
  private reach(p: ArrayLike<number>, at: number, l: number): number {
    let s = Infinity;
    for (let j = 0; j < this.m; j++) s = Math.min(s, (this.ref[j] - p[at + j]) * this.inverse[l * this.m + j]);
    return s > 0 ? s : 0;
  }
}

/** Per objective, ref minus the lowest value among the front's rows below ref in every objective; 1 where there is none. */
function objectiveUnits(front: Float64Array, n: number, m: number, ref: ArrayLike<number>): Float64Array {
  const best = new Float64Array(m).fill(Infinity);
  for (let i = 0; i < n; i++) {
    let inside = true;
    for (let j = 0; j < m; j++) if (!(front[i * m + j] < ref[j])) inside = false;
    if (inside) for (let j = 0; j < m; j++) best[j] = Math.min(best[j], front[i * m + j]);
  }
  return best.map((v, j) => (Number.isFinite(v) && ref[j] - v > 0 ? ref[j] - v : 1));
}

/** c_m = π^{m/2} / (2^m Γ(m/2 + 1)): the volume of the unit ball's positive orthant in m dimensions. */
export function unitBallOrthant(m: number): number {
  // Γ(m/2 + 1) by its recurrence from Γ(1) = 1 or Γ(1/2) = √π
  let gamma = m % 2 === 0 ? 1 : Math.sqrt(Math.PI) / 2;
  for (let x = m % 2 === 0 ? 2 : 2.5; x <= m / 2 + 1 + 1e-9; x++) gamma *= x - 1;
  return Math.PI ** (m / 2) / (2 ** m * gamma);
}
