import { Random } from '../random.js';
import { minimizeBounded, type LbfgsMemory } from './lbfgs.js';
import { DenseLikelihood } from './likelihood.js';
import { DEFAULT_BLOCK_SIZE } from './linalg.js';
import { multiStartFit } from './multistart.js';
import { HyperparameterSpace, type GpHyperparameters } from './priors.js';
import { TensorLikelihood } from './tensor-likelihood.js';
import { warpInputs, type InputWarp } from './warp.js';
import { fitWarp, warpEligible } from './warp-fit.js';

/**
 * Hyperparameter fitting for one output, sized to the data:
 *
 * - up to DENSE_LIMIT points: multi-start MAP (multistart.ts) on all data in float64, where one
 *   likelihood evaluation with its gradient takes about a millisecond at n ≈ 100;
 * - beyond: the same multi-start fit on a random subset of DENSE_LIMIT points, then bounded
 *   L-BFGS continued on nested random subsets about four times larger, ending with all the
 *   data, each stage on the tensor likelihood and started from the previous optimum with its
 *   curvature pairs (the objective is per point, so curvature carries over between sizes). The
 *   evaluations allowed per stage shrink as s³ grows, so the cost stays bounded at large n while
 *   the hyperparameters see every point at the end (up to n ≈ 2700). The reported noise is then
 *   the one the tensor model really uses: σ² plus its conditioning floor (tensor-covariance.ts);
 * - a refit beyond DENSE_LIMIT with a warm start (the previous batch's fit): the full-data stage
 *   alone, from the warm start (refitWarm).
 *
 * Input warping (warp.ts, warp-fit.ts) is decided in the dense stage: the warped fit is kept
 * where its log posterior beats the unwarped one by a margin, every fit (a warm start's warp is
 * the trial's start); the tensor stages, and a warm refit beyond DENSE_LIMIT, keep the warp they
 * start with and refine the kernel on warped inputs.
 */

/** Largest n fitted entirely in float64 JavaScript (and the first-stage subset size beyond). */
export const DENSE_LIMIT = 256;

/**
 * Evaluations of a tensor stage on s points: STAGE_BUDGET / s³ (an evaluation costs ~(4/3)s³
 * flops), at least MIN_STAGE_EVALUATIONS (one L-BFGS step) and at most MAX_STAGE_EVALUATIONS; a
 * stage whose share is below one evaluation is skipped, so beyond n ≈ 2700 the model is built on
 * all points with hyperparameters fitted on a 1024-point subset.
 */
const STAGE_BUDGET = 2e10;
const MIN_STAGE_EVALUATIONS = 2;
const MAX_STAGE_EVALUATIONS = 60;
/**
 * Relative objective decrease that ends a tensor stage: the float32-assisted objective resolves
 * about 1e-7 (per point); an intermediate stage only has to hand a good start to the next.
 */
const FINAL_STAGE_TOLERANCE = 1e-7;
const INTERMEDIATE_STAGE_TOLERANCE = 1e-6;

export interface FitSettings {
  seed: number;
  restarts?: number;
  maxIterations?: number;
  initial?: GpHyperparameters;
  /** diagonal block width of the blocked Cholesky (tests use small blocks) */
  blockSize?: number;
  /**
   * Replace the staged schedule by one full-data stage with this many evaluations after the
   * subset fit: the exhaustive comparison the gp benchmark measures the schedule against.
   */
  fullDataEvaluations?: number;
  /**
   * A known noise variance (standardized units, e.g. from a declared measurement sd): the fit
   * holds it fixed instead of estimating it. Raised to NOISE_FLOOR.
   */
  noise?: number;
  /**
   * Columns of y (`n x outputs` row-major, each standardized) that share one set of
   * hyperparameters, fitted on the sum of their log likelihoods (likelihood.ts); default 1.
   * Several outputs are fitted in float64 only, so n may not exceed DENSE_LIMIT.
   */
  outputs?: number;
  /** try an input warp where warp-fit.ts allows one (default true) */
  warp?: boolean;
  /**
   * The measurements are known to be exact (repeats agree, or a noiseless function): the noise
   * variance is capped at EXACT_NOISE_MAX (priors.ts). Ignored when `noise` is given.
   */
  exact?: boolean;
}

export interface FitOutcome {
  hyperparameters: GpHyperparameters;
  /** data sizes of the stages run, the last being n */
  stages: number[];
  /** likelihood evaluations over all stages */
  evaluations: number;
}

/**
 * MAP hyperparameters of a Matern-5/2 ARD GP.
 * X: `n x d` row-major inputs (in [0, 1]); y: length-n standardized outputs (`n x outputs` with
 * settings.outputs).
 */
export function fitHyperparameters(X: Float64Array, y: Float64Array, n: number, d: number, settings: FitSettings): FitOutcome {
  const outputs = settings.outputs ?? 1;
  if (outputs > 1) return fitShared(X, y, n, d, outputs, settings);
  const space = new HyperparameterSpace(d);
  if (settings.noise !== undefined) space.fixNoise(settings.noise);
  else if (settings.exact) space.boundNoiseAsExact();
  const maxIterations = settings.maxIterations ?? 200;
  const random = new Random(settings.seed);
  const startSeed = random.seed();
  const exhaustive = settings.fullDataEvaluations !== undefined && n > DENSE_LIMIT;
  if (settings.initial && n > DENSE_LIMIT && !exhaustive) return refitWarm(X, y, n, d, space, settings.initial, maxIterations, settings.blockSize);
  const sizes = exhaustive ? [DENSE_LIMIT, n] : stageSizes(n);
  const order = Int32Array.from({ length: n }, (_, i) => i);
  if (sizes.length > 1) random.shuffle(order);

  const first = sizes[0] === n ? { X, y } : subset(X, y, d, order, sizes[0]);
  const dense = new DenseLikelihood(first.X, first.y, sizes[0], d);
  const start = multiStartFit((t, g) => dense.evaluate(t, g), sizes[0], space, {
    seed: startSeed,
    restarts: settings.restarts,
    maxIterations,
    initial: settings.initial,
  });
  let theta = start.theta;
  let memory: LbfgsMemory | undefined = start.memory;
  let evaluations = start.evaluations;
  let warp: InputWarp | undefined;
  if (settings.warp !== false && warpEligible(sizes[0], d)) {
    const logPosterior = start.logMarginalLikelihood + space.logPrior(theta);
    // a warm start that kept a warp tries it again from where it was, against this unwarped fit
    const warm = settings.initial?.warp?.a.length === d ? { theta: space.clip(space.toTheta(settings.initial)), warp: settings.initial.warp } : undefined;
    const trial = fitWarp(first.X, first.y, sizes[0], d, space, theta, logPosterior, maxIterations, warm);
    evaluations += trial.evaluations;
    if (trial.warped) {
      ({ theta, warp } = trial.warped);
      // the curvature pairs were of the unwarped θ: the tensor stages start afresh
      memory = undefined;
    }
  }
  let noise = Math.exp(theta[d + 1]);
  const inputs = warp ? warpInputs(X, n, d, warp) : X;

  for (const size of sizes.slice(1)) {
    const part = size === n ? { X: inputs, y } : subset(inputs, y, d, order, size);
    const likelihood = new TensorLikelihood(part.X, part.y, size, d, settings.blockSize ?? DEFAULT_BLOCK_SIZE);
    const maxEvaluations = exhaustive ? (settings.fullDataEvaluations as number) : stageEvaluations(size);
    const stage = tensorStage(likelihood, space, theta, memory, { maxIterations, maxEvaluations, final: size === n });
    evaluations += stage.evaluations;
    theta = stage.theta;
    memory = stage.memory;
    noise = likelihood.effectiveNoise(theta);
  }
  const hyperparameters = space.fromTheta(theta);
  hyperparameters.noise = noise;
  if (warp) hyperparameters.warp = warp;
  return { hyperparameters, stages: sizes, evaluations };
}

/** Evaluations a tensor stage on `size` points may spend (see STAGE_BUDGET). */
function stageEvaluations(size: number): number {
  return Math.max(MIN_STAGE_EVALUATIONS, Math.min(MAX_STAGE_EVALUATIONS, Math.round(STAGE_BUDGET / size ** 3)));
}

/**
 * A refit beyond DENSE_LIMIT with a warm start: the warm start was fitted on nearly all of these
 * points (a campaign refits after each batch), so it is a better start for the full-data stage
 * than a multi-start on a subset, and the subset stage is skipped. The multi-start explored the
 * prior when the model was first fitted; refits follow the optimum as the data grow.
 */
function refitWarm(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  space: HyperparameterSpace,
  initial: GpHyperparameters,
  maxIterations: number,
  blockSize = DEFAULT_BLOCK_SIZE,
): FitOutcome {
  const warp = initial.warp?.a.length === d ? initial.warp : undefined;
  const likelihood = new TensorLikelihood(warp ? warpInputs(X, n, d, warp) : X, y, n, d, blockSize);
  const stage = tensorStage(likelihood, space, space.clip(space.toTheta(initial)), undefined, {
    maxIterations,
    maxEvaluations: stageEvaluations(n),
    final: true,
  });
  const hyperparameters = space.fromTheta(stage.theta);
  hyperparameters.noise = likelihood.effectiveNoise(stage.theta);
  if (warp) hyperparameters.warp = { a: Float64Array.from(warp.a), b: Float64Array.from(warp.b) };
  return { hyperparameters, stages: [n], evaluations: stage.evaluations };
}

/** Bounded L-BFGS on the per-point negative log posterior of one tensor stage, from theta; keeps theta when the stage fails. */
function tensorStage(
  likelihood: TensorLikelihood,
  space: HyperparameterSpace,
  theta: Float64Array,
  memory: LbfgsMemory | undefined,
  limits: { maxIterations: number; maxEvaluations: number; final: boolean },
): { theta: Float64Array; memory: LbfgsMemory | undefined; evaluations: number } {
  const size = likelihood.n;
  let evaluations = 0;
  const run = minimizeBounded(
    (t, gradient) => {
      evaluations++;
      const value = likelihood.evaluate(t, gradient);
      if (!Number.isFinite(value)) return Infinity;
      const logPosterior = value + space.logPrior(t, gradient);
      for (let i = 0; i < gradient.length; i++) gradient[i] = -gradient[i] / size;
      return -logPosterior / size;
    },
    theta,
    {
      lower: space.lower,
      upper: space.upper,
      maxIterations: limits.maxIterations,
      maxEvaluations: limits.maxEvaluations,
      memory,
      relativeTolerance: limits.final ? FINAL_STAGE_TOLERANCE : INTERMEDIATE_STAGE_TOLERANCE,
    },
  );
  if (!Number.isFinite(run.value)) return { theta, memory, evaluations };
  return { theta: Float64Array.from(run.x), memory: run.memory, evaluations };
}

/** One set of hyperparameters for `outputs` columns of y: the multi-start fit on their summed likelihood. */
function fitShared(X: Float64Array, y: Float64Array, n: number, d: number, outputs: number, settings: FitSettings): FitOutcome {
  if (n > DENSE_LIMIT) throw new Error(`Kiln: a shared fit of several outputs takes at most ${DENSE_LIMIT} rows, not ${n}.`);
  const space = new HyperparameterSpace(d);
  if (settings.noise !== undefined) space.fixNoise(settings.noise);
  const dense = new DenseLikelihood(X, y, n, d, outputs);
  // the objective per point and output, so the tolerances mean what they do for one output
  const fit = multiStartFit((t, g) => dense.evaluate(t, g), n * outputs, space, {
    seed: new Random(settings.seed).seed(),
    restarts: settings.restarts,
    maxIterations: settings.maxIterations ?? 200,
    initial: settings.initial,
  });
  return { hyperparameters: fit.hyperparameters, stages: [n], evaluations: fit.evaluations };
}

/**
 * Data sizes of the stages for n points: [n] up to DENSE_LIMIT; otherwise DENSE_LIMIT, then ×4
 * while the next size stays below two thirds of n, then n; tensor stages whose budget is below
 * one evaluation are dropped.
 */
export function stageSizes(n: number): number[] {
  if (n <= DENSE_LIMIT) return [n];
  const sizes = [DENSE_LIMIT];
  for (let next = 4 * DENSE_LIMIT; 1.5 * next <= n; next *= 4) sizes.push(next);
  sizes.push(n);
  return sizes.filter((s, i) => i === 0 || STAGE_BUDGET / s ** 3 >= 1);
}

/** The first `size` points in `order`. X: `n x d` row-major; y: length n. */
function subset(X: Float64Array, y: Float64Array, d: number, order: Int32Array, size: number): { X: Float64Array; y: Float64Array } {
  const Xs = new Float64Array(size * d);
  const ys = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const src = order[i];
    Xs.set(X.subarray(src * d, src * d + d), i * d);
    ys[i] = y[src];
  }
  return { X: Xs, y: ys };
}
