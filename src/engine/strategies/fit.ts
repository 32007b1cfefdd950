import { fitHyperparameters } from '../gp/fit.js';
import type { GpHyperparameters } from '../gp/priors.js';
import type { FitRequest } from './types.js';

/** Runs one planned fit: MAP hyperparameters of one output, or of several sharing them (gp/fit.ts). Pure; safe on any thread. */
export function fitModel(request: FitRequest): GpHyperparameters {
  return fitHyperparameters(request.X, request.y, request.n, request.d, {
    seed: request.seed,
    restarts: request.restarts,
    maxIterations: request.maxIterations,
    initial: request.initial,
    ...(request.noise !== undefined ? { noise: request.noise } : {}),
    ...(request.outputs !== undefined ? { outputs: request.outputs } : {}),
    ...(request.exact ? { exact: true } : {}),
  }).hyperparameters;
}
