import { hypervolumeImprovements } from '../hypervolume.js';
import { paretoIndices } from '../pareto.js';
import type { Random } from '../random.js';
import type { AcquisitionFunction } from './types.js';

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
    this.samples = samples + (samples % 2);
    this.base = new Float64Array(this.samples * m);
    for (let s = 0; s < this.samples; s += 2) {
      for (let j = 0; j < m; j++) {
        const z = random.normal();
        this.base[s * m + j] = z;
        this.base[(s + 1) * m + j] = -z;
      }
    }
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const { m, samples } = this;
    const draws = new Float64Array(q * samples * m);
    for (let i = 0; i < q; i++) {
      for (let s = 0; s < samples; s++) {
        const row = (i * samples + s) * m;
        for (let j = 0; j < m; j++) draws[row + j] = mean[i * m + j] + std[i * m + j] * this.base[s * m + j];
      }
    }
    const hvi = hypervolumeImprovements(this.front, this.n, m, this.ref, draws, q * samples);
    const out = new Float64Array(q);
    for (let i = 0; i < q; i++) {
      let sum = 0;
      for (let s = 0; s < samples; s++) sum += hvi[i * samples + s];
      out[i] = sum / samples;
    }
    return out;
  }
}
