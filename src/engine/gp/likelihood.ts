import { choleskyInPlace, inverseFromInverseFactor, invertLower, solveLowerInPlace, solveLowerTransposedInPlace } from './dense64.js';
import { tryWithJitter } from './jitter.js';
import { maternGram } from './matern.js';

/**
 * The exact log marginal likelihood of a zero-mean GP with a Matern-5/2 ARD kernel and Gaussian
 * noise, over θ = [log l_1..d, log s², log σ²]:
 *
 *   log p(y|θ) = −½ yᵀα − Σ log L_ii − (n/2) log 2π,   K = L Lᵀ,   α = K⁻¹y,
 *   ∂/∂θ_p     = ½ tr((ααᵀ − K⁻¹) ∂K/∂θ_p)        (Rasmussen & Williams 2006, eq. 5.9)
 *
 * This file holds the float64 dense evaluation, for problems small enough that tensor ops would
 * only add overhead (up to a few hundred points), and the gradient accumulation it shares with
 * the tensor path (tensor-likelihood.ts).
 */

/** θ-parameterized log marginal likelihood on a fixed data set; see DenseLikelihood. */
export interface MarginalLikelihood {
  /**
   * log p(y | θ); when `gradient` (length d + 2) is given it receives ∂/∂θ. NaN when the
   * covariance cannot be factorized even with jitter.
   */
  evaluate(theta: Float64Array, gradient?: Float64Array): number;
}

export const LOG_2PI = Math.log(2 * Math.PI);

/** Z = X / l. X: `n x d` row-major; theta: log-parameters (first d are log l); Z: `n x d`, written. */
export function scaleByTheta(X: Float64Array, n: number, d: number, theta: Float64Array, Z: Float64Array): void {
  for (let k = 0; k < d; k++) {
    const inv = Math.exp(-theta[k]);
    for (let i = 0; i < n; i++) Z[i * d + k] = X[i * d + k] * inv;
  }
}

/**
 * ∂ log p / ∂θ from W = ααᵀ − K⁻¹, visiting each pair once:
 *   ∂K_ij/∂log l_k = H_ij · (z_ik − z_jk)²  (H from maternGram),  ∂K/∂log s² = F,  ∂K/∂log σ² = σ² I.
 * With `floorScale` = τ/n, the diagonal also carries the conditioning floor τ·1ᵀF1/n of the
 * tensor path (tensor-covariance.ts), whose derivative (τ/n)·Σ_ij ∂F_ij/∂θ multiplies tr(W)/2.
 * Z: `n x d` row-major scaled inputs; alpha: length n; Kinv: `n x n` row-major, only the lower
 * triangle (diagonal included) is read; F: `n x n` noise-free kernel matrix and H: `n x n`
 * lengthscale factor (lower triangles read). gradient: length d + 2, overwritten.
 * pointGradient (`n x d`, overwritten; without the floor only): A_ik = Σ_j W_ij H_ij (z_ik − z_jk),
 * from which the gradient by anything that moves the inputs follows (warp.ts's parameters:
 * ∂ log p/∂θ = −Σ_i (∂u_ik/∂θ) A_ik / l_k).
 */
export function likelihoodGradient(
  Z: Float64Array,
  n: number,
  d: number,
  alpha: Float64Array,
  Kinv: Float64Array | Float32Array,
  F: Float64Array,
  H: Float64Array | Float32Array,
  noise: number,
  gradient: Float64Array,
  floorScale = 0,
  pointGradient?: Float64Array,
): void {
  gradient.fill(0);
  pointGradient?.fill(0);
  const unweighted = new Float64Array(d + 1);
  let scale = 0;
  let trace = 0;
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    const zi = i * d;
    const ai = alpha[i];
    const wii = ai * ai - Kinv[ri + i];
    trace += wii;
    scale += 0.5 * wii * F[ri + i];
    unweighted[d] += F[ri + i];
    // Off-diagonal pairs count twice in the trace, which cancels the ½.
    for (let j = 0; j < i; j++) {
      const w = ai * alpha[j] - Kinv[ri + j];
      scale += w * F[ri + j];
      unweighted[d] += 2 * F[ri + j];
      const zj = j * d;
      const h = H[ri + j];
      const wh = w * h;
      if (floorScale > 0) {
        for (let k = 0; k < d; k++) {
          const t = Z[zi + k] - Z[zj + k];
          gradient[k] += wh * t * t;
          unweighted[k] += 2 * h * t * t;
        }
      } else if (pointGradient) {
        for (let k = 0; k < d; k++) {
          const t = Z[zi + k] - Z[zj + k];
          const wht = wh * t;
          gradient[k] += wht * t;
          pointGradient[zi + k] += wht;
          pointGradient[zj + k] -= wht;
        }
      } else {
        // without the floor the unweighted sums go unused: half the work of this, the hot loop
        // (unrolled by four, which V8 runs about 30 % faster at d = 200)
        let k = 0;
        for (; k + 3 < d; k += 4) {
          const t0 = Z[zi + k] - Z[zj + k];
          const t1 = Z[zi + k + 1] - Z[zj + k + 1];
          const t2 = Z[zi + k + 2] - Z[zj + k + 2];
          const t3 = Z[zi + k + 3] - Z[zj + k + 3];
          gradient[k] += wh * t0 * t0;
          gradient[k + 1] += wh * t1 * t1;
          gradient[k + 2] += wh * t2 * t2;
          gradient[k + 3] += wh * t3 * t3;
        }
        for (; k < d; k++) {
          const t = Z[zi + k] - Z[zj + k];
          gradient[k] += wh * t * t;
        }
      }
    }
  }
  gradient[d] = scale;
  gradient[d + 1] = 0.5 * noise * trace;
  if (floorScale > 0) {
    for (let p = 0; p <= d; p++) gradient[p] += 0.5 * trace * floorScale * unweighted[p];
  }
}

/**
 * Dense float64 evaluation. Working buffers are allocated once per data set, so an optimizer can
 * call evaluate() hundreds of times without garbage.
 *
 * With several outputs (`n x outputs` y, each column standardized) that share θ, the value is
 * the sum of their log likelihoods, from one factorization: Σ_k −½ y_kᵀα_k − outputs·(Σ log L_ii
 * + (n/2) log 2π), and the gradient is ½ tr((Σ_k α_kα_kᵀ − outputs·K⁻¹) ∂K/∂θ_p), so a shared
 * model of many outputs costs about what one output does.
 */
export class DenseLikelihood implements MarginalLikelihood {
  private readonly Z: Float64Array;
  private readonly F: Float64Array;
  private readonly H: Float64Array;
  private readonly L: Float64Array;
  private readonly Linv: Float64Array;
  private readonly Kinv: Float64Array;
  private readonly alpha: Float64Array;
  /** per output α_k = K⁻¹y_k, `outputs x n` (several outputs only) */
  private readonly alphas: Float64Array;
  /**
   * When set (`n x d`, one output only), each gradient evaluation also writes the per-point
   * accumulator of likelihoodGradient here (the warped likelihood reads it).
   */
  pointGradient?: Float64Array;

  /**
   * X: `n x d` row-major Float64Array of inputs; y: `n x outputs` row-major standardized outputs
   * (length n for one). Both are kept by reference and must not change while this object is in use.
   */
  constructor(
    readonly X: Float64Array,
    readonly y: Float64Array,
    readonly n: number,
    readonly d: number,
    readonly outputs = 1,
  ) {
    const nn = n * n;
    this.Z = new Float64Array(n * d);
    this.F = new Float64Array(nn);
    this.H = new Float64Array(nn);
    this.L = new Float64Array(nn);
    this.Linv = new Float64Array(nn);
    this.Kinv = new Float64Array(nn);
    this.alpha = new Float64Array(n);
    this.alphas = new Float64Array(outputs > 1 ? outputs * n : 0);
  }

  evaluate(theta: Float64Array, gradient?: Float64Array): number {
    const { X, y, n, d, Z, F, H, L, alpha } = this;
    scaleByTheta(X, n, d, theta, Z);
    const s2 = Math.exp(theta[d]);
    const noise = Math.exp(theta[d + 1]);
    maternGram(Z, n, d, s2, F, gradient ? H : undefined);
    const factored = tryWithJitter(s2 + noise, (jitter) => {
      L.set(F);
      for (let i = 0; i < n; i++) L[i * n + i] += noise + jitter;
      return choleskyInPlace(L, n) ? true : null;
    });
    if (factored === null) return NaN;
    if (this.outputs > 1) return this.evaluateShared(noise, gradient);

    alpha.set(y);
    solveLowerInPlace(L, n, alpha);
    let quad = 0;
    let logDet = 0;
    for (let i = 0; i < n; i++) {
      quad += alpha[i] * alpha[i];
      logDet += Math.log(L[i * n + i]);
    }
    solveLowerTransposedInPlace(L, n, alpha);
    if (gradient) {
      invertLower(L, n, this.Linv);
      inverseFromInverseFactor(this.Linv, n, this.Kinv);
      likelihoodGradient(Z, n, d, alpha, this.Kinv, F, H, noise, gradient, 0, this.pointGradient);
    }
    return -0.5 * quad - logDet - 0.5 * n * LOG_2PI;
  }

  /**
   * The summed log likelihood of several outputs on the factor already in L. For the gradient,
   * M = outputs·K⁻¹ − Σ_k α_kα_kᵀ is passed as likelihoodGradient's K⁻¹ with α = 0, whose
   * weights α_iα_j − K⁻¹_ij then read Σ_k α_ikα_jk − outputs·K⁻¹_ij.
   */
  private evaluateShared(noise: number, gradient?: Float64Array): number {
    const { y, n, d, outputs, L, alpha, alphas, Kinv, Z, F, H } = this;
    let quad = 0;
    let logDet = 0;
    for (let i = 0; i < n; i++) logDet += Math.log(L[i * n + i]);
    for (let k = 0; k < outputs; k++) {
      for (let i = 0; i < n; i++) alpha[i] = y[i * outputs + k];
      solveLowerInPlace(L, n, alpha);
      for (let i = 0; i < n; i++) quad += alpha[i] * alpha[i];
      solveLowerTransposedInPlace(L, n, alpha);
      alphas.set(alpha, k * n);
    }
    if (gradient) {
      invertLower(L, n, this.Linv);
      inverseFromInverseFactor(this.Linv, n, Kinv);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let k = 0; k < outputs; k++) s += alphas[k * n + i] * alphas[k * n + j];
          Kinv[i * n + j] = outputs * Kinv[i * n + j] - s;
        }
      }
      alpha.fill(0);
      likelihoodGradient(Z, n, d, alpha, Kinv, F, H, noise, gradient);
    }
    return -0.5 * quad - outputs * (logDet + 0.5 * n * LOG_2PI);
  }
}
