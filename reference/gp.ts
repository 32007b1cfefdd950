import { multiStartFit, type FitResult } from '../src/engine/gp/multistart.js';
import { HyperparameterSpace, type GpHyperparameters } from '../src/engine/gp/priors.js';

/**
 * A plain float64 Gaussian process written for clarity, not speed: textbook loops, no blocking,
 * no tensors, no buffer reuse. It is the oracle the tests compare the tensor surrogate against
 * and the baseline the gp benchmark measures it against, so it shares no numerical code with the
 * fast path (only the prior, the bounds and the optimizer, which define what "the fit" is).
 */

const SQRT5 = Math.sqrt(5);

/**
 * A point as the kernel sees it: each input through the Kumaraswamy CDF 1 − (1 − s^a)^b of the
 * hyperparameters' warp, s the input clamped to [1e-6, 1 − 1e-6]; the point itself without a warp.
 */
export function referenceWarped(x: ArrayLike<number>, h: GpHyperparameters): ArrayLike<number> {
  const warp = h.warp;
  if (!warp) return x;
  return Array.from({ length: h.lengthscales.length }, (_, k) => {
    const s = Math.min(1 - 1e-6, Math.max(1e-6, x[k]));
    return 1 - Math.pow(1 - Math.pow(s, warp.a[k]), warp.b[k]);
  });
}

/** Matern-5/2 with ARD, directly from the definition, on warped inputs when h has a warp. x, y: length-d points. */
export function referenceKernel(x: ArrayLike<number>, y: ArrayLike<number>, h: GpHyperparameters): number {
  const [a, b] = [referenceWarped(x, h), referenceWarped(y, h)];
  let r2 = 0;
  for (let i = 0; i < h.lengthscales.length; i++) r2 += ((a[i] - b[i]) / h.lengthscales[i]) ** 2;
  const r = Math.sqrt(r2);
  return h.outputScale * (1 + SQRT5 * r + (5 * r2) / 3) * Math.exp(-SQRT5 * r);
}

/**
 * Textbook Cholesky–Banachiewicz. A: `n x n` row-major SPD Float64Array (not modified). Returns
 * L (`n x n`, zero upper triangle) or null when a pivot is not positive.
 */
export function referenceCholesky(A: Float64Array, n: number): Float64Array | null {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = A[i * n + j];
      for (let k = 0; k < j; k++) sum -= L[i * n + k] * L[j * n + k];
      if (i === j) {
        if (!(sum > 0)) return null;
        L[i * n + i] = Math.sqrt(sum);
      } else {
        L[i * n + j] = sum / L[j * n + j];
      }
    }
  }
  return L;
}

/** Solves L x = b. L: `n x n` row-major lower triangular; b: length n. Returns x. */
export function referenceForwardSolve(L: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i];
    for (let k = 0; k < i; k++) sum -= L[i * n + k] * x[k];
    x[i] = sum / L[i * n + i];
  }
  return x;
}

/** Solves Lᵀ x = b. L: `n x n` row-major lower triangular; b: length n. Returns x. */
export function referenceBackSolve(L: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = b[i];
    for (let k = i + 1; k < n; k++) sum -= L[k * n + i] * x[k];
    x[i] = sum / L[i * n + i];
  }
  return x;
}

/** Noisy covariance K + σ²I of the rows of X (`n x d` row-major). */
export function referenceCovariance(X: Float64Array, n: number, d: number, h: GpHyperparameters): Float64Array {
  const K = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) K[i * n + j] = referenceKernel(X.subarray(i * d, i * d + d), X.subarray(j * d, j * d + d), h);
    K[i * n + i] += h.noise;
  }
  return K;
}

/**
 * log p(y | θ) and its gradient over θ = [log l_1..d, log s², log σ²]: W = ααᵀ − K⁻¹ is formed
 * explicitly (K⁻¹ = L⁻ᵀL⁻¹ entry by entry) and ½ Σ_ij W_ij ∂K_ij/∂θ_p summed over all ordered
 * pairs, with ∂K/∂θ_p from the chain rule through r written out below.
 * X: `n x d` row-major; y: length n (standardized). Null when K is not positive definite.
 */
export function referenceLogMarginalLikelihood(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  h: GpHyperparameters,
): { value: number; gradient: Float64Array } | null {
  const K = referenceCovariance(X, n, d, h);
  const L = referenceCholesky(K, n);
  if (L === null) return null;
  const alpha = referenceBackSolve(L, n, referenceForwardSolve(L, n, y));
  let value = -0.5 * n * Math.log(2 * Math.PI);
  for (let i = 0; i < n; i++) value -= 0.5 * y[i] * alpha[i] + Math.log(L[i * n + i]);

  // K⁻¹ = L⁻ᵀL⁻¹; column j of L⁻¹ (zero above row j) by forward substitution of e_j, kept as row j of C.
  const C = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      let sum = i === j ? 1 : 0;
      for (let k = j; k < i; k++) sum -= L[i * n + k] * C[j * n + k];
      C[j * n + i] = sum / L[i * n + i];
    }
  }
  const W = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let kinv = 0;
      for (let k = i; k < n; k++) kinv += C[i * n + k] * C[j * n + k];
      W[i * n + j] = alpha[i] * alpha[j] - kinv;
      W[j * n + i] = W[i * n + j];
    }
  }
  const gradient = new Float64Array(d + 2);
  const dK = new Float64Array(d + 2);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      kernelDerivatives(X, d, i, j, h, dK);
      for (let p = 0; p < d + 2; p++) gradient[p] += 0.5 * W[i * n + j] * dK[p];
    }
  }
  return { value, gradient };
}

/** out[p] = ∂(K + σ²I)_ij / ∂θ_p for the log-parameters θ. */
function kernelDerivatives(X: Float64Array, d: number, i: number, j: number, h: GpHyperparameters, out: Float64Array): void {
  const a = referenceWarped(X.subarray(i * d, i * d + d), h);
  const b = referenceWarped(X.subarray(j * d, j * d + d), h);
  let r2 = 0;
  for (let k = 0; k < d; k++) r2 += ((a[k] - b[k]) / h.lengthscales[k]) ** 2;
  const r = Math.sqrt(r2);
  // dk/dr = −(5/3) s² r (1 + √5 r) e^{−√5 r} and ∂r/∂log l_p = −(Δ_p/l_p)² / r.
  const dkdrOverR = -(5 / 3) * h.outputScale * (1 + SQRT5 * r) * Math.exp(-SQRT5 * r);
  for (let p = 0; p < d; p++) out[p] = -dkdrOverR * ((a[p] - b[p]) / h.lengthscales[p]) ** 2;
  out[d] = referenceKernel(X.subarray(i * d, i * d + d), X.subarray(j * d, j * d + d), h);
  out[d + 1] = i === j ? h.noise : 0;
}

/** Mean and unbiased standard deviation of y; a constant y gets std 1 so it standardizes to 0. */
export function referenceStandardization(y: ArrayLike<number>): { mean: number; std: number } {
  const n = y.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += y[i] / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (y[i] - mean) ** 2;
  const std = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
  return { mean, std: std > 1e-10 * Math.abs(mean) && std > 0 ? std : 1 };
}

/** A single-output float64 GP with fixed hyperparameters on raw outputs y (standardized inside). */
export class ReferenceGp {
  private readonly L: Float64Array;
  private readonly alpha: Float64Array;
  readonly mean: number;
  readonly std: number;

  /**
   * X: `n x d` row-major inputs; y: length-n raw outputs; standardization: the output transform
   * to use instead of y's own (to reproduce a conditioned model).
   */
  constructor(
    readonly X: Float64Array,
    y: ArrayLike<number>,
    readonly n: number,
    readonly d: number,
    readonly hyperparameters: GpHyperparameters,
    standardization?: { mean: number; std: number },
  ) {
    const { mean, std } = standardization ?? referenceStandardization(y);
    this.mean = mean;
    this.std = std;
    const L = referenceCholesky(referenceCovariance(X, n, d, hyperparameters), n);
    if (L === null) throw new Error('Kiln: the reference GP covariance is not positive definite.');
    this.L = L;
    const z = Float64Array.from(y, (v) => (v - mean) / std);
    this.alpha = referenceBackSolve(L, n, referenceForwardSolve(L, n, z));
  }

  /** Latent posterior at `q x d` row-major points, in raw output units: mean and variance, length q. */
  predict(Xq: Float64Array, q: number): { mean: Float64Array; variance: Float64Array } {
    const { X, n, d, L, alpha, hyperparameters: h } = this;
    const mean = new Float64Array(q);
    const variance = new Float64Array(q);
    for (let a = 0; a < q; a++) {
      const x = Xq.subarray(a * d, a * d + d);
      const k = new Float64Array(n);
      for (let i = 0; i < n; i++) k[i] = referenceKernel(x, X.subarray(i * d, i * d + d), h);
      let mu = 0;
      for (let i = 0; i < n; i++) mu += k[i] * alpha[i];
      const v = referenceForwardSolve(L, n, k);
      let explained = 0;
      for (let i = 0; i < n; i++) explained += v[i] * v[i];
      mean[a] = this.mean + this.std * mu;
      variance[a] = this.std * this.std * Math.max(referenceKernel(x, x, h) - explained, 0);
    }
    return { mean, variance };
  }
}

/**
 * The float64 baseline fit: MAP hyperparameters on ALL the data with the same prior, bounds,
 * starts and optimizer as the fast path. X: `n x d` row-major; y: length-n raw outputs.
 */
export function referenceFit(
  X: Float64Array,
  y: ArrayLike<number>,
  n: number,
  d: number,
  options: { seed: number; restarts?: number; maxIterations?: number },
): FitResult {
  const { mean, std } = referenceStandardization(y);
  const z = Float64Array.from(y, (v) => (v - mean) / std);
  const space = new HyperparameterSpace(d);
  const objective = (theta: Float64Array, gradient?: Float64Array): number => {
    const out = referenceLogMarginalLikelihood(X, z, n, d, space.fromTheta(theta));
    if (out === null) return NaN;
    if (gradient) gradient.set(out.gradient);
    return out.value;
  };
  return multiStartFit(objective, n, space, options);
}
