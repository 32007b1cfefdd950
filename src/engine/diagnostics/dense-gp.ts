import { choleskyInPlace, inverseFromInverseFactor, invertLower } from '../gp/dense64.js';
import { withJitter } from '../gp/jitter.js';
import { maternCorrelation, maternGram, scaleInputs } from '../gp/matern.js';
import type { GpHyperparameters } from '../gp/priors.js';
import { warpInputs } from '../gp/warp.js';

/**
 * One output's GP with given hyperparameters, in float64 and with the full inverse of the
 * covariance at hand: the form diagnostics need (leave-one-out needs diag(K⁻¹), the importance
 * estimate needs many cheap posterior means). Diagnostics run on at most a few hundred points,
 * where the O(n³) inverse costs milliseconds; the optimizer's own GP (gp/gaussian-process.ts) is
 * the one built for size. An input warp (gp/warp.ts) applies to the training inputs and to every
 * point asked about.
 */
export class DenseGp {
  /** K⁻¹ with K = K_f + σ²_n I: `n x n` row-major */
  private readonly inverse: Float64Array;
  /** K⁻¹ y, length n */
  private readonly weights: Float64Array;
  /** inputs over lengthscales: `n x d` row-major */
  private readonly Z: Float64Array;
  private readonly invLengthscales: Float64Array;

  /**
   * X: `n x d` row-major inputs in [0, 1]; y: length n standardized outputs; h: hyperparameters
   * of the standardized output.
   */
  constructor(
    X: Float64Array,
    private readonly y: Float64Array,
    readonly n: number,
    readonly d: number,
    private readonly h: GpHyperparameters,
  ) {
    this.Z = scaleInputs(this.warped(X, n), n, d, h.lengthscales);
    this.invLengthscales = Float64Array.from(h.lengthscales, (l) => 1 / l);
    const gram = new Float64Array(n * n);
    maternGram(this.Z, n, d, h.outputScale, gram);
    const factor = withJitter(
      h.outputScale + h.noise,
      (jitter) => {
        const L = Float64Array.from(gram);
        for (let i = 0; i < n; i++) L[i * n + i] += h.noise + jitter;
        return choleskyInPlace(L, n) ? L : null;
      },
      'diagnostic GP covariance matrix',
    ).result;
    const Linv = new Float64Array(n * n);
    invertLower(factor, n, Linv);
    this.inverse = new Float64Array(n * n);
    inverseFromInverseFactor(Linv, n, this.inverse);
    this.weights = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += this.inverse[i * n + j] * y[j];
      this.weights[i] = s;
    }
  }

  /**
   * Leave-one-out predictive mean and variance (of a measurement, noise included) of every
   * training point with the hyperparameters held fixed, in closed form (Rasmussen & Williams
   * 2006, eq. 5.12): μ₋ᵢ = yᵢ − [K⁻¹y]ᵢ / [K⁻¹]ᵢᵢ, σ²₋ᵢ = 1 / [K⁻¹]ᵢᵢ. Standardized units.
   */
  leaveOneOut(): { mean: Float64Array; variance: Float64Array } {
    const { n } = this;
    const mean = new Float64Array(n);
    const variance = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const diag = this.inverse[i * n + i];
      mean[i] = this.y[i] - this.weights[i] / diag;
      variance[i] = 1 / diag;
    }
    return { mean, variance };
  }

  /**
   * Latent posterior mean and variance at q points. X: `q x d` row-major in [0, 1]. Returns two
   * length-q arrays in standardized units. O(q n²).
   */
  predict(raw: Float64Array, q: number): { mean: Float64Array; variance: Float64Array } {
    const { n } = this;
    const X = this.warped(raw, q);
    const mean = new Float64Array(q);
    const variance = new Float64Array(q);
    const k = new Float64Array(n);
    for (let p = 0; p < q; p++) {
      this.cross(X, p, k);
      let mu = 0;
      let quad = 0;
      for (let i = 0; i < n; i++) {
        mu += k[i] * this.weights[i];
        let s = 0;
        const row = i * n;
        for (let j = 0; j < n; j++) s += this.inverse[row + j] * k[j];
        quad += k[i] * s;
      }
      mean[p] = mu;
      variance[p] = Math.max(this.h.outputScale - quad, 0);
    }
    return { mean, variance };
  }

  /** Latent posterior mean only, at q points X (`q x d` row-major): O(q n d). Standardized units. */
  meanAt(raw: Float64Array, q: number): Float64Array {
    const X = this.warped(raw, q);
    const out = new Float64Array(q);
    const k = new Float64Array(this.n);
    for (let p = 0; p < q; p++) {
      this.cross(X, p, k);
      let mu = 0;
      for (let i = 0; i < this.n; i++) mu += k[i] * this.weights[i];
      out[p] = mu;
    }
    return out;
  }

  /** `rows x d` points as the kernel sees them. */
  private warped(X: Float64Array, rows: number): Float64Array {
    return this.h.warp ? warpInputs(X, rows, this.d, this.h.warp) : X;
  }

  /** k(x_p, X) into k (length n). */
  private cross(X: Float64Array, p: number, k: Float64Array): void {
    const { n, d, Z } = this;
    for (let i = 0; i < n; i++) {
      let r2 = 0;
      for (let c = 0; c < d; c++) {
        const t = X[p * d + c] * this.invLengthscales[c] - Z[i * d + c];
        r2 += t * t;
      }
      k[i] = this.h.outputScale * maternCorrelation(Math.sqrt(r2));
    }
  }
}
