import { paretoMask } from '../pareto.js';
import type { Random } from '../random.js';
import { JointGaussian } from './joint-samples.js';
import type { Posterior } from './posterior.js';

/**
 * Joint posterior draws of the candidate designs from which each one's chance of being on the
 * front is estimated (BoTorch's `prune_inferior_points_multi_objective` takes 2048; the estimate
 * only has to tell zero from not).
 */
export const PRUNING_SAMPLES = 256;

/**
 * The most designs the noisy baseline keeps (the likeliest to be on the front). Each one costs
 * every candidate a row of the conditional factor (O(k) per sample) and every sample's front a
 * point; 40 is above the designs with a positive chance on noisy DTLZ2 at 90 evaluations.
 */
export const BASELINE_MOST = 40;

/**
 * The most designs whose joint posterior is sampled for pruning, after the screen: the
 * covariance's Cholesky costs O(k³) per objective.
 */
const SCREENED_MOST = 200;

/** Standard deviations either side of the mean that bound a design's value for the screen. */
const SCREEN_WIDTH = 3;

export interface Baseline {
  /** `count x d` encoded designs */
  points: Float64Array;
  count: number;
  /** per design kept: the share of posterior draws in which it is on the front */
  probability: Float64Array;
}

/**
 * The designs of a noisy baseline, as qNEHVI prunes it (Daulton, Balandat & Bakshy 2021): those
 * with a positive probability of being on the front, estimated from PRUNING_SAMPLES joint
 * posterior draws of the objectives at the designs (a design counts in a draw when it is strictly
 * below the reference point and no other design's draw dominates it), at most `most` of them,
 * likeliest first. Designs whose whole ±3σ box is dominated by another's are screened out before
 * sampling (their chance is below about 1e-3), as are, beyond SCREENED_MOST, those the most
 * posterior means dominate.
 *
 * X: `n x d` encoded designs (repeated rows are one design); posterior: its first m outputs are
 * the objectives, minimization space.
 */
export async function pruneBaseline(
  posterior: Posterior,
  X: Float64Array,
  n: number,
  m: number,
  ref: readonly number[],
  random: Random,
  most = BASELINE_MOST,
): Promise<Baseline> {
  const d = posterior.d;
  const designs = distinctRows(X, n, d);
  if (designs.length === 0) return { points: new Float64Array(0), count: 0, probability: new Float64Array(0) };
  const points = Float64Array.from(designs.flatMap((i) => Array.from(X.subarray(i * d, (i + 1) * d))));
  const screened = await screen(posterior, points, designs.length, m);
  const pool = Float64Array.from(screened.flatMap((i) => Array.from(points.subarray(i * d, (i + 1) * d))));
  const k = screened.length;
  const gaussian = await JointGaussian.at(posterior, pool, k, m);
  const z = Array.from({ length: m }, () => new Float64Array(k * PRUNING_SAMPLES).map(() => random.normal()));
  const draws = gaussian.draws(z, PRUNING_SAMPLES);
  const hits = new Float64Array(k);
  for (let s = 0; s < PRUNING_SAMPLES; s++) {
    const sample = draws.subarray(s * k * m, (s + 1) * k * m);
    const mask = paretoMask(sample, k, m);
    for (let i = 0; i < k; i++) if (mask[i] && ref.every((r, j) => sample[i * m + j] < r)) hits[i]++;
  }
  const kept = Array.from({ length: k }, (_, i) => i)
    .filter((i) => hits[i] > 0)
    .sort((a, b) => hits[b] - hits[a] || a - b)
    .slice(0, most);
  return {
    points: Float64Array.from(kept.flatMap((i) => Array.from(pool.subarray(i * d, (i + 1) * d)))),
    count: kept.length,
    probability: Float64Array.from(kept, (i) => hits[i] / PRUNING_SAMPLES),
  };
}

/** The first row of each set of identical rows of `n x d` X, in order. */
function distinctRows(X: Float64Array, n: number, d: number): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const key = Array.from(X.subarray(i * d, (i + 1) * d)).join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(i);
  }
  return out;
}

/**
 * Indices of the designs some draw could put on the front: those whose optimistic corner (mean −
 * 3σ) no other design's pessimistic corner (mean + 3σ) dominates; beyond SCREENED_MOST, those with
 * the fewest posterior means dominating their own.
 */
async function screen(posterior: Posterior, points: Float64Array, k: number, m: number): Promise<number[]> {
  const { mean, variance } = await posterior.predict(points, k);
  const width = posterior.m;
  const at = (i: number, j: number, sign: number) => mean[i * width + j] + sign * SCREEN_WIDTH * Math.sqrt(Math.max(variance[i * width + j], 0));
  const dominates = (a: number, b: number, sa: number, sb: number) => {
    let strictly = false;
    for (let j = 0; j < m; j++) {
      const [va, vb] = [at(a, j, sa), at(b, j, sb)];
      if (va > vb) return false;
      if (va < vb) strictly = true;
    }
    return strictly;
  };
  const all = Array.from({ length: k }, (_, i) => i);
  const possible = all.filter((i) => !all.some((o) => o !== i && dominates(o, i, 1, -1)));
  if (possible.length <= SCREENED_MOST) return possible;
  const dominated = possible.map((i) => possible.filter((o) => o !== i && dominates(o, i, 0, 0)).length);
  return possible
    .map((i, r) => ({ i, count: dominated[r] }))
    .sort((a, b) => a.count - b.count || a.i - b.i)
    .slice(0, SCREENED_MOST)
    .map((x) => x.i)
    .sort((a, b) => a - b);
}
