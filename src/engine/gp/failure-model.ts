import { normalQuantile } from '../normal.js';
import { fitProbitClassifier, type ProbitClassifier } from './probit-classifier.js';

/**
 * Where evaluations fail: P(success | x) for the acquisition, from every evaluation's inputs and
 * whether it returned values. Two parts, multiplied:
 *
 * - a probit GP classifier (probit-classifier.ts) for the failing REGION: smooth, ½ where the data
 *   say nothing, and never certain, because its likelihood treats labels as noisy;
 * - a neighbourhood factor for the failed POINTS, Π_j (1 − exp(−½ r_j²)) with r_j the distance to
 *   failed input j in units of a radius per input: NEIGHBOURHOOD classifier lengthscales, at most
 *   MAX_RADIUS. Simulations fail deterministically: a point that failed fails again, and so,
 *   most likely, do its close neighbours. The classifier alone keeps P ≈ 0.1 even at a point
 *   that failed five times, so a large acquisition value there (an objective model
 *   extrapolating into the region it cannot measure) won again and again on a benchmark where
 *   half the cube fails. The cap matters while few failures are known: the lengthscales then
 *   cannot tell relevant inputs from irrelevant ones, and an uncapped radius along a
 *   wrongly long lengthscale ruled out whole slabs of the cube (a DTLZ2 campaign lost its
 *   Pareto set that way). The radius trades failures for reach: on a 2-input problem whose
 *   front runs into the failing region, a cap of 0.2 failed 2.5 % of proposals and kept 96 %
 *   of the attainable hypervolume, 0.1 failed 5.6 % and kept 98 %; on three DTLZ2 benchmarks
 *   (4 and 6 inputs) 0.1 failed 8–12 % where 0.2 failed 7–9 %.
 *
 * The acquisition reads `weight`, which discounts likely failures further (P below ½). As a
 * one-output posterior (for ConstrainedAcquisition, which scores a slack by Φ(mean / std)) the
 * model reports mean Φ⁻¹(weight) and variance 1. A pending point is neither a success nor a
 * failure: it enters the neighbourhood factor weighted by its chance of failing (`condition`).
 *
 * Measured on DTLZ2 (6 inputs, 90 evaluations, batches of 4, 3 seeds) failing where
 * x1 + x2 > 1.5: 6.7 % of proposals failed, against 13.3 % with a GP regression on ±1 labels.
 */

/** The failed points' neighbourhood radius, in classifier lengthscales and in unit-cube units. */
const NEIGHBOURHOOD = 0.5;
const MAX_RADIUS = 0.2;
/** Below this P(success), the acquisition discounts a candidate steeply (see `weight`). */
const CONFIDENT = 0.5;
const CAUTION = 4;

export class FailureModel {
  readonly m = 1;

  private constructor(
    readonly d: number,
    readonly classifier: ProbitClassifier,
    /** `k x d` failed (or possibly failing, pending) inputs, each divided by its neighbourhood radius */
    private readonly failedScaled: Float64Array,
    /** length k: how sure each of them is to fail (1 for an observed failure) */
    private readonly weights: Float64Array,
    private readonly k: number,
    /** length d */
    private readonly radius: Float64Array,
  ) {}

  /**
   * X: `n x d` row-major inputs in [0, 1] of every evaluation; labels: length n, +1 for success,
   * −1 for failure; lengthscales: length d, a starting point for the classifier's (e.g. from a
   * regression on the same labels).
   */
  static fit(X: Float64Array, labels: ArrayLike<number>, n: number, d: number, lengthscales: ArrayLike<number>): FailureModel {
    const classifier = fitProbitClassifier(X, labels, n, d, lengthscales);
    const radius = classifier.hyperparameters.lengthscales.map((l) => Math.min(l * NEIGHBOURHOOD, MAX_RADIUS));
    const failed: number[] = [];
    for (let i = 0; i < n; i++) {
      if (labels[i] < 0) for (let j = 0; j < d; j++) failed.push(X[i * d + j] / radius[j]);
    }
    const k = failed.length / d;
    return new FailureModel(d, classifier, Float64Array.from(failed), new Float64Array(k).fill(1), k, radius);
  }

  /** P(success) at q points. X: `q x d` row-major → length q. */
  async probability(X: Float64Array, q: number): Promise<Float64Array> {
    const { d, k } = this;
    const p = await this.classifier.probability(X, q);
    for (let a = 0; a < q; a++) {
      let factor = 1;
      for (let j = 0; j < k && factor > 0; j++) {
        let r2 = 0;
        for (let t = 0; t < d; t++) {
          const diff = X[a * d + t] / this.radius[t] - this.failedScaled[j * d + t];
          r2 += diff * diff;
        }
        factor *= 1 - this.weights[j] * Math.exp(-0.5 * r2);
      }
      p[a] *= factor;
    }
    return p;
  }

  /**
   * What the acquisition counts: P(success), and below CONFIDENT P·(P / CONFIDENT)^CAUTION, so a
   * candidate more likely to fail than not needs a far larger acquisition value to be chosen
   * (at P = 0.15, about 120 times a safe candidate's). X: `q x d` row-major → length q.
   */
  async weight(X: Float64Array, q: number): Promise<Float64Array> {
    return (await this.probability(X, q)).map((p) => (p >= CONFIDENT ? p : p * (p / CONFIDENT) ** CAUTION));
  }

  /** X: `q x d` row-major → mean Φ⁻¹(weight), variance 1: `q x 1` each. */
  async predict(X: Float64Array, q: number): Promise<{ mean: Float64Array; variance: Float64Array }> {
    return { mean: (await this.weight(X, q)).map(normalQuantile), variance: new Float64Array(q).fill(1) };
  }

  /**
   * Its one output as `predict` reads it: an independent draw of variance 1 at every point, so
   * covariance 1 between equal points and 0 between any others. `1 x a x b`.
   */
  covariance(A: Float64Array, a: number, B: Float64Array, b: number): Promise<Float64Array> {
    const { d } = this;
    const out = new Float64Array(a * b);
    for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) out[i * b + j] = A.subarray(i * d, (i + 1) * d).every((v, t) => v === B[j * d + t]) ? 1 : 0;
    return Promise.resolve(out);
  }

  /**
   * The model with k pending points (X: `k x d`; their believed outcomes are not used): each
   * joins the failed points with weight 1 − P(success) there, the chance that it fails and takes
   * its neighbourhood with it. Later picks of the batch then keep away from a risky pick, whose
   * neighbours would most likely share its fate, but may cluster around a safe one.
   */
  async condition(X: Float64Array, _Y: Float64Array, k: number): Promise<FailureModel> {
    const { d } = this;
    const risk = (await this.probability(X, k)).map((p) => 1 - p);
    const scaled = new Float64Array(k * d);
    for (let a = 0; a < k; a++) for (let t = 0; t < d; t++) scaled[a * d + t] = X[a * d + t] / this.radius[t];
    const failed = new Float64Array((this.k + k) * d);
    failed.set(this.failedScaled);
    failed.set(scaled, this.k * d);
    const weights = new Float64Array(this.k + k);
    weights.set(this.weights);
    weights.set(risk, this.k);
    return new FailureModel(d, this.classifier, failed, weights, this.k + k, this.radius);
  }

  /**
   * Frees the classifier's tensors. A conditioned copy shares the classifier and uploads them
   * again when next asked, so a batch may dispose the model it conditioned, as it does.
   */
  dispose(): void {
    this.classifier.dispose();
  }
}
