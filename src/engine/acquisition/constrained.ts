import { normalCdf } from '../normal.js';
import type { AcquisitionFunction } from './types.js';

/**
 * Constrained acquisition (Gardner et al. 2014; Gelbart, Snoek & Adams 2014): the objective
 * acquisition times the probability that every modelled constraint holds, each constraint an
 * independent GP on a slack that is ≥ 0 where it holds (outcome constraints; the failure
 * model reports Φ⁻¹ of its probability of success with std 1, so it reads the same way). Without an objective acquisition (no feasible point observed
 * yet) the value is the probability of feasibility alone, which seeks feasibility first.
 *
 * mean, std: `q x (m + c)` row-major, the m objectives first, then the c slacks.
 */
export class ConstrainedAcquisition implements AcquisitionFunction {
  readonly name: string;
  readonly joint: AcquisitionFunction['joint'];

  constructor(
    private readonly objective: AcquisitionFunction | null,
    private readonly m: number,
    private readonly c: number,
  ) {
    this.name = objective ? `constrained ${objective.name}` : 'probability of feasibility';
    // the objective's joint points are over the objectives, the first outputs, so its cross covariance passes through as it comes
    this.joint = objective?.joint;
  }

  dispose(): void {
    this.objective?.dispose?.();
  }

  async evaluate(mean: Float64Array, std: Float64Array, q: number, cross?: Float64Array): Promise<Float64Array> {
    const width = this.m + this.c;
    const out = new Float64Array(q).fill(1);
    if (this.objective) {
      const objectiveMean = new Float64Array(q * this.m);
      const objectiveStd = new Float64Array(q * this.m);
      for (let i = 0; i < q; i++) {
        for (let j = 0; j < this.m; j++) {
          objectiveMean[i * this.m + j] = mean[i * width + j];
          objectiveStd[i * this.m + j] = std[i * width + j];
        }
      }
      out.set(await this.objective.evaluate(objectiveMean, objectiveStd, q, cross));
    }
    for (let i = 0; i < q; i++) {
      for (let k = this.m; k < width; k++) {
        const s = std[i * width + k];
        const mu = mean[i * width + k];
        out[i] *= s > 0 ? normalCdf(mu / s) : mu >= 0 ? 1 : 0;
      }
    }
    return out;
  }
}
