import type { Random } from '../random.js';
import type { AcquisitionFunction } from './types.js';

/** Weight of the linear term of the augmented Chebyshev scalarization (Knowles 2006 uses 0.05). */
const RHO = 0.05;

/**
 * ParEGO (Knowles 2006): a random weight vector turns the objectives into one augmented Chebyshev
 * scalarization s(y) = max_j w_j ŷ_j + ρ Σ_j w_j ŷ_j over objectives normalized to the observed
 * range; the acquisition is the expected improvement of s over its best observed value. As in
 * BoTorch's qParEGO, the expectation is taken by Monte Carlo over the independent GP posteriors
 * instead of fitting a separate GP to scalarized data, so one surrogate serves every weight.
 */
export class ParegoAcquisition implements AcquisitionFunction {
  readonly name = 'parego';
  private readonly weights: Float64Array;
  private readonly lower: Float64Array;
  private readonly scale: Float64Array;
  private readonly best: number;
  private readonly base: Float64Array;

  /**
   * Y: `n x m` observed minimization-space objectives (n >= 1); weights drawn uniformly from the
   * simplex with `random`; samples: Monte Carlo draws per candidate.
   */
  constructor(
    Y: Float64Array,
    n: number,
    readonly m: number,
    random: Random,
    private readonly samples: number,
  ) {
    this.weights = simplexWeights(m, random);
    this.lower = new Float64Array(m).fill(Infinity);
    const upper = new Float64Array(m).fill(-Infinity);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        this.lower[j] = Math.min(this.lower[j], Y[i * m + j]);
        upper[j] = Math.max(upper[j], Y[i * m + j]);
      }
    }
    this.scale = Float64Array.from(upper, (u, j) => (u - this.lower[j] > 0 ? 1 / (u - this.lower[j]) : 1));
    let best = Infinity;
    for (let i = 0; i < n; i++) best = Math.min(best, this.scalarize(Y, i * m));
    this.best = best;
    this.base = new Float64Array(samples * m);
    for (let k = 0; k < this.base.length; k++) this.base[k] = random.normal();
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number): Float64Array {
    const { m, samples } = this;
    const out = new Float64Array(q);
    const y = new Float64Array(m);
    for (let i = 0; i < q; i++) {
      let sum = 0;
      for (let s = 0; s < samples; s++) {
        for (let j = 0; j < m; j++) y[j] = mean[i * m + j] + std[i * m + j] * this.base[s * m + j];
        const improvement = this.best - this.scalarize(y, 0);
        if (improvement > 0) sum += improvement;
      }
      out[i] = sum / samples;
    }
    return out;
  }

  private scalarize(y: ArrayLike<number>, offset: number): number {
    let max = -Infinity;
    let sum = 0;
    for (let j = 0; j < this.m; j++) {
      const v = this.weights[j] * (y[offset + j] - this.lower[j]) * this.scale[j];
      if (v > max) max = v;
      sum += v;
    }
    return max + RHO * sum;
  }
}

/** A uniform draw from the unit simplex (normalized exponential variates). */
function simplexWeights(m: number, random: Random): Float64Array {
  const w = Float64Array.from({ length: m }, () => -Math.log(1 - random.uniform()));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / total);
}
