import { NondominatedBoxes } from '../hypervolume-boxes.js';
import { TensorBoxImprovements } from '../hypervolume-boxes-tensor.js';
import type { Random } from '../random.js';
import { antitheticNormals, monteCarloDraws, sampleMeans } from './mc-ehvi.js';
import type { AcquisitionFunction } from './types.js';

/**
 * Monte Carlo expected hypervolume improvement with every sample's improvement exact at any
 * objective count and front size, on the tensor backend: the non-dominated region is cut into
 * disjoint boxes once (hypervolume-boxes.ts) and every draw of every candidate is scored against
 * all of them in one batched computation (hypervolume-boxes-tensor.ts), where the CPU path
 * (mc-ehvi.ts) estimates the improvement by random scalarizations beyond a front of 50 points at
 * four objectives and from five on. It is what a GPU affords: the boxes grow like n^⌊m/2⌋ (7,000
 * at 200 points in five objectives), so the batch proposes where a sample count times the boxes
 * costs milliseconds (proposeBatch takes it when the compute scale is 2 or more). Same common
 * random numbers as the CPU path, so the two rank alike where both are exact.
 */
export class TensorMonteCarloEhvi implements AcquisitionFunction {
  readonly name = 'mc-ehvi';
  private readonly base: Float64Array;
  private readonly samples: number;
  private readonly improvements: TensorBoxImprovements;

  /** front: `n x m` minimization-space objectives; ref: length m; samples: draws per candidate (rounded up to even). */
  constructor(front: Float64Array, n: number, m: number, ref: ArrayLike<number>, samples: number, random: Random) {
    this.base = antitheticNormals(samples, m, random);
    this.samples = this.base.length / m;
    this.improvements = new TensorBoxImprovements(new NondominatedBoxes(front, n, m, ref));
    this.m = m;
  }

  readonly m: number;

  async evaluate(mean: Float64Array, std: Float64Array, q: number): Promise<Float64Array> {
    const draws = monteCarloDraws(mean, std, q, this.base, this.m);
    return sampleMeans(await this.improvements.improvements(draws, q * this.samples), q, this.samples);
  }

  dispose(): void {
    this.improvements.dispose();
  }
}
