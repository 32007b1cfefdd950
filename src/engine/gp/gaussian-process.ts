import { tf } from '../tensor/backend.js';
import { readBack } from '../tensor/read-back.js';
import { choleskyInPlace, invertLower, solveLowerInPlace, solveLowerTransposedInPlace, transposeToFloat32 } from './dense64.js';
import { DENSE_LIMIT } from './fit.js';
import { NotPositiveDefiniteError, withJitter } from './jitter.js';
import { LOG_2PI } from './likelihood.js';
import { DEFAULT_BLOCK_SIZE } from './linalg.js';
import { maternCross, maternGram, scaleInputs } from './matern.js';
import type { GpHyperparameters } from './priors.js';
import { conditioningNoise, solveTensorCovariance } from './tensor-covariance.js';
import { warpInputs } from './warp.js';

/**
 * One output's exact GP posterior with fixed hyperparameters, on standardized outputs: the
 * weights α = K⁻¹y in float64 and the inverse Cholesky factor L⁻ᵀ as a float32 tensor, which turn
 * the posterior at q points into two matmuls (posterior.ts):
 *
 *   mean = K*α,   variance = s² − rowsum((K* L⁻ᵀ)²)        (Rasmussen & Williams 2006, Alg. 2.1)
 *
 * Up to DENSE_LIMIT points everything is computed in float64 and L⁻ᵀ rounded once to float32;
 * beyond, L comes from the blocked float32 Cholesky, α is refined back to float64, and the noise
 * is raised to the conditioning floor if it was below (tensor-covariance.ts).
 *
 * With an input warp (warp.ts) the model is built on the warped inputs, and X holds them: new
 * observations are warped on their way in (condition), and whoever evaluates the posterior warps
 * its points alike (posterior.ts).
 */
export class GaussianProcess {
  private constructor(
    /** `n x d` row-major inputs, warped when the hyperparameters have a warp */
    readonly X: Float64Array,
    /** length-n standardized outputs */
    readonly y: Float64Array,
    readonly n: number,
    readonly d: number,
    readonly hyperparameters: GpHyperparameters,
    /** what was added to the kernel diagonal: σ² plus any jitter the factorization needed */
    readonly diagonal: number,
    /** K⁻¹y, length n */
    readonly alpha: Float64Array,
    /** L⁻ᵀ, `n x n` upper triangular, float32 */
    readonly inverseFactorTransposed: tf.Tensor2D,
    /** log p(y | θ) of the standardized outputs */
    readonly logMarginalLikelihood: number,
  ) {}

  /**
   * X: `n x d` row-major Float64Array; y: length-n standardized outputs (both kept by
   * reference). blockSize: diagonal block width for the tensor path (n > DENSE_LIMIT).
   */
  static build(raw: Float64Array, y: Float64Array, n: number, d: number, hyperparameters: GpHyperparameters, blockSize = DEFAULT_BLOCK_SIZE): GaussianProcess {
    const { outputScale, noise } = hyperparameters;
    const X = hyperparameters.warp ? warpInputs(raw, n, d, hyperparameters.warp) : raw;
    const F = new Float64Array(n * n);
    maternGram(scaleInputs(X, n, d, hyperparameters.lengthscales), n, d, outputScale, F);
    if (n <= DENSE_LIMIT) {
      const L = new Float64Array(n * n);
      const { jitter } = withJitter(
        outputScale + noise,
        (j) => {
          L.set(F);
          for (let i = 0; i < n; i++) L[i * n + i] += noise + j;
          return choleskyInPlace(L, n) ? true : null;
        },
        'GP covariance matrix',
      );
      const alpha = Float64Array.from(y);
      solveLowerInPlace(L, n, alpha);
      let logLik = -0.5 * n * LOG_2PI;
      for (let i = 0; i < n; i++) logLik -= 0.5 * alpha[i] * alpha[i] + Math.log(L[i * n + i]);
      solveLowerTransposedInPlace(L, n, alpha);
      const Linv = new Float64Array(n * n);
      invertLower(L, n, Linv);
      const upper = tf.tensor2d(transposeToFloat32(Linv, n), [n, n]);
      return new GaussianProcess(X, y, n, d, hyperparameters, noise + jitter, alpha, upper, logLik);
    }
    const effectiveNoise = Math.max(noise, conditioningNoise(F, n));
    const solved = solveTensorCovariance(F, n, effectiveNoise, y, blockSize);
    if (solved === null) {
      throw new NotPositiveDefiniteError(
        'Kiln: the GP covariance matrix is not positive definite even with jitter; check the training data for NaN or infinite values.',
      );
    }
    const { factor, solution: alpha } = solved;
    let quad = 0;
    for (let i = 0; i < n; i++) quad += y[i] * alpha[i];
    const logLik = -0.5 * quad - 0.5 * factor.logDeterminant - 0.5 * n * LOG_2PI;
    const upper = tf.tensor2d(transposeToFloat32(factor.inverse(), n), [n, n]);
    const used = { ...hyperparameters, noise: effectiveNoise };
    return new GaussianProcess(X, y, n, d, used, solved.diagonal, alpha, upper, logLik);
  }

  /**
   * The posterior after k more observations, with the same hyperparameters, by extending the
   * factor: for K' = [[K, K₁₂], [K₂₁, K₂₂]], L' = [[L, 0], [L₂₁, L₂₂]] with L₂₁ = K₂₁L⁻ᵀ and
   * L₂₂L₂₂ᵀ = K₂₂ + δI − L₂₁L₂₁ᵀ, so L'⁻ᵀ gains k columns and α' follows by block back
   * substitution. Costs O(n²k) instead of a refactorization.
   * Xnew: `k x d` row-major; ynew: length-k standardized outputs. This model is left unchanged.
   */
  async condition(rawNew: Float64Array, ynew: Float64Array, k: number): Promise<GaussianProcess> {
    const { n, d, hyperparameters: h, diagonal } = this;
    const Xnew = h.warp ? warpInputs(rawNew, k, d, h.warp) : rawNew;
    const Zold = scaleInputs(this.X, n, d, h.lengthscales);
    const Znew = scaleInputs(Xnew, k, d, h.lengthscales);
    const K21 = maternCross(Znew, k, Zold, n, d, h.outputScale);
    const [L21] = await readBack(tf.tidy(() => tf.matMul(tf.tensor2d(Float32Array.from(K21), [k, n]), this.inverseFactorTransposed)));

    const S = new Float64Array(k * k);
    maternGram(Znew, k, d, h.outputScale, S);
    for (let a = 0; a < k; a++) {
      for (let b = 0; b <= a; b++) {
        let s = 0;
        for (let i = 0; i < n; i++) s += L21[a * n + i] * L21[b * n + i];
        S[a * k + b] -= s;
        S[b * k + a] = S[a * k + b];
      }
    }
    const L22 = new Float64Array(k * k);
    withJitter(
      h.outputScale + diagonal,
      (j) => {
        L22.set(S);
        for (let a = 0; a < k; a++) L22[a * k + a] += diagonal + j;
        return choleskyInPlace(L22, k) ? true : null;
      },
      'conditioned GP covariance matrix',
    );

    // α₂ = L₂₂⁻ᵀ L₂₂⁻¹ (y₂ − K₂₁α): the new points' residuals against the current posterior mean.
    const alpha2 = new Float64Array(k);
    for (let a = 0; a < k; a++) {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += K21[a * n + i] * this.alpha[i];
      alpha2[a] = ynew[a] - mean;
    }
    solveLowerInPlace(L22, k, alpha2);
    let logLik = this.logMarginalLikelihood - 0.5 * k * LOG_2PI;
    for (let a = 0; a < k; a++) logLik -= 0.5 * alpha2[a] * alpha2[a] + Math.log(L22[a * k + a]);
    solveLowerTransposedInPlace(L22, k, alpha2);

    // α₁ = α − L⁻ᵀ(L₂₁ᵀα₂) and the new columns of L'⁻ᵀ: −L⁻ᵀ L₂₁ᵀ L₂₂⁻ᵀ above L₂₂⁻ᵀ.
    const L22inv = new Float64Array(k * k);
    invertLower(L22, k, L22inv);
    const rhs = new Float32Array(n * (k + 1));
    for (let i = 0; i < n; i++) {
      let u = 0;
      for (let a = 0; a < k; a++) u += L21[a * n + i] * alpha2[a];
      rhs[i * (k + 1)] = u;
      for (let b = 0; b < k; b++) {
        let m = 0;
        for (let a = 0; a <= b; a++) m += L21[a * n + i] * L22inv[b * k + a];
        rhs[i * (k + 1) + 1 + b] = m;
      }
    }
    const [correction, upper] = tf.tidy(() => {
      const product = tf.matMul(this.inverseFactorTransposed, tf.tensor2d(rhs, [n, k + 1]));
      const newColumns = tf.neg(tf.slice(product, [0, 1], [n, k]));
      const corner = tf.tensor2d(transposeToFloat32(L22inv, k), [k, k]);
      const top = tf.concat([this.inverseFactorTransposed, newColumns], 1);
      const bottom = tf.concat([tf.zeros([k, n]), corner], 1);
      return [tf.slice(product, [0, 0], [n, 1]), tf.concat([top, bottom], 0)] as [tf.Tensor2D, tf.Tensor2D];
    });
    const [u] = await readBack(correction).catch((error: unknown) => {
      upper.dispose();
      throw error;
    });
    const alpha = new Float64Array(n + k);
    for (let i = 0; i < n; i++) alpha[i] = this.alpha[i] - u[i];
    alpha.set(alpha2, n);

    const X = new Float64Array((n + k) * d);
    X.set(this.X);
    X.set(Xnew.subarray(0, k * d), n * d);
    const y = new Float64Array(n + k);
    y.set(this.y);
    y.set(ynew.subarray(0, k), n);
    return new GaussianProcess(X, y, n + k, d, h, diagonal, alpha, upper, logLik);
  }

  dispose(): void {
    this.inverseFactorTransposed.dispose();
  }
}
