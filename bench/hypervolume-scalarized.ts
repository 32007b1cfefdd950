import { hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { ScalarizedImprovement } from '../src/engine/hypervolume-scalarized.js';
import { Random } from '../src/engine/random.js';
import { makeFront } from '../test/support/fronts.js';
import { timeCalls, type BenchReport, type BenchSuite } from './common.js';

/**
 * The random-scalarization estimate of hypervolume improvement (engine/hypervolume-scalarized.ts)
 * against the exact improvements (the WASM kernel) it replaces from 4 objectives on: time per
 * 1,000 candidates, and how well the estimate ranks them, which is all a greedy batch selection
 * or an acquisition maximum uses. Spherical fronts of n points, reference 1.1; candidates where a
 * campaign's Monte Carlo samples fall, near the front: a random front point scaled by a factor
 * uniform in [0.9, 1.1] (about half of them improve it). Directions as Monte Carlo EHVI (256) and
 * trust-region selection (1,024) draw them.
 */
const CASES: [number, number][] = [
  [4, 50],
  [4, 200],
  [5, 30],
  [5, 100],
  [6, 50],
  [6, 100],
];
const CANDIDATES = 1000;
const DIRECTIONS = [256, 1024];

/** CANDIDATES points: random rows of the `n x m` front, each scaled by a factor uniform in [0.9, 1.1]. */
function nearFront(front: Float64Array, n: number, m: number, seed: number): Float64Array {
  const random = new Random(seed);
  const out = new Float64Array(CANDIDATES * m);
  for (let i = 0; i < CANDIDATES; i++) {
    const row = Math.floor(random.uniform() * n);
    const factor = 0.9 + 0.2 * random.uniform();
    for (let j = 0; j < m; j++) out[i * m + j] = front[row * m + j] * factor;
  }
  return out;
}

/** Spearman's rank correlation of two equally long lists (ties get their mean rank). */
function spearman(a: Float64Array, b: Float64Array): number {
  const ranks = (v: Float64Array): Float64Array => {
    const order = Array.from(v.keys()).sort((i, j) => v[i] - v[j]);
    const r = new Float64Array(v.length);
    for (let k = 0; k < order.length;) {
      let end = k;
      while (end + 1 < order.length && v[order[end + 1]] === v[order[k]]) end++;
      for (let t = k; t <= end; t++) r[order[t]] = (k + end) / 2;
      k = end + 1;
    }
    return r;
  };
  const [ra, rb] = [ranks(a), ranks(b)];
  const mean = (ra.length - 1) / 2;
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i] - mean) * (rb[i] - mean);
    da += (ra[i] - mean) ** 2;
    db += (rb[i] - mean) ** 2;
  }
  return num / Math.sqrt(da * db);
}

/** Share of the exact top-k candidates that the estimate also ranks in its top k. */
function topOverlap(exact: Float64Array, estimate: Float64Array, k: number): number {
  const top = (v: Float64Array) =>
    new Set(
      Array.from(v.keys())
        .sort((i, j) => v[j] - v[i] || i - j)
        .slice(0, k),
    );
  const [a, b] = [top(exact), top(estimate)];
  let shared = 0;
  for (const i of a) if (b.has(i)) shared++;
  return shared / k;
}

export const scalarized: BenchSuite = {
  name: 'hypervolume-scalarized',
  description: 'hypervolume improvement by random scalarizations vs exact (WASM) at 4 to 6 objectives: time per 1,000 candidates and rank agreement',
  async run(): Promise<BenchReport> {
    const rows: BenchReport['rows'] = [];
    for (const [m, n] of CASES) {
      const front = makeFront('spherical', n, m, 13 * m + n);
      const ref = new Array<number>(m).fill(1.1);
      const candidates = nearFront(front, n, m, 17 * m + n);
      const exact = hypervolumeImprovements(front, n, m, ref, candidates, CANDIDATES);
      const exactTime = timeCalls(() => hypervolumeImprovements(front, n, m, ref, candidates, CANDIDATES), { minSeconds: 0.3, minRepeats: 2 });
      const improving = exact.filter((v) => v > 0).length;
      for (const directions of DIRECTIONS) {
        const estimator = new ScalarizedImprovement(front, n, m, ref, directions, new Random(m * 1000 + n));
        const estimate = estimator.improvements(candidates, CANDIDATES);
        const time = timeCalls(() => estimator.improvements(candidates, CANDIDATES), { minSeconds: 0.3, minRepeats: 2 });
        let relative = 0;
        let count = 0;
        for (let i = 0; i < CANDIDATES; i++) {
          if (exact[i] <= 0) continue;
          relative += Math.abs(estimate[i] - exact[i]) / exact[i];
          count++;
        }
        rows.push({
          m,
          front: n,
          directions,
          improving_candidates: improving,
          exact_ms: exactTime.medianSeconds * 1e3,
          scalarized_ms: time.medianSeconds * 1e3,
          speedup: exactTime.medianSeconds / time.medianSeconds,
          spearman: spearman(exact, estimate),
          top10_shared: topOverlap(exact, estimate, 10),
          mean_relative_error: count > 0 ? relative / count : null,
        });
      }
    }
    return {
      rows,
      notes: [
        'exact_ms / scalarized_ms: median time for the improvements of 1,000 candidates (the estimator built once per front).',
        'spearman: rank correlation of estimate and exact improvement over all 1,000 candidates (dominated ones exactly 0 in both); top10_shared: share of the exact 10 best that the estimate also ranks in its 10 best; mean_relative_error over the improving candidates.',
      ],
    };
  },
};
