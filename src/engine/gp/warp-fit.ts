import { minimizeBounded, type LbfgsMemory } from './lbfgs.js';
import { DenseLikelihood, type MarginalLikelihood } from './likelihood.js';
import type { HyperparameterSpace } from './priors.js';
import { LOG_WARP_MAX, LOG_WARP_MIN, warpFromTheta, warpLogPrior, warpToTheta, warpWithParameterSlopes, type InputWarp } from './warp.js';

/**
 * Whether a fit warps its inputs (warp.ts), and the warped fit. The warp is fitted jointly with the
 * kernel's hyperparameters, on θ = [log l_1..d, log s², log σ², log a_1..d, log b_1..d], and kept
 * only where the marginal likelihood prefers it: the unwarped MAP fit comes first (as without
 * warping), then bounded L-BFGS on the joint θ starts from it with the identity warp (or the warm
 * start's warp), and the warp is kept when its log posterior (warp prior included) beats the
 * unwarped one by Schwarz's criterion, ½ log n nats per parameter: d·log n (warpMargin). The
 * margin keeps out warps that buy little: DTLZ2's objectives gain 8–16 nats from warps of their
 * distance variables at 40–80 points (below the margin of 22–26; kept, they cost DTLZ2 d = 6 a
 * seed at 0.372 where none fell below 0.40), DTLZ4's x^100 objectives 40–90 at 100 points (above
 * its 32). The prior (normal on log a and log b at the identity) keeps a kept warp from chasing
 * a few points.
 *
 * Cost: a trial from the identity is a probe of WARP_PROBE_ITERATIONS on the dense float64
 * likelihood (whose gradient loop also accumulates the per-point term, about 1.5× the unwarped
 * one), continued to WARP_ITERATIONS only when promising; a warm start's warp gets the full run.
 * 2d more parameters need data to pin them down, and the pairwise gradient grows with d, so
 * inputs are warped only up to WARP_MAX_DIMENSIONS encoded dimensions and from
 * max(WARP_MIN_POINTS, WARP_MIN_POINTS_PER_INPUT·d) points. Beyond DENSE_LIMIT points the warp is fitted on the first,
 * dense stage's subset and held fixed while the tensor stages refine the kernel on warped inputs.
 */

export const WARP_MAX_DIMENSIONS = 16;
/**
 * Points per warped input (five per parameter), and at least WARP_MIN_POINTS: with warps tried
 * from 2d + 2 points, a Branin–Currin seed (d = 2) ended at 54.1 at 90 evaluations (58.7
 * without warping).
 */
export const WARP_MIN_POINTS_PER_INPUT = 10;
export const WARP_MIN_POINTS = 20;
export const WARP_ITERATIONS = 100;
export const WARP_PROBE_ITERATIONS = 12;

/** The log posterior a warp of d inputs must gain on n points to be kept: ½ log n per parameter. */
export function warpMargin(n: number, d: number): number {
  return d * Math.log(n);
}

/** Whether a fit of n points in d inputs tries a warp. */
export function warpEligible(n: number, d: number): boolean {
  return d <= WARP_MAX_DIMENSIONS && n >= Math.max(WARP_MIN_POINTS, WARP_MIN_POINTS_PER_INPUT * d);
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
 * A trial of a warp against the unwarped optimum (log posterior `logPosterior`): the joint fit
 * from the kernel's `theta` (length d + 2) with the identity warp, or from a warm start's kernel
 * and warp. From the identity, a probe of WARP_PROBE_ITERATIONS goes on only if it gained a
 * quarter of the margin already (a refit of a function that needs no warp then costs a few
 * evaluations, not a second fit); `warped` is null unless the result beats the unwarped fit by
 * the margin.
 */
export function fitWarp(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  space: HyperparameterSpace,
  theta: Float64Array,
  logPosterior: number,
  maxIterations: number,
  warm?: { theta: Float64Array; warp: InputWarp },
): { warped: WarpedFit | null; evaluations: number } {
  const joint = new JointFit(X, y, n, d, space);
  const margin = warpMargin(n, d);
  const iterations = Math.min(maxIterations, WARP_ITERATIONS);
  let result: JointRun;
  if (warm) result = joint.run(warm.theta, warm.warp, iterations);
  else {
    result = joint.run(theta, undefined, Math.min(iterations, WARP_PROBE_ITERATIONS));
    if (!result.converged && result.fit.logPosterior > logPosterior + margin / 4 && iterations > WARP_PROBE_ITERATIONS) {
      result = joint.resume(result, iterations - WARP_PROBE_ITERATIONS);
    }
  }
  const kept = Number.isFinite(result.fit.logPosterior) && result.fit.logPosterior > logPosterior + margin;
  return { warped: kept ? result.fit : null, evaluations: joint.evaluations };
}

interface JointRun {
  fit: WarpedFit;
  x: Float64Array;
  memory: LbfgsMemory;
  converged: boolean;
}

/** Bounded L-BFGS on the joint θ's negative log posterior per point. */
class JointFit {
  evaluations = 0;
  private readonly likelihood: WarpedLikelihood;
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly kernelGradient: Float64Array;

  constructor(
    X: Float64Array,
    y: Float64Array,
    private readonly n: number,
    private readonly d: number,
    private readonly space: HyperparameterSpace,
  ) {
    this.likelihood = new WarpedLikelihood(X, y, n, d);
    const size = 3 * d + 2;
    this.lower = new Float64Array(size).fill(LOG_WARP_MIN);
    this.upper = new Float64Array(size).fill(LOG_WARP_MAX);
    this.lower.set(space.lower);
    this.upper.set(space.upper);
    this.kernelGradient = new Float64Array(d + 2);
  }

  run(theta: Float64Array, warp: InputWarp | undefined, iterations: number): JointRun {
    const start = new Float64Array(3 * this.d + 2);
    start.set(theta);
    if (warp && warp.a.length === this.d) start.set(warpToTheta(warp), this.d + 2);
    return this.minimize(start, iterations, undefined);
  }

  resume(previous: JointRun, iterations: number): JointRun {
    const next = this.minimize(previous.x, iterations, previous.memory);
    return next.fit.logPosterior >= previous.fit.logPosterior ? next : previous;
  }

  private minimize(start: Float64Array, maxIterations: number, memory: LbfgsMemory | undefined): JointRun {
    const { n, d, space, likelihood, kernelGradient } = this;
    const objective = (t: Float64Array, gradient: Float64Array): number => {
      this.evaluations++;
      const value = likelihood.evaluate(t, gradient);
      if (!Number.isFinite(value)) return Infinity;
      kernelGradient.fill(0);
      const prior = space.logPrior(t.subarray(0, d + 2), kernelGradient) + warpLogPrior(t.subarray(d + 2), gradient.subarray(d + 2));
      for (let p = 0; p < d + 2; p++) gradient[p] += kernelGradient[p];
      for (let i = 0; i < gradient.length; i++) gradient[i] = -gradient[i] / n;
      return -(value + prior) / n;
    };
    const run = minimizeBounded(objective, start, { lower: this.lower, upper: this.upper, maxIterations, ...(memory ? { memory } : {}) });
    const x = Float64Array.from(run.x);
    const fit = { theta: x.slice(0, d + 2), warp: warpFromTheta(x.subarray(d + 2), d), logPosterior: -n * run.value };
    return { fit, x, memory: run.memory, converged: run.converged };
  }
}
