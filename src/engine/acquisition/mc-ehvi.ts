import { hypervolumeImprovements } from '../hypervolume.js';
import { exactImprovement, ScalarizedImprovement } from '../hypervolume-scalarized.js';
import { paretoIndices } from '../pareto.js';
import type { Random } from '../random.js';
import type { AcquisitionFunction } from './types.js';

/**
 * The random-scalarization estimate's directions, and how many of them each Monte Carlo sample
 * takes (sample s the 16 from 16 s on, cyclically, so 128 samples use each direction 8 times). On
 * DTLZ2-like fronts of 30 and 100 points at m = 4 to 6, the estimate with 128 samples ranks
 * candidates like the exact improvements do to a rank correlation of 0.90 to 0.96, as with all
 * 256 directions per sample (0.93 to 0.98) at a sixteenth of the cost.
 */
const SCALARIZATION_DIRECTIONS = 256;
const DIRECTIONS_PER_SAMPLE = 16;

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
 * Bakshy 2020, "Differentiable Expected Hypervolume Improvement", here without gradients).
 *
 * The base samples are drawn once and reused for every candidate (common random numbers), so the
 * estimate is a deterministic, smooth-ish function of the posterior that CMA-ES can rank;
 * antithetic pairs halve the variance of the mean term for free.
 */
export class MonteCarloEhvi implements AcquisitionFunction {
  readonly name = 'mc-ehvi';
  private readonly front: Float64Array;
  private readonly n: number;
  private readonly base: Float64Array;
  private readonly samples: number;
  private readonly scalarized: ScalarizedImprovement | null;

  /**
   * front: `n x m` minimization-space objectives; ref: length m; samples: Monte Carlo draws per
   * candidate (rounded up to even).
   */
  constructor(
    front: Float64Array,
    n: number,
    readonly m: number,
    private readonly ref: ArrayLike<number>,
    samples: number,
    random: Random,
  ) {
    const keep = Array.from(paretoIndices(front, n, m)).filter((i) => Array.from({ length: m }, (_, j) => front[i * m + j] < ref[j]).every(Boolean));
    this.n = keep.length;
    this.front = new Float64Array(this.n * m);
    keep.forEach((i, k) => this.front.set(front.subarray(i * m, i * m + m), k * m));
    this.scalarized = !exactImprovement(m, this.n) ? new ScalarizedImprovement(this.front, this.n, m, ref, SCALARIZATION_DIRECTIONS, random) : null;
    this.base = antitheticNormals(samples, m, random);
    this.samples = this.base.length / m;
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const { m, samples } = this;
    const draws = monteCarloDraws(mean, std, q, this.base, m);
    const hvi = this.scalarized ? this.sampledEstimates(draws, q) : hypervolumeImprovements(this.front, this.n, m, this.ref, draws, q * samples);
    return sampleMeans(hvi, q, samples);
  }

  /** The scalarized estimate for each of the `q x samples` draws, each over its sample's share of the directions. */
  private sampledEstimates(draws: Float64Array, q: number): Float64Array {
    const { m, samples } = this;
    const out = new Float64Array(q * samples);
    for (let i = 0; i < q; i++) {
      for (let s = 0; s < samples; s++) {
        const row = i * samples + s;
        out[row] = this.scalarized!.improvement(draws, row * m, s * DIRECTIONS_PER_SAMPLE, DIRECTIONS_PER_SAMPLE);
      }
    }
    return out;
  }
}
