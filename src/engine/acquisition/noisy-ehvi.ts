import { NondominatedBoxes } from '../hypervolume-boxes.js';
import type { Random } from '../random.js';
import { JointGaussian } from './joint-samples.js';
import { antitheticNormals, sampleMeans } from './mc-ehvi.js';
import type { Posterior } from './posterior.js';
import type { AcquisitionFunction } from './types.js';

/** Joint posterior draws per candidate (as BoTorch's qNEHVI default). */
export const NOISY_SAMPLES = 128;

/**
 * Noisy expected hypervolume improvement (qNEHVI with q = 1 per greedy pick; Daulton, Balandat &
 * Bakshy 2021). The front a candidate improves on is itself uncertain when measurements are noisy,
 * so it is not fixed at the measured values nor at the posterior means: each of S draws samples
 * the baseline designs' objectives and the candidate's together from the joint posterior, and the
 * improvement of the candidate's draw over that draw's own front is averaged,
 *
 *   NEHVI(x) = (1/S) Σ_s HVI(f_s(x) | front of {f_s(b) : b ∈ baseline}).
 *
 * The baseline's draws use the same normals for every candidate (common random numbers, in
 * antithetic pairs), so the function is deterministic and smooth enough for CMA-ES; each draw's
 * front is decomposed into boxes once (hypervolume-boxes.ts), exact at every m, and each
 * candidate's draw is conditioned on the baseline's (joint-samples.ts). Cost per candidate: O(m k²)
 * for its factor row plus O(S m k) for its draws plus S box lookups, for k baseline designs.
 */
export class NoisyEhvi implements AcquisitionFunction {
  readonly name = 'nehvi';
  readonly joint: { points: Float64Array; count: number; outputs: number };
  /** per objective, the baseline's normals (`k x samples`) and the candidate's (length samples) */
  private readonly z: Float64Array[];
  private readonly zeta: Float64Array[];
  private readonly samples: number;
  private readonly fronts: NondominatedBoxes[];

  private constructor(
    private readonly gaussian: JointGaussian,
    points: Float64Array,
    readonly m: number,
    ref: readonly number[],
    samples: number,
    random: Random,
  ) {
    const { k } = gaussian;
    this.joint = { points, count: k, outputs: m };
    // one antithetic row per draw: the baseline's normals, then the candidate's
    const width = k * m + m;
    const normals = antitheticNormals(samples, width, random);
    const count = normals.length / width;
    this.samples = count;
    this.z = Array.from({ length: m }, () => new Float64Array(k * count));
    this.zeta = Array.from({ length: m }, () => new Float64Array(count));
    for (let s = 0; s < count; s++) {
      for (let j = 0; j < m; j++) {
        for (let t = 0; t < k; t++) this.z[j][t * count + s] = normals[s * width + t * m + j];
        this.zeta[j][s] = normals[s * width + k * m + j];
      }
    }
    const draws = gaussian.draws(this.z, count);
    this.fronts = Array.from({ length: count }, (_, s) => new NondominatedBoxes(draws.subarray(s * k * m, (s + 1) * k * m), k, m, ref));
  }

  /**
   * The acquisition against the baseline designs `points` (`k x d` encoded): the pruned designs
   * and the batch's picks so far. posterior: its first m outputs are the objectives, in
   * minimization space.
   */
  static async build(
    posterior: Posterior,
    points: Float64Array,
    k: number,
    m: number,
    ref: readonly number[],
    random: Random,
    samples = NOISY_SAMPLES,
  ): Promise<NoisyEhvi> {
    const gaussian = await JointGaussian.at(posterior, points.subarray(0, k * posterior.d), k, m);
    return new NoisyEhvi(gaussian, points.slice(0, k * posterior.d), m, ref, samples, random);
  }

  evaluate(mean: Float64Array, std: Float64Array, q: number, cross?: Float64Array): Float64Array {
    const { m, samples, gaussian } = this;
    const k = gaussian.k;
    if (k > 0 && cross === undefined)
      throw new Error("Kiln: noisy EHVI needs the candidates' covariance with its baseline designs (AcquisitionFunction.joint).");
    const draws = gaussian.conditionalDraws(mean, std, q, cross ?? new Float64Array(0), this.z, this.zeta, samples);
    const hvi = new Float64Array(q * samples);
    for (let s = 0; s < samples; s++) {
      const values = this.fronts[s].improvements(draws.subarray(s * q * m, (s + 1) * q * m), q);
      for (let i = 0; i < q; i++) hvi[i * samples + s] = values[i];
    }
    return sampleMeans(hvi, q, samples);
  }
}
