/**
 * Expected hypervolume improvement E[HVI(Y)] in closed form from a box decomposition
 * (hypervolume-boxes.ts), for Y with independent normal objectives Y_j ~ N(μ_j, σ_j²): the
 * expectation of the exact improvement, which Monte Carlo EHVI's sample mean converges to.
 *
 * Over the disjoint boxes (l, u) of the region the front leaves open,
 * HVI(y) = Σ_boxes Π_j (u_j − max(l_j, y_j))^+, and for l_j < u_j each factor is
 * (u_j − y_j)^+ − (l_j − y_j)^+ (both y_j ≤ l_j, between, and ≥ u_j check out). The objectives
 * being independent, the expectation of a box's product is the product of its factors'
 * expectations (Yang, Emmerich, Deutz & Bäck 2019 use the same cells for their exact EHVI), and
 * with g_j(t) = E[(t − Y_j)^+] = σ_j h((t − μ_j) / σ_j), h(z) = φ(z) + z Φ(z):
 *
 *   EHVI(μ, σ) = Σ_boxes Π_j (g_j(u_j) − g_j(l_j)).
 *
 * Every corner coordinate is some front point's (or ref's) coordinate in that objective
 * (`cornerRows`), so g_j is evaluated once per front point and objective and each box costs m
 * look-ups and products: a candidate costs O(n m) normal functions plus O(boxes · m), where 128
 * Monte Carlo samples cost 128 walks of the boxes, with no sampling error.
 */
import type { NondominatedBoxes } from './hypervolume-boxes.js';

/** Beyond this many standard deviations h(−z) < 1e-24 (taken as 0) and h(z) = z to rounding. */
const FAR = 10;

/**
 * h(z) = E[(Z + z)^+] = φ(z) + z Φ(z), fast, as it is called n · m times per candidate: from
 * h(z) = z + h(−z), with h(−x) = φ(x) − x Φ(−x) for x ≥ 0 and Φ(−x) = erfc(x/√2)/2 by Numerical
 * Recipes' Chebyshev fit (relative error below 1.2e-7; the cancellation of the two terms makes
 * that about 1.2e-7 · (1 + x²) for h, at most 1.2e-5 at x = 10).
 */
function positivePart(z: number): number {
  const x = z < 0 ? -z : z;
  let tail = 0; // h(−x)
  if (x <= FAR) {
    const t = 1 / (1 + 0.5 * x * Math.SQRT1_2);
    const poly =
      -1.26551223 +
      t *
        (1.00002368 +
          t *
            (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    const gauss = Math.exp(-0.5 * x * x);
    tail = gauss * (INV_SQRT_2PI - 0.5 * x * t * Math.exp(poly));
    if (tail < 0) tail = 0;
  }
  return z < 0 ? tail : z + tail;
}

const INV_SQRT_2PI = 0.3989422804014327;

export class ExpectedBoxImprovement {
  readonly m: number;
  readonly count: number;
  private readonly rows: number;
  /** the corners' source rows, `rows x m` */
  private readonly points: Float64Array;
  /** per box and objective, where g_j(u_j) and g_j(l_j) lie in `g` (l_j = −∞ reads the zero at the end) */
  private readonly upperAt: Int32Array;
  private readonly lowerAt: Int32Array;
  /** g_j of every row's j-th coordinate for the candidate in hand, `rows x m`, then m zeros */
  private readonly g: Float64Array;

  constructor(boxes: NondominatedBoxes) {
    const { rows, points, upperRow, lowerRow } = boxes.cornerRows();
    const m = boxes.m;
    this.m = m;
    this.count = boxes.count;
    this.rows = rows;
    this.points = points;
    this.upperAt = new Int32Array(upperRow.length);
    this.lowerAt = new Int32Array(lowerRow.length);
    for (let k = 0; k < upperRow.length; k++) {
      const j = k % m;
      this.upperAt[k] = upperRow[k] * m + j;
      this.lowerAt[k] = (lowerRow[k] < 0 ? rows : lowerRow[k]) * m + j;
    }
    this.g = new Float64Array((rows + 1) * m);
  }

  /** EHVI of each of the q candidates, `q x m` row-major means and standard deviations (σ = 0: the improvement at μ). */
  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const { m, g, upperAt, lowerAt } = this;
    const out = new Float64Array(q);
    const stop = this.count * m;
    for (let i = 0; i < q; i++) {
      this.fill(mean, std, i * m);
      let total = 0;
      for (let o = 0; o < stop; o += m) {
        let volume = 1;
        for (let j = 0; j < m; j++) {
          const side = g[upperAt[o + j]] - g[lowerAt[o + j]];
          if (!(side > 0)) {
            volume = 0;
            break;
          }
          volume *= side;
        }
        total += volume;
      }
      out[i] = total;
    }
    return out;
  }

  /** g_j(t) = E[(t − Y_j)^+] for every row's coordinate t, for the candidate at `at`. */
  private fill(mean: Float64Array, std: Float64Array, at: number): void {
    const { m, g, points } = this;
    for (let j = 0; j < m; j++) {
      const mu = mean[at + j];
      const sigma = std[at + j];
      for (let o = j, stop = this.rows * m; o < stop; o += m) {
        const t = points[o];
        const gap = t - mu;
        g[o] = t === -Infinity ? 0 : sigma > 0 ? sigma * positivePart(gap / sigma) : gap > 0 ? gap : 0;
      }
    }
  }
}
