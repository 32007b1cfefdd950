import { tf } from '../tensor/backend.js';

/**
 * The Matern-5/2 kernel with automatic relevance determination (one lengthscale per input; Snoek,
 * Larochelle & Adams 2012 recommend it over the squared exponential for Bayesian optimization):
 *
 *   k(x, x') = s² (1 + √5 r + 5/3 r²) exp(−√5 r),   r² = Σ_i (x_i − x'_i)² / l_i².
 *
 * Inputs are divided by the lengthscales once (Z = X / l), after which r is a plain Euclidean
 * distance between rows of Z.
 */

const SQRT5 = Math.sqrt(5);

/** The Matern-5/2 correlation at distance r ≥ 0. */
export function maternCorrelation(r: number): number {
  return (1 + SQRT5 * r + (5 / 3) * r * r) * Math.exp(-SQRT5 * r);
}

/**
 * Divides each input column by its lengthscale.
 * X: `n x d` row-major Float64Array; lengthscales: length d. Returns Z: `n x d` row-major.
 */
export function scaleInputs(X: Float64Array, n: number, d: number, lengthscales: ArrayLike<number>): Float64Array {
  const Z = new Float64Array(n * d);
  for (let k = 0; k < d; k++) {
    const inv = 1 / lengthscales[k];
    for (let i = 0; i < n; i++) Z[i * d + k] = X[i * d + k] * inv;
  }
  return Z;
}

/**
 * Gram matrix K_ij = s² m(|z_i − z_j|) of the rows of Z and, optionally, the lengthscale-gradient
 * factor H_ij = s² · 5/3 (1 + √5 r) e^{−√5 r} from the same exponential. It is −(1/r)·∂k/∂r, so
 * with ∂r/∂log l_k = −(z_ik − z_jk)²/r, ∂K_ij/∂log l_k = H_ij (z_ik − z_jk)²: no division by r.
 * Z: `n x d` row-major Float64Array (inputs over lengthscales). K: `n x n` row-major, filled in
 * full (both triangles); H: `n x n` row-major, strict lower triangle filled.
 */
export function maternGram(Z: Float64Array, n: number, d: number, outputScale: number, K: Float64Array, H?: Float64Array | Float32Array): void {
  for (let i = 0; i < n; i++) {
    const zi = i * d;
    K[i * n + i] = outputScale;
    for (let j = 0; j < i; j++) {
      const zj = j * d;
      let r2 = 0;
      for (let k = 0; k < d; k++) {
        const t = Z[zi + k] - Z[zj + k];
        r2 += t * t;
      }
      const r = Math.sqrt(r2);
      const e = outputScale * Math.exp(-SQRT5 * r);
      const kij = (1 + SQRT5 * r + (5 / 3) * r2) * e;
      K[i * n + j] = kij;
      K[j * n + i] = kij;
      if (H) H[i * n + j] = (5 / 3) * (1 + SQRT5 * r) * e;
    }
  }
}

/**
 * Cross-covariance K_ab = s² m(|za_a − zb_b|).
 * Za: `na x d`, Zb: `nb x d` row-major Float64Array (inputs over lengthscales). Returns `na x nb`.
 */
export function maternCross(Za: Float64Array, na: number, Zb: Float64Array, nb: number, d: number, outputScale: number): Float64Array {
  const out = new Float64Array(na * nb);
  for (let a = 0; a < na; a++) {
    for (let b = 0; b < nb; b++) {
      let r2 = 0;
      for (let k = 0; k < d; k++) {
        const t = Za[a * d + k] - Zb[b * d + k];
        r2 += t * t;
      }
      out[a * nb + b] = outputScale * maternCorrelation(Math.sqrt(r2));
    }
  }
  return out;
}

/**
 * The smallest squared distance the tensor path takes a square root of. Without it the gradient
 * of √r² at a training point would be 0·∞ = NaN for callers that differentiate the posterior;
 * the clamp changes k by about 1e-12·s².
 */
const MIN_SQUARED_DISTANCE = 1e-12;

/**
 * Tensor Matern-5/2 from squared distances (any shape), scaled by the output scale s².
 * r2: float32 tensor of squared scaled distances (negative round-off is clamped away).
 */
export function maternFromSquaredDistance(r2: tf.Tensor, outputScale: number): tf.Tensor {
  return tf.tidy(() => {
    const safe = tf.maximum(r2, MIN_SQUARED_DISTANCE);
    const sr = tf.mul(tf.sqrt(safe), SQRT5);
    const poly = tf.add(tf.add(sr, tf.mul(safe, 5 / 3)), 1);
    return tf.mul(tf.mul(poly, tf.exp(tf.neg(sr))), outputScale);
  });
}
