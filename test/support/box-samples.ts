/**
 * Monte Carlo samples as EHVI draws them, for the box-decomposition tests and benchmark: per
 * candidate (a random front point scaled by a factor uniform in [0.9, 1.1], so about half of them
 * improve the front) `samples` rows of that mean plus normal noise of sd `sd` in every objective.
 */
import { Random } from '../../src/engine/random.js';

/** `(candidates · samples) x m` row-major, the samples of one candidate consecutive. */
export function samplesNearFront(front: Float64Array, n: number, m: number, candidates: number, samples: number, sd: number, seed: number): Float64Array {
  const random = new Random(seed);
  const out = new Float64Array(candidates * samples * m);
  const mean = new Float64Array(m);
  for (let c = 0; c < candidates; c++) {
    const row = Math.floor(random.uniform() * n);
    const factor = 0.9 + 0.2 * random.uniform();
    for (let j = 0; j < m; j++) mean[j] = front[row * m + j] * factor;
    for (let s = 0; s < samples; s++) {
      for (let j = 0; j < m; j++) out[(c * samples + s) * m + j] = mean[j] + sd * random.normal();
    }
  }
  return out;
}
