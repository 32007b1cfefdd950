import { minimizeBounded } from './lbfgs.js';
import { DenseLikelihood, type MarginalLikelihood } from './likelihood.js';
import type { HyperparameterSpace } from './priors.js';
import { LOG_WARP_MAX, LOG_WARP_MIN, warpFromTheta, warpLogPrior, warpToTheta, warpWithParameterSlopes, type InputWarp } from './warp.js';

/**
 * Whether a fit warps its inputs (warp.ts), and the warped fit. The warp is fitted jointly with the
 * kernel's hyperparameters, on θ = [log l_1..d, log s², log σ², log a_1..d, log b_1..d], and kept
 * only where the marginal likelihood prefers it: the unwarped MAP fit comes first (as without
 * warping), then bounded L-BFGS on the joint θ starts from it with the identity warp (or the warm
 * start's warp), and the warp is kept when its log posterior (warp prior included) beats the
 * unwarped one by WARP_MARGIN_PER_INPUT nats per input (Akaike's one nat per parameter, a and b).
 * The margin keeps out small warps that buy little (a smooth stationary function gains about a
 * nat from warps within 10 % of the identity) and would cost every later evaluation a few tensor
 * ops; the prior (normal on log a and log b at the identity) keeps a kept warp from chasing a few
 * points.
 *
 * Cost: the warped stage is a second L-BFGS run of at most WARP_ITERATIONS iterations on the
 * dense float64 likelihood, whose gradient loop also accumulates the per-point term (about 1.5×
 * the unwarped one); 2d more parameters need data to pin them down, and the pairwise gradient
 * grows with d, so inputs are warped only up to WARP_MAX_DIMENSIONS encoded dimensions and from
 * WARP_MIN_POINTS_PER_INPUT·d points. Beyond DENSE_LIMIT points the warp is fitted on the first,
 * dense stage's subset and held fixed while the tensor stages refine the kernel on warped inputs.
 */

export const WARP_MAX_DIMENSIONS = 16;
export const WARP_MIN_POINTS_PER_INPUT = 2;
export const WARP_MARGIN_PER_INPUT = 2;
export const WARP_ITERATIONS = 100;

/** Whether a fit of n points in d inputs tries a warp. */
export function warpEligible(n: number, d: number): boolean {
  return d <= WARP_MAX_DIMENSIONS && n >= WARP_MIN_POINTS_PER_INPUT * d + 2;
}

/**
 * The log marginal likelihood over the joint θ (length 3d + 2), in float64 (one output): the
 * inputs are warped at θ's warp, the kernel part is DenseLikelihood's, and the warp part of the
 * gradient is −Σ_i (∂u_ik/∂θ) A_ik / l_k with A from likelihoodGradient's per-point accumulator.
 */
export class WarpedLikelihood implements MarginalLikelihood {
  private readonly U: Float64Array;
  private readonly dLogA: Float64Array;
  private readonly dLogB: Float64Array;
  private readonly points: Float64Array;
  private readonly inner: DenseLikelihood;

  constructor(
    readonly X: Float64Array,
    readonly y: Float64Array,
    readonly n: number,
    readonly d: number,
  ) {
    this.U = new Float64Array(n * d);
    this.dLogA = new Float64Array(n * d);
    this.dLogB = new Float64Array(n * d);
    this.points = new Float64Array(n * d);
    this.inner = new DenseLikelihood(this.U, y, n, d);
    this.inner.pointGradient = this.points;
  }

  evaluate(theta: Float64Array, gradient?: Float64Array): number {
    const { X, n, d, U, dLogA, dLogB, points } = this;
    warpWithParameterSlopes(X, n, d, theta.subarray(d + 2), U, dLogA, dLogB);
    const value = this.inner.evaluate(theta.subarray(0, d + 2), gradient?.subarray(0, d + 2));
    if (gradient && Number.isFinite(value)) {
      for (let k = 0; k < d; k++) {
        const inv = Math.exp(-theta[k]);
        let ga = 0;
        let gb = 0;
        for (let i = 0; i < n; i++) {
          ga += dLogA[i * d + k] * points[i * d + k];
          gb += dLogB[i * d + k] * points[i * d + k];
        }
        gradient[d + 2 + k] = -ga * inv;
        gradient[2 * d + 2 + k] = -gb * inv;
      }
    }
    return value;
  }
}

export interface WarpedFit {
  /** the kernel's θ (length d + 2) */
  theta: Float64Array;
  warp: InputWarp;
  /** log p(y | θ) + log prior, warp prior included */
  logPosterior: number;
}

/**
 * The joint fit against the unwarped optimum (log posterior `logPosterior`), from the kernel's
 * `theta` (length d + 2) and the warp `initial` (or the identity); `warped` is null unless it
 * beats the unwarped fit by the margin.
 */
export function fitWarp(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  space: HyperparameterSpace,
  theta: Float64Array,
  logPosterior: number,
  initial: InputWarp | undefined,
  maxIterations: number,
): { warped: WarpedFit | null; evaluations: number } {
  const likelihood = new WarpedLikelihood(X, y, n, d);
  const size = 3 * d + 2;
  const lower = new Float64Array(size).fill(LOG_WARP_MIN);
  const upper = new Float64Array(size).fill(LOG_WARP_MAX);
  lower.set(space.lower);
  upper.set(space.upper);
  const start = new Float64Array(size);
  start.set(theta);
  if (initial && initial.a.length === d) start.set(warpToTheta(initial), d + 2);
  let evaluations = 0;
  const kernelGradient = new Float64Array(d + 2);
  const joint = (t: Float64Array, gradient?: Float64Array): number => {
    evaluations++;
    const value = likelihood.evaluate(t, gradient);
    if (!Number.isFinite(value)) return NaN;
    kernelGradient.fill(0);
    const prior = space.logPrior(t.subarray(0, d + 2), gradient ? kernelGradient : undefined) + warpLogPrior(t.subarray(d + 2), gradient?.subarray(d + 2));
    if (gradient) for (let p = 0; p < d + 2; p++) gradient[p] += kernelGradient[p];
    return value + prior;
  };
  const run = minimizeBounded(
    (t, gradient) => {
      const value = joint(t, gradient);
      for (let i = 0; i < size; i++) gradient[i] = -gradient[i] / n;
      return Number.isFinite(value) ? -value / n : Infinity;
    },
    start,
    { lower, upper, maxIterations: Math.min(maxIterations, WARP_ITERATIONS) },
  );
  const best = -n * run.value;
  if (!Number.isFinite(best) || !(best > logPosterior + WARP_MARGIN_PER_INPUT * d)) return { warped: null, evaluations };
  const warped = { theta: Float64Array.from(run.x.subarray(0, d + 2)), warp: warpFromTheta(run.x.subarray(d + 2), d), logPosterior: best };
  return { warped, evaluations };
}
