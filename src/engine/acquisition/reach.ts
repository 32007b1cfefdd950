import { inverseMillsRatio, normalCdf } from '../normal.js';
import type { Random } from '../random.js';
import type { AcquisitionFunction } from './types.js';

/**
 * Progress toward the reference box before anything is inside it.
 *
 * While no evaluated (feasible) point dominates the reference point r, the hypervolume is 0 and
 * expected hypervolume improvement is flat or nearly so: Monte Carlo EHVI is exactly 0 wherever no
 * draw lands in the box, and the exact two-objective form ranks candidates by how far their
 * posterior reaches into the box, which favours the most uncertain corners. The reach criterion
 * measures how far a point is from the box instead, with the achievement scalarization to the
 * reference point (Wierzbicki 1980):
 *
 *   s(y) = max_j (y_j − r_j) / scale_j
 *
 * with scale_j each objective's observed spread. s(y) ≤ 0 exactly when y weakly dominates r, and
 * s(y) is the distance to the box in the max-norm of the scaled objectives when it is outside;
 * inside, −s(y) is how deep the point lies along the box's diagonal. The acquisition is the
 * expected improvement of s over its best observed value s*: E[(s* − s(Y))^+], Y the posterior at
 * a candidate. With independent Gaussian marginals s(Y) is the maximum of independent normals, whose
 * distribution function is the product F(t) = Π_j Φ((t − μ_j)/σ_j) (μ_j, σ_j scaled the same
 * way), so E[(a − s(Y))^+] = ∫_{−∞}^{a} F(t) dt, a one-dimensional integral computed by
 * Gauss–Legendre quadrature: deterministic, smooth in the posterior, and positive far from s*.
 */

/**
 * Scale of each objective for the scalarization: the span from the best observed value to the
 * worse of the reference value and the worst observed one (1 where that span is 0).
 * Y: `n x m` minimization-space objectives; ref: length m. Returns length m.
 */
export function objectiveSpreads(Y: Float64Array, n: number, m: number, ref: ArrayLike<number>): Float64Array {
  const spread = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let lo = Infinity;
    let hi = ref[j];
    for (let i = 0; i < n; i++) {
      lo = Math.min(lo, Y[i * m + j]);
      hi = Math.max(hi, Y[i * m + j]);
    }
    spread[j] = hi - lo > 0 ? hi - lo : 1;
  }
  return spread;
}

/** s(y) = max_j (y_j − r_j) / scale_j for the row of `values` at `offset` (length m). */
export function achievement(values: ArrayLike<number>, offset: number, ref: ArrayLike<number>, scale: ArrayLike<number>): number {
  let worst = -Infinity;
  for (let j = 0; j < ref.length; j++) worst = Math.max(worst, (values[offset + j] - ref[j]) / scale[j]);
  return worst;
}

/**
 * How many of a batch of q picks take the reach criterion, given how many evaluated feasible points
 * are inside the box: all of them while none is; ⌊q/2⌋ (the later picks) while 1 to `mixedUpTo`
 * are (m by default: too few to span a front in m objectives), so the batch both widens the front
 * and keeps heading into the box; none beyond, where hypervolume improvement alone decides, unless
 * `latestMissed`: the latest iteration put no feasible point inside, so its hypervolume picks,
 * which only count inside the box, all added nothing, and half the batch goes back to the box.
 */
export function reachPicks(q: number, inside: number, m: number, mixedUpTo = m, latestMissed = false): number {
  if (inside === 0) return q;
  if (inside <= mixedUpTo || latestMissed) return Math.floor(q / 2);
  return 0;
}

/**
 * How many points inside the box the global strategy keeps mixing reach picks into its batches
 * for, per objective. Its hypervolume picks search the whole space, and the independent GPs revert
 * far from the data to the data's mean, which can lie inside the box in every objective at once
 * although no point does: with a front of a few points, expected hypervolume improvement then
 * prizes the far corners of the input space, and whole batches go there (DTLZ2 with 8 parameters
 * and 3 objectives: 13 iterations at 1 % of the maximum with m points as the hand-over). The reach
 * picks, searched around the points closest to the box, keep the front growing meanwhile. Trust
 * regions search near their data only and hand over at m.
 */
export const GLOBAL_MIXED_PER_OBJECTIVE = 3;

/** Share of a reach direction's weight spread evenly over the objectives, so none is ignored. */
const DIRECTION_FLOOR = 0.2;

/**
 * The direction of a reach pick, as per-objective multipliers of the scale (length m, mean 1).
 * The achievement scalarization with scale_j · w_j has its level sets' corners on the ray
 * r − t·(scale ∘ w), so w says where in the box a pick aims: along the diagonal (w = 1) when
 * `diagonal`, else along a random direction, w = m·(f/m + (1 − f)·u) with u uniform on the
 * simplex and f = DIRECTION_FLOOR. While nothing is inside, the first ⌈r/2⌉ of a batch's r reach
 * picks take the diagonal, the shortest way in; the others, and every reach pick once a few
 * points are inside, take random directions, so they widen the front across the box instead of
 * digging deeper where it already is. One direction for all sent every reach pick toward the same part
 * of the box: on C2-DTLZ2, whose feasible front is three separate arcs, the diagonal found the
 * middle arc only and in some seeds the end arcs stayed unexplored to the end.
 */
export function reachDirection(diagonal: boolean, m: number, random: Random): Float64Array {
  if (diagonal) return new Float64Array(m).fill(1);
  const u = Float64Array.from({ length: m }, () => -Math.log(1 - random.uniform()));
  const total = u.reduce((a, b) => a + b, 0);
  return u.map((v) => m * (DIRECTION_FLOOR / m + (1 - DIRECTION_FLOOR) * (v / total)));
}

/** 8-point Gauss–Legendre nodes and weights on [−1, 1]. */
const NODES = [
  -0.9602898564975363, -0.7966664774136267, -0.525532409916329, -0.1834346424956498, 0.1834346424956498, 0.525532409916329, 0.7966664774136267,
  0.9602898564975363,
];
const WEIGHTS = [
  0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.362683783378362, 0.362683783378362, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763,
];
/** Panels of the composite rule over the part of the integral where F rises from ~0 to ~1. */
const PANELS = 4;
/** Beyond this many standard deviations a normal's distribution function is 0 or 1 to float64. */
const TAIL_Z = 8.5;

/** Expected improvement of the achievement scalarization to the reference point (see above). */
export class ReachAcquisition implements AcquisitionFunction {
  readonly name = 'reach';
  /** s*: the best observed scalarization */
  readonly best: number;
  /** scratch: the scaled means, then the scaled standard deviations, of one candidate */
  private readonly u: Float64Array;

  /**
   * front: `n x m` minimization-space objectives of the feasible points seen (n ≥ 1); ref: length
   * m; scale: length m, positive (objectiveSpreads).
   */
  constructor(
    front: Float64Array,
    n: number,
    readonly m: number,
    private readonly ref: ArrayLike<number>,
    private readonly scale: ArrayLike<number>,
  ) {
    let best = Infinity;
    for (let i = 0; i < n; i++) best = Math.min(best, achievement(front, i * m, ref, scale));
    this.best = best;
    this.u = new Float64Array(2 * m);
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const { m } = this;
    const out = new Float64Array(q);
    const mu = this.u.subarray(0, m);
    const sigma = this.u.subarray(m, 2 * m);
    for (let i = 0; i < q; i++) {
      for (let j = 0; j < m; j++) {
        mu[j] = (mean[i * m + j] - this.ref[j]) / this.scale[j];
        sigma[j] = Math.max(std[i * m + j] / this.scale[j], 1e-12);
      }
      out[i] = expectedMaxShortfall(this.best, mu, sigma);
    }
    return out;
  }
}

/**
 * E[(a − max_j U_j)^+] for independent U_j ~ N(mu_j, sigma_j²): ∫_{−∞}^{a} Π_j Φ((t − mu_j)/sigma_j) dt.
 * Below lo = max_j (mu_j − TAIL_Z sigma_j) the integrand is below Φ(−TAIL_Z); above
 * hi = max_j (mu_j + TAIL_Z sigma_j) it is 1. The middle is integrated by composite Gauss–Legendre;
 * the lower tail below b = min(a, lo) is F(b)·w(b), w = 1 / Σ_j λ(z_j)/sigma_j the e-folding length of
 * F at b (λ the inverse Mills ratio): F is log-concave, so F(t) ≤ F(b) e^{(t − b)/w} there, and the
 * bound is asymptotically exact in the far tail, where a candidate far from a must still rank.
 */
export function expectedMaxShortfall(a: number, mu: ArrayLike<number>, sigma: ArrayLike<number>): number {
  const m = mu.length;
  let lo = -Infinity;
  let hi = -Infinity;
  for (let j = 0; j < m; j++) {
    lo = Math.max(lo, mu[j] - TAIL_Z * sigma[j]);
    hi = Math.max(hi, mu[j] + TAIL_Z * sigma[j]);
  }
  const cdf = (t: number): number => {
    let p = 1;
    for (let j = 0; j < m; j++) p *= normalCdf((t - mu[j]) / sigma[j]);
    return p;
  };
  const b = Math.min(a, lo);
  let slope = 0;
  for (let j = 0; j < m; j++) slope += inverseMillsRatio((b - mu[j]) / sigma[j]) / sigma[j];
  let total = slope > 0 ? cdf(b) / slope : 0;
  const top = Math.min(a, hi);
  if (top > b) {
    const width = (top - b) / PANELS;
    for (let p = 0; p < PANELS; p++) {
      const centre = b + (p + 0.5) * width;
      for (let k = 0; k < NODES.length; k++) total += 0.5 * width * WEIGHTS[k] * cdf(centre + 0.5 * width * NODES[k]);
    }
  }
  if (a > hi) total += a - hi;
  return total;
}
