import type { Random } from '../random.js';
import { FrontImprovement } from './front-improvement.js';
import type { AcquisitionFunction } from './types.js';

/**
 * Common random numbers for Monte Carlo acquisitions: `samples x m` standard normals (samples
 * rounded up to even), in antithetic pairs z, −z, which halve the variance of the mean term for free.
 */
export function antitheticNormals(samples: number, m: number, random: Random): Float64Array {
  const even = samples + (samples % 2);
  const base = new Float64Array(even * m);
  for (let s = 0; s < even; s += 2) {
    for (let j = 0; j < m; j++) {
      const z = random.normal();
      base[s * m + j] = z;
      base[(s + 1) * m + j] = -z;
    }
  }
  return base;
}

/** Each candidate's draws mean + std·z for every base sample: `q x samples x m`. mean, std: `q x m`; base: `samples x m`. */
export function monteCarloDraws(mean: Float64Array, std: Float64Array, q: number, base: Float64Array, m: number): Float64Array {
  const samples = base.length / m;
  const draws = new Float64Array(q * samples * m);
  for (let i = 0; i < q; i++) {
    for (let s = 0; s < samples; s++) {
      const row = (i * samples + s) * m;
      for (let j = 0; j < m; j++) draws[row + j] = mean[i * m + j] + std[i * m + j] * base[s * m + j];
    }
  }
  return draws;
}

/** The mean of each candidate's `samples` consecutive values. */
export function sampleMeans(values: ArrayLike<number>, q: number, samples: number): Float64Array {
  const out = new Float64Array(q);
  for (let i = 0; i < q; i++) {
    let sum = 0;
    for (let s = 0; s < samples; s++) sum += values[i * samples + s];
    out[i] = sum / samples;
  }
  return out;
}

/**
 * Monte Carlo expected hypervolume improvement for three or more objectives (Daulton, Balandat &
 * Bakshy 2020, "Differentiable Expected Hypervolume Improvement", here without gradients), as
 * front-improvement.ts's rule says: at m = 3 each sample's improvement exact from the WASM kernel;
 * from m = 4, while the front's box decomposition is affordable, the sample mean's limit itself,
 * the expectation of the exact improvement in closed form over the boxes
 * (hypervolume-boxes-expected.ts); beyond, each sample's improvement estimated by random
 * scalarizations.
 *
 * The base samples are drawn once and reused for every candidate (common random numbers), so the
 * estimate is a deterministic, smooth-ish function of the posterior that CMA-ES can rank;
 * antithetic pairs halve the variance of the mean term for free.
 */
export class MonteCarloEhvi implements AcquisitionFunction {
  readonly name = 'mc-ehvi';
  readonly m: number;
  private readonly over: FrontImprovement;
  private readonly base: Float64Array;
  private readonly samples: number;

  /**
   * front: `n x m` minimization-space objectives; ref: length m; samples: Monte Carlo draws per
   * candidate (rounded up to even). `kept`: the front as a batch keeps it (front, n and ref are
   * then not read), so the improvements' structures are not rebuilt for every pick.
   */
  constructor(front: Float64Array, n: number, m: number, ref: ArrayLike<number>, samples: number, random: Random, kept?: FrontImprovement) {
    this.over = kept ?? new FrontImprovement(front, n, m, ref, random);
    this.m = this.over.m;
    this.base = antitheticNormals(samples, this.m, random);
    this.samples = this.base.length / this.m;
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    if (this.over.method === 'boxes') return this.over.expected(mean, std, q);
    const draws = monteCarloDraws(mean, std, q, this.base, this.m);
    return sampleMeans(this.over.improvements(draws, q, this.samples), q, this.samples);
  }
}
