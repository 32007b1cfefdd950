import { Random } from '../random.js';
import { minimizeBounded, type LbfgsMemory } from './lbfgs.js';
import type { GpHyperparameters, HyperparameterSpace } from './priors.js';

/**
 * Multi-start MAP estimation of GP hyperparameters: candidate starts are screened by their
 * posterior density (a factorization each, no gradient), and bounded L-BFGS runs from the warm
 * start (when given), BoTorch's default start and the best screened random draws from the prior.
 * The best optimum is kept. The objective is the negative log posterior divided by n, as in
 * BoTorch's ExactMarginalLogLikelihood, so the tolerances mean the same at every data size.
 */

/** log p(y | θ); fills `gradient` (∂/∂θ) when given; NaN when the covariance cannot be factorized. */
export type LogLikelihood = (theta: Float64Array, gradient?: Float64Array) => number;

export interface MultiStartOptions {
  seed: number;
  /** L-BFGS runs (default 3, or 2 with a warm start) */
  restarts?: number;
  /** iterations per run (default 200) */
  maxIterations?: number;
  initial?: GpHyperparameters;
}

export interface FitResult {
  hyperparameters: GpHyperparameters;
  theta: Float64Array;
  /** log p(y | θ) at the optimum (standardized outputs, no prior) */
  logMarginalLikelihood: number;
  /** curvature pairs of the winning run, to warm-start a refinement on more data */
  memory: LbfgsMemory;
  /** likelihood evaluations spent, screening included */
  evaluations: number;
}

/** Random candidates screened per L-BFGS run. */
const SCREENED_PER_RUN = 4;

export function multiStartFit(
  logLikelihood: LogLikelihood,
  n: number,
  space: HyperparameterSpace,
  options: MultiStartOptions,
): FitResult {
  const random = new Random(options.seed);
  const warm = options.initial ? space.clip(space.toTheta(options.initial)) : null;
  const runs = Math.max(1, options.restarts ?? (warm ? 2 : 3));
  const maxIterations = options.maxIterations ?? 200;
  let evaluations = 0;

  const logPosterior = (theta: Float64Array, gradient?: Float64Array): number => {
    evaluations++;
    const value = logLikelihood(theta, gradient);
    if (!Number.isFinite(value)) return NaN;
    return value + space.logPrior(theta, gradient);
  };

  const starts: Float64Array[] = [];
  if (warm) starts.push(warm);
  const screened = [space.defaultTheta()];
  for (let i = 0; i < SCREENED_PER_RUN * runs; i++) screened.push(space.sampleTheta(random));
  const scores = screened.map((theta) => finiteOr(logPosterior(theta), -Infinity));
  // The default start always gets a run; the rest go to the best-scoring random draws.
  starts.push(screened[0]);
  const order = scores
    .map((score, index) => ({ score, index }))
    .slice(1)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  for (const { index } of order) {
    if (starts.length >= runs) break;
    starts.push(screened[index]);
  }

  let best: { theta: Float64Array; value: number; memory: LbfgsMemory } | null = null;
  for (const start of starts.slice(0, runs)) {
    const run = minimizeBounded(
      (theta, gradient) => {
        const value = logPosterior(theta, gradient);
        for (let i = 0; i < gradient.length; i++) gradient[i] = -gradient[i] / n;
        return Number.isFinite(value) ? -value / n : Infinity;
      },
      start,
      { lower: space.lower, upper: space.upper, maxIterations },
    );
    if (Number.isFinite(run.value) && (best === null || run.value < best.value)) {
      best = { theta: Float64Array.from(run.x), value: run.value, memory: run.memory };
    }
  }
  if (best === null) {
    throw new Error(
      'Kiln: every hyperparameter start gave a covariance that cannot be factorized; ' +
        'check the training data for NaN or infinite values.',
    );
  }
  const logMarginalLikelihood = logLikelihood(best.theta);
  evaluations++;
  return {
    hyperparameters: space.fromTheta(best.theta),
    theta: best.theta,
    logMarginalLikelihood,
    memory: best.memory,
    evaluations,
  };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}
