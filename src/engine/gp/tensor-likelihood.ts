import { likelihoodGradient, LOG_2PI, scaleByTheta, type MarginalLikelihood } from './likelihood.js';
import { DEFAULT_BLOCK_SIZE, inverseLowerTriangle } from './linalg.js';
import { maternGram } from './matern.js';
import { CONDITIONING_FLOOR, conditioningNoise, solveTensorCovariance } from './tensor-covariance.js';

/**
 * The log marginal likelihood (likelihood.ts) for larger data sets: the O(n³) work (Cholesky,
 * L⁻¹ and K⁻¹) runs as blocked float32 matmuls on the tensor backend, the O(n²) work in float64
 * JavaScript: the kernel matrix, α = K⁻¹y refined to float64 accuracy, and the gradient traces.
 * The noise on the diagonal is σ² plus the conditioning floor of tensor-covariance.ts, which
 * keeps float32 meaningful; its dependence on θ is part of the gradient.
 *
 * K⁻¹ comes from L⁻¹ block row by block row (linalg.ts, n³/3 flops), lower triangle only.
 */
/** α to 1e-9 relative is far more than the optimizer can use; each refinement step costs ~n² flops. */
const SOLVE_TOLERANCE = 1e-9;

export class TensorLikelihood implements MarginalLikelihood {
  private readonly Z: Float64Array;
  private readonly F: Float64Array;
  private readonly H: Float32Array;

  /**
   * X: `n x d` row-major Float64Array of inputs; y: length-n standardized outputs (kept by
   * reference). blockSize: diagonal block width of the blocked Cholesky.
   */
  constructor(
    readonly X: Float64Array,
    readonly y: Float64Array,
    readonly n: number,
    readonly d: number,
    readonly blockSize = DEFAULT_BLOCK_SIZE,
  ) {
    this.Z = new Float64Array(n * d);
    this.F = new Float64Array(n * n);
    this.H = new Float32Array(n * n);
  }

  evaluate(theta: Float64Array, gradient?: Float64Array): number {
    const { X, y, n, d, Z, F, H } = this;
    scaleByTheta(X, n, d, theta, Z);
    const noise = Math.exp(theta[d + 1]);
    maternGram(Z, n, d, Math.exp(theta[d]), F, gradient ? H : undefined);
    const solved = solveTensorCovariance(F, n, noise + conditioningNoise(F, n), y, this.blockSize, SOLVE_TOLERANCE);
    if (solved === null) return NaN;
    const alpha = solved.solution;
    let quad = 0;
    for (let i = 0; i < n; i++) quad += y[i] * alpha[i];
    if (gradient) {
      const Kinv = inverseLowerTriangle(solved.factor.inverse(), n, this.blockSize);
      likelihoodGradient(Z, n, d, alpha, Kinv, F, H, noise, gradient, CONDITIONING_FLOOR / n);
    }
    return -0.5 * quad - 0.5 * solved.factor.logDeterminant - 0.5 * n * LOG_2PI;
  }

  /** The noise variance the model at θ really has: σ² plus the conditioning floor on this data. */
  effectiveNoise(theta: Float64Array): number {
    const { X, n, d, Z, F } = this;
    scaleByTheta(X, n, d, theta, Z);
    maternGram(Z, n, d, Math.exp(theta[d]), F);
    return Math.exp(theta[d + 1]) + conditioningNoise(F, n);
  }
}
