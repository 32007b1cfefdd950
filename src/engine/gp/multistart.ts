import { Random } from '../random.js';
import { minimizeBounded, type LbfgsMemory, type LbfgsResult } from './lbfgs.js';
import type { GpHyperparameters, HyperparameterSpace } from './priors.js';

/**
 * Multi-start MAP estimation of GP hyperparameters: candidate starts are screened by their
 * posterior density (a factorization each, no gradient), and bounded L-BFGS runs from the warm
 * start (when given), BoTorch's default start and the best screened random draws from the prior;
 * after a short probe of each, the best continues to convergence. The objective is the negative
 * log posterior divided by n, as in BoTorch's ExactMarginalLogLikelihood, so the tolerances mean
 * the same at every data size.
 */

/** log p(y | θ); fills `gradient` (∂/∂θ) when given; NaN when the covariance cannot be factorized. */
export type LogLikelihood = (theta: Float64Array, gradient?: Float64Array) => number;

export interface MultiStartOptions {
  seed: number;
  /** L-BFGS starts (default 3, or 2 with a warm start) */
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
/** Iterations each start gets before all but the best are dropped. */
const PROBE_ITERATIONS = 12;

export function multiStartFit(logLikelihood: LogLikelihood, n: number, space: HyperparameterSpace, options: MultiStartOptions): FitResult {
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
  // The default start gets the next run; the rest go to the best-scoring random draws. A warm
  // start that fills every run needs neither (a refit's usual case: no factorization is wasted).
  if (starts.length < runs) {
    const screened = [space.defaultTheta()];
    for (let i = 0; i < SCREENED_PER_RUN * runs; i++) screened.push(space.sampleTheta(random));
    const scores = screened.map((theta) => finiteOr(logPosterior(theta), -Infinity));
    starts.push(screened[0]);
    const order = scores
      .map((score, index) => ({ score, index }))
      .slice(1)
      .sort((a, b) => b.score - a.score || a.index - b.index);
    for (const { index } of order) {
      if (starts.length >= runs) break;
      starts.push(screened[index]);
    }
  }

  const objective = (theta: Float64Array, gradient: Float64Array): number => {
    const value = logPosterior(theta, gradient);
    for (let i = 0; i < gradient.length; i++) gradient[i] = -gradient[i] / n;
    return Number.isFinite(value) ? -value / n : Infinity;
  };
  const bounds = { lower: space.lower, upper: space.upper };
  // Successive halving: every start gets a short probe, and only the best probe runs on to
  // convergence, so the extra starts cost a few iterations each rather than a full run.
  let best: LbfgsResult | null = null;
  for (const start of starts.slice(0, runs)) {
    const probe = minimizeBounded(objective, start, { ...bounds, maxIterations: Math.min(PROBE_ITERATIONS, maxIterations) });
    if (Number.isFinite(probe.value) && (best === null || probe.value < best.value)) best = probe;
  }
  if (best === null) {
    throw new Error('Kiln: every hyperparameter start gave a covariance that cannot be factorized; ' + 'check the training data for NaN or infinite values.');
  }
  if (!best.converged && best.iterations < maxIterations) {
    const rest = minimizeBounded(objective, best.x, { ...bounds, maxIterations: maxIterations - best.iterations, memory: best.memory });
    if (Number.isFinite(rest.value) && rest.value <= best.value) best = rest;
  }
  const theta = Float64Array.from(best.x);
  return {
    hyperparameters: space.fromTheta(theta),
    theta,
    logMarginalLikelihood: -n * best.value - space.logPrior(theta),
    memory: best.memory,
    evaluations,
  };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}
