import { tf } from '../tensor/backend.js';

/**
 * Input warping: a learned monotone map of each input before the kernel sees it, the Kumaraswamy
 * CDF of BoTorch's `Warp` input transform (Snoek, Swersky, Zemel & Adams, "Input warping for
 * Bayesian optimization of non-stationary functions", ICML 2014, with Balandat et al.'s choice of
 * the Kumaraswamy over the Beta CDF):
 *
 *   u = w(x) = 1 − (1 − s^a)^b,   s = x clamped to [WARP_EPSILON, 1 − WARP_EPSILON],
 *
 * on inputs already encoded to [0, 1]. With a = b = 1 it is the identity; a > 1 stretches the top
 * of the range (DTLZ4's x^100 bias: a ≈ 100 turns it into a smooth function of u), a < 1 the
 * bottom, b the other way round. The fit (fit.ts) works on log a and log b, with a normal prior
 * centred at the identity (WARP_PRIOR_SCALE).
 *
 * A GP with a warp is a GP on warped inputs: every evaluation of the fitted model warps its
 * points (and multiplies gradients by w′(x)) and otherwise runs unchanged.
 */
export interface InputWarp {
  /** length d: the Kumaraswamy a per input (1: identity) */
  a: Float64Array;
  /** length d: the Kumaraswamy b per input (1: identity) */
  b: Float64Array;
}

/**
 * Inputs are clamped this far inside [0, 1], so that log s and log(1 − s^a) stay finite for every
 * a, b in bounds (also in float32, where 1 − 1e-6 is still below 1).
 */
export const WARP_EPSILON = 1e-6;
/** Bounds of log a and log b: a, b in [0.01, 200] (x^100 needs a ≈ 100). */
export const LOG_WARP_MIN = Math.log(0.01);
export const LOG_WARP_MAX = Math.log(200);
/** The prior: log a, log b ~ N(0, WARP_PRIOR_SCALE²), the mode at the identity. */
export const WARP_PRIOR_SCALE = 1;

/** The identity warp of d inputs. */
export function identityWarp(d: number): InputWarp {
  return { a: new Float64Array(d).fill(1), b: new Float64Array(d).fill(1) };
}

function isIdentity(warp: InputWarp, k: number): boolean {
  return warp.a[k] === 1 && warp.b[k] === 1;
}

/** Whether the warp leaves every input as it is (a model with it is exactly the unwarped one). */
export function isIdentityWarp(warp: InputWarp): boolean {
  return warp.a.every((_, k) => isIdentity(warp, k));
}

function clamp(x: number): number {
  return Math.min(1 - WARP_EPSILON, Math.max(WARP_EPSILON, x));
}

/** w(x) for one input with parameters a, b. */
export function kumaraswamy(x: number, a: number, b: number): number {
  const q = -Math.expm1(a * Math.log(clamp(x)));
  return -Math.expm1(b * Math.log(q));
}

/**
 * w(x) with its derivatives: by x (0 where x is clamped), by log a and by log b. With
 * L = log s, p = s^a, q = 1 − p: ∂u/∂log a = a·b·q^(b−1)·p·L, ∂u/∂log b = −b·q^b·log q,
 * ∂u/∂x = a·b·q^(b−1)·p/s.
 */
export function kumaraswamyWithSlopes(x: number, a: number, b: number): { value: number; dx: number; dLogA: number; dLogB: number } {
  const s = clamp(x);
  const L = Math.log(s);
  const p = Math.exp(a * L);
  const q = -Math.expm1(a * L);
  const logQ = Math.log(q);
  const qb = Math.exp(b * logQ);
  const common = a * b * Math.exp((b - 1) * logQ) * p;
  return { value: -Math.expm1(b * logQ), dx: s === x ? common / s : 0, dLogA: common * L, dLogB: -b * qb * logQ };
}

/** The warped copy of `n x d` row-major X; identity inputs are copied unchanged. */
export function warpInputs(X: Float64Array, n: number, d: number, warp: InputWarp): Float64Array {
  const U = Float64Array.from(X.subarray(0, n * d));
  for (let k = 0; k < d; k++) {
    if (isIdentity(warp, k)) continue;
    const [a, b] = [warp.a[k], warp.b[k]];
    for (let i = 0; i < n; i++) U[i * d + k] = kumaraswamy(X[i * d + k], a, b);
  }
  return U;
}

/**
 * The warped `n x d` inputs U and the slopes the likelihood gradient needs, each `n x d`:
 * ∂u/∂log a and ∂u/∂log b. warpTheta: [log a_1..d, log b_1..d].
 */
export function warpWithParameterSlopes(
  X: Float64Array,
  n: number,
  d: number,
  warpTheta: Float64Array,
  U: Float64Array,
  dLogA: Float64Array,
  dLogB: Float64Array,
): void {
  for (let k = 0; k < d; k++) {
    const a = Math.exp(warpTheta[k]);
    const b = Math.exp(warpTheta[d + k]);
    for (let i = 0; i < n; i++) {
      const w = kumaraswamyWithSlopes(X[i * d + k], a, b);
      U[i * d + k] = w.value;
      dLogA[i * d + k] = w.dLogA;
      dLogB[i * d + k] = w.dLogB;
    }
  }
}

/** w′(x) per coordinate of `n x d` X (the chain rule's factor for gradients by x). */
export function warpSlopes(X: Float64Array, n: number, d: number, warp: InputWarp): Float64Array {
  const slopes = new Float64Array(n * d).fill(1);
  for (let k = 0; k < d; k++) {
    if (isIdentity(warp, k)) continue;
    for (let i = 0; i < n; i++) slopes[i * d + k] = kumaraswamyWithSlopes(X[i * d + k], warp.a[k], warp.b[k]).dx;
  }
  return slopes;
}

/**
 * Lengthscales in raw input units near x (length d): l_k / w′_k(x_k), what a warped model's
 * lengthscale is worth where it is used (a warp that stretches x₁'s top shortens it there).
 */
export function localLengthscales(lengthscales: ArrayLike<number>, warp: InputWarp | undefined, x: ArrayLike<number>): Float64Array {
  const d = lengthscales.length;
  if (!warp) return Float64Array.from(lengthscales);
  const slopes = warpSlopes(Float64Array.from(x), 1, d, warp);
  return Float64Array.from({ length: d }, (_, k) => lengthscales[k] / Math.max(slopes[k], 1e-12));
}

/**
 * The warp of a `q x d` tensor, differentiable, in float32. Near x = 1 the float64 formula would
 * lose digits (log s of s = 0.999 in float32 is off by 6e-5 relative, which a posterior with
 * large weights turns into visible error), so log s = log1p(−(1 − s)) there, 1 − s being exact in
 * float32 for s ≥ ½; likewise log q = log1p(−s^a) where s^a is small.
 */
export function warpTensor(X: tf.Tensor2D, warp: InputWarp): tf.Tensor2D {
  const d = warp.a.length;
  return tf.tidy(() => {
    const s = tf.clipByValue(X, WARP_EPSILON, 1 - WARP_EPSILON);
    const a = tf.tensor2d(Float32Array.from(warp.a), [1, d]);
    const b = tf.tensor2d(Float32Array.from(warp.b), [1, d]);
    const logS = tf.where(tf.less(s, 0.5), tf.log(s), tf.log1p(tf.neg(tf.sub(1, s))));
    const aLogS = tf.mul(a, logS);
    const p = tf.exp(aLogS);
    const logQ = tf.where(tf.less(p, 0.5), tf.log1p(tf.neg(p)), tf.log(tf.neg(tf.expm1(aLogS))));
    return tf.neg(tf.expm1(tf.mul(b, logQ))) as tf.Tensor2D;
  });
}

/** The warp at [log a_1..d, log b_1..d]. */
export function warpFromTheta(warpTheta: ArrayLike<number>, d: number): InputWarp {
  return { a: Float64Array.from({ length: d }, (_, k) => Math.exp(warpTheta[k])), b: Float64Array.from({ length: d }, (_, k) => Math.exp(warpTheta[d + k])) };
}

/** [log a_1..d, log b_1..d] of a warp, clamped to the bounds. */
export function warpToTheta(warp: InputWarp): Float64Array {
  const d = warp.a.length;
  const theta = new Float64Array(2 * d);
  for (let k = 0; k < d; k++) {
    theta[k] = Math.min(LOG_WARP_MAX, Math.max(LOG_WARP_MIN, Math.log(warp.a[k])));
    theta[d + k] = Math.min(LOG_WARP_MAX, Math.max(LOG_WARP_MIN, Math.log(warp.b[k])));
  }
  return theta;
}

/** log prior of [log a, log b] (normal at the identity, constants dropped); ∂/∂θ ADDED to `gradient` when given. */
export function warpLogPrior(warpTheta: Float64Array, gradient?: Float64Array): number {
  let total = 0;
  const v = WARP_PRIOR_SCALE * WARP_PRIOR_SCALE;
  for (let i = 0; i < warpTheta.length; i++) {
    total -= (0.5 * warpTheta[i] * warpTheta[i]) / v;
    if (gradient) gradient[i] -= warpTheta[i] / v;
  }
  return total;
}
