import type { Random } from '../random.js';
import type { InputWarp } from './warp.js';

/**
 * Hyperparameter priors, bounds and the log-space parameter vector θ = [log l_1..d, log s²,
 * log σ²] the optimizer works on. The choices follow BoTorch's dimension-scaled defaults
 * (botorch.models.utils.gpytorch_modules.get_covar_module_with_dim_scaled_prior and
 * get_gaussian_likelihood_with_lognormal_prior), which implement Hvarfner, Hellsten & Nardi,
 * "Vanilla Bayesian Optimization Performs Great in High Dimensions" (ICML 2024):
 *
 * - lengthscales: LogNormal(√2 + ½ log d, √3), bounded below by 0.025. The location grows with
 *   the dimension so that a 50-dimensional model does not start out assuming every input matters
 *   at the scale a 2-dimensional one would (the failure of the older Gamma(3, 6) prior).
 * - output scale s²: Gamma(2, 0.15), BoTorch's ScaleKernel default: weak on standardized data.
 * - noise variance σ²: LogNormal(−4, 1), floored at NOISE_FLOOR.
 *
 * As in GPyTorch, the log densities are of the parameters themselves (no Jacobian of the log
 * transform), so the fit is the same MAP estimate BoTorch computes.
 */

/** One output's hyperparameters, in standardized-output units. */
export interface GpHyperparameters {
  /** length d */
  lengthscales: Float64Array;
  outputScale: number;
  noise: number;
  /** the inputs' warp (warp.ts); absent: the inputs as they are (lengthscales are in warped units) */
  warp?: InputWarp;
}

/** GpHyperparameters as plain JSON, the form campaign states keep (states from before warping have no `warp`). */
export interface SerializedHyperparameters {
  lengthscales: number[];
  outputScale: number;
  noise: number;
  warp?: { a: number[]; b: number[] };
}

export function serializeHyperparameters(h: GpHyperparameters): SerializedHyperparameters {
  return {
    lengthscales: Array.from(h.lengthscales),
    outputScale: h.outputScale,
    noise: h.noise,
    ...(h.warp ? { warp: { a: Array.from(h.warp.a), b: Array.from(h.warp.b) } } : {}),
  };
}

export function deserializeHyperparameters(h: SerializedHyperparameters): GpHyperparameters {
  return {
    lengthscales: Float64Array.from(h.lengthscales),
    outputScale: h.outputScale,
    noise: h.noise,
    ...(h.warp ? { warp: { a: Float64Array.from(h.warp.a), b: Float64Array.from(h.warp.b) } } : {}),
  };
}

/** A copy of h (its arrays copied too). */
export function copyHyperparameters(h: GpHyperparameters): GpHyperparameters {
  return deserializeHyperparameters(serializeHyperparameters(h));
}

/**
 * Smallest noise variance, in standardized-output units (BoTorch's MIN_INFERRED_NOISE_LEVEL). It
 * bounds κ(K) ≤ λ_max/1e-4, which float64 (the dense path, n ≤ 256) resolves with digits to spare.
 * A float32 Cholesky does not: its rounding perturbs K in proportion to ‖K‖ ≈ λ_max, which grows
 * with n and with smoothness, so no absolute floor fits every data set. The tensor path (n > 256)
 * therefore adds a floor relative to λ_max (tensor-covariance.ts, CONDITIONING_FLOOR).
 */
export const NOISE_FLOOR = 1e-4;

/**
 * Largest noise variance, in standardized-output units, of an objective known to be exact (its
 * repeated measurements agree, or its evaluator is a function without noise): a function the
 * kernel follows poorly otherwise fits its misfit as noise (C3-DTLZ4 fitted 85 % of a noiseless
 * objective's variance so), and a model that calls an exact function mostly noise ranks
 * candidates on its prior. Capped at 10 %, the misfit has to go into the kernel (shorter
 * lengthscales, or a warp). A tighter cap (1 %) forced misfit that exact functions do fit as
 * noise (1–10 % on DTLZ2 with 4 objectives) into short lengthscales: DTLZ2 m = 4, d = 13 fell
 * from 34.0 to 25.8 % of the maximum at 90 evaluations (seeds 1–5), and every cap from 10 % up
 * gave the uncapped result there; DTLZ4 m = 3, d = 7 at 300 averaged 61.4 % under 1 % and 70.5 %
 * under 10 % (seeds 1–5; 44.6 and 38.2 % at 90 evaluations), and C3-DTLZ4's seed that fitted
 * 85 % reached 83.1 and 78.1 %.
 */
export const EXACT_NOISE_MAX = 0.1;

const LENGTHSCALE_MIN = 0.025;
const LENGTHSCALE_MAX = 1e3;
const OUTPUT_SCALE_MIN = 1e-2;
const OUTPUT_SCALE_MAX = 1e2;
const NOISE_MAX = 4;

const LENGTHSCALE_PRIOR_SCALE = Math.sqrt(3);
/** The Gamma density below assumes this shape (log Γ(2) = 0). */
const OUTPUT_SCALE_SHAPE = 2;
const OUTPUT_SCALE_RATE = 0.15;
const NOISE_PRIOR_LOC = -4;
const NOISE_PRIOR_SCALE = 1;

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Box constraints, default start and prior density of θ for a d-input model. */
export class HyperparameterSpace {
  readonly size: number;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  private readonly lengthscaleLoc: number;

  constructor(readonly d: number) {
    this.size = d + 2;
    this.lengthscaleLoc = Math.SQRT2 + 0.5 * Math.log(d);
    this.lower = new Float64Array(this.size);
    this.upper = new Float64Array(this.size);
    this.lower.fill(Math.log(LENGTHSCALE_MIN), 0, d);
    this.upper.fill(Math.log(LENGTHSCALE_MAX), 0, d);
    this.lower[d] = Math.log(OUTPUT_SCALE_MIN);
    this.upper[d] = Math.log(OUTPUT_SCALE_MAX);
    this.lower[d + 1] = Math.log(NOISE_FLOOR);
    this.upper[d + 1] = Math.log(NOISE_MAX);
  }

  /** Holds the noise variance at `noise` (raised to NOISE_FLOOR, capped at the usual upper bound): a known noise is not estimated. */
  fixNoise(noise: number): void {
    const log = Math.log(Math.min(NOISE_MAX, Math.max(NOISE_FLOOR, noise)));
    this.lower[this.d + 1] = log;
    this.upper[this.d + 1] = log;
  }

  /** Caps the noise variance at EXACT_NOISE_MAX: the measurements are known to be exact. */
  boundNoiseAsExact(): void {
    const log = Math.log(EXACT_NOISE_MAX);
    this.upper[this.d + 1] = Math.min(this.upper[this.d + 1], log);
    this.lower[this.d + 1] = Math.min(this.lower[this.d + 1], log);
  }

  /** BoTorch's initial values: lengthscales and noise at their prior modes, s² = 1. */
  defaultTheta(): Float64Array {
    const theta = new Float64Array(this.size);
    const mode = this.lengthscaleLoc - LENGTHSCALE_PRIOR_SCALE * LENGTHSCALE_PRIOR_SCALE;
    theta.fill(mode, 0, this.d);
    theta[this.d] = 0;
    theta[this.d + 1] = NOISE_PRIOR_LOC - NOISE_PRIOR_SCALE * NOISE_PRIOR_SCALE;
    return this.clip(theta);
  }

  /** A random start: lengthscales and noise from their priors, log s² from N(0, 1), clipped. */
  sampleTheta(random: Random): Float64Array {
    const theta = new Float64Array(this.size);
    for (let i = 0; i < this.d; i++) theta[i] = this.lengthscaleLoc + LENGTHSCALE_PRIOR_SCALE * random.normal();
    theta[this.d] = random.normal();
    theta[this.d + 1] = NOISE_PRIOR_LOC + NOISE_PRIOR_SCALE * random.normal();
    return this.clip(theta);
  }

  /** θ projected onto the box (a copy). */
  clip(theta: ArrayLike<number>): Float64Array {
    const out = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) out[i] = Math.min(this.upper[i], Math.max(this.lower[i], theta[i]));
    return out;
  }

  /**
   * Log prior density at θ; when `gradient` (length d + 2) is given, ∂/∂θ is ADDED to it.
   */
  logPrior(theta: Float64Array, gradient?: Float64Array): number {
    const d = this.d;
    let total = 0;
    for (let i = 0; i < d; i++) {
      total += logNormalLogDensity(theta[i], this.lengthscaleLoc, LENGTHSCALE_PRIOR_SCALE);
      if (gradient) gradient[i] += logNormalLogDensityGradient(theta[i], this.lengthscaleLoc, LENGTHSCALE_PRIOR_SCALE);
    }
    const s2 = Math.exp(theta[d]);
    total += gammaLogDensity(theta[d], s2, OUTPUT_SCALE_SHAPE, OUTPUT_SCALE_RATE);
    if (gradient) gradient[d] += OUTPUT_SCALE_SHAPE - 1 - OUTPUT_SCALE_RATE * s2;
    total += logNormalLogDensity(theta[d + 1], NOISE_PRIOR_LOC, NOISE_PRIOR_SCALE);
    if (gradient) gradient[d + 1] += logNormalLogDensityGradient(theta[d + 1], NOISE_PRIOR_LOC, NOISE_PRIOR_SCALE);
    return total;
  }

  toTheta(h: GpHyperparameters): Float64Array {
    if (h.lengthscales.length !== this.d) {
      throw new Error(`Kiln: hyperparameters have ${h.lengthscales.length} lengthscales for a ${this.d}-input model.`);
    }
    const theta = new Float64Array(this.size);
    for (let i = 0; i < this.d; i++) theta[i] = Math.log(h.lengthscales[i]);
    theta[this.d] = Math.log(h.outputScale);
    theta[this.d + 1] = Math.log(h.noise);
    return theta;
  }

  fromTheta(theta: Float64Array): GpHyperparameters {
    const lengthscales = new Float64Array(this.d);
    for (let i = 0; i < this.d; i++) lengthscales[i] = Math.exp(theta[i]);
    return { lengthscales, outputScale: Math.exp(theta[this.d]), noise: Math.exp(theta[this.d + 1]) };
  }
}

/** log of the LogNormal(μ, σ) density of v = e^t: −t − log(σ√2π) − (t − μ)²/(2σ²). */
function logNormalLogDensity(t: number, mu: number, sigma: number): number {
  const z = (t - mu) / sigma;
  return -t - Math.log(sigma) - LOG_SQRT_2PI - 0.5 * z * z;
}

function logNormalLogDensityGradient(t: number, mu: number, sigma: number): number {
  return -1 - (t - mu) / (sigma * sigma);
}

/** log of the Gamma(2, rate b) density of v = e^t (log Γ(2) = 0). */
function gammaLogDensity(t: number, v: number, a: number, b: number): number {
  return a * Math.log(b) + (a - 1) * t - b * v;
}
