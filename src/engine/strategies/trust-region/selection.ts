import { hypervolumeImprovements } from '../../hypervolume.js';
import { EXACT_IMPROVEMENT_MAX_OBJECTIVES, ScalarizedImprovement } from '../../hypervolume-scalarized.js';
import { paretoIndices } from '../../pareto.js';
import type { Random } from '../../random.js';
import { achievement, objectiveSpreads } from '../../acquisition/reach.js';

/** One region's candidates with a Thompson draw of every objective at each. */
export interface CandidatePool {
  region: number;
  /** `count x d` encoded candidates */
  X: Float64Array;
  /** `count x m` sampled minimization-space objectives */
  S: Float64Array;
  count: number;
}

/**
 * Chooses q candidates from the pools by greedy hypervolume improvement of their sampled values
 * (MORBO's batch selection): each pick is the candidate whose draw adds the most hypervolume to
 * the observed front plus the draws already picked, and its draw then joins that front, so the
 * next pick goes where the samples promise something else. One draw per region and objective
 * serves the whole batch: the cost is one evaluation per candidate plus a few re-checks per pick
 * (the improvement of a point only shrinks as the front grows, so stale values are upper bounds
 * and a pick is certain once its fresh value beats every other bound: lazy greedy).
 *
 * The last `reach.picks` picks (the step's reach frame, acquisition/reach-frame.ts: all of them
 * while no observed point is inside the reference box, half while 1 to m are) go round the
 * regions instead, each taking its candidate whose draw lies closest to the box, or deepest
 * inside it, by the achievement scalarization to the reference point in the frame's
 * `reach.scale`: Thompson sampling of the reach criterion.
 * When fewer than q − reach candidates promise any improvement, the reach picks fill the batch,
 * or without them the rest go round the regions, each taking its candidate best under a random
 * Chebyshev scalarization of the normalized draws, so every region keeps being tried.
 *
 * Y: `n x m` observed minimization-space objectives. Returns the picks' pool and row.
 */
export function selectBatch(
  pools: readonly CandidatePool[],
  Y: Float64Array,
  n: number,
  m: number,
  ref: readonly number[],
  q: number,
  random: Random,
  reach: { picks: number; scale: ArrayLike<number> } | null = null,
): { pool: number; row: number }[] {
  const reachPicks = reach?.picks ?? 0;
  const front = frontImprovement(Y, n, m, ref, random);
  const entries: { pool: number; row: number; bound: number }[] = [];
  pools.forEach((p, k) => {
    const gains = front.improvements(p.S, p.count);
    for (let row = 0; row < p.count; row++) if (gains[row] > 0) entries.push({ pool: k, row, bound: gains[row] });
  });
  entries.sort((a, b) => b.bound - a.bound);

  const picks: { pool: number; row: number }[] = [];
  const chosen = new Set<string>();
  // an entry's bound is exact while `fresh` holds the number of picks made when it was computed
  const fresh = new Map<{ pool: number; row: number; bound: number }, number>(entries.map((e) => [e, 0]));
  while (picks.length < q - reachPicks && entries.length > 0) {
    const top = entries[0];
    if (fresh.get(top) === picks.length) {
      entries.shift();
      picks.push({ pool: top.pool, row: top.row });
      chosen.add(`${top.pool}:${top.row}`);
      front.add(pools[top.pool].S.subarray(top.row * m, (top.row + 1) * m));
      continue;
    }
    // the stale bounds at the top are refreshed together: one improvement call per block, not per entry
    const block = entries.splice(0, Math.min(REFRESH_BLOCK, entries.length));
    const S = new Float64Array(block.length * m);
    block.forEach((e, k) => S.set(pools[e.pool].S.subarray(e.row * m, (e.row + 1) * m), k * m));
    const gains = front.improvements(S, block.length);
    block.forEach((e, k) => {
      if (!(gains[k] > 0)) return;
      e.bound = gains[k];
      fresh.set(e, picks.length);
      insertSorted(entries, e);
    });
  }
  if (picks.length < q && reach && reachPicks > 0) fillByReach(pools, m, ref, reach.scale, q, picks, chosen);
  else if (picks.length < q) fillByScalarization(pools, Y, n, m, ref, q, random, picks, chosen);
  return picks;
}

/**
 * Stale bounds refreshed per improvement call in the lazy greedy selection. A call sorts the front
 * again, so refreshing one entry at a time cost most of a step at thousands of front points; a
 * block of this many makes the same picks (a pick is taken only once its bound is exact and no
 * other bound exceeds it) with a fraction of the calls.
 */
const REFRESH_BLOCK = 32;

/** Scalarization directions when m > EXACT_IMPROVEMENT_MAX_OBJECTIVES (one estimate per candidate draw, so more than per Monte Carlo sample). */
const SELECTION_DIRECTIONS = 1024;

/**
 * Hypervolume improvements over the observed front (`n x m`) as picks join it: exact (WFG kernel)
 * up to EXACT_IMPROVEMENT_MAX_OBJECTIVES objectives, the random-scalarization estimate beyond,
 * whose cost per candidate does not grow with the front.
 */
function frontImprovement(
  Y: Float64Array,
  n: number,
  m: number,
  ref: readonly number[],
  random: Random,
): { improvements(S: Float64Array, q: number): Float64Array; add(p: Float64Array): void } {
  if (m > EXACT_IMPROVEMENT_MAX_OBJECTIVES) return new ScalarizedImprovement(Y, n, m, ref, SELECTION_DIRECTIONS, random.fork());
  const front: number[] = [];
  for (const i of paretoIndices(Y, n, m)) for (let j = 0; j < m; j++) front.push(Y[i * m + j]);
  return {
    improvements: (S, q) => hypervolumeImprovements(Float64Array.from(front), front.length / m, m, ref, S, q),
    add: (p) => {
      for (let j = 0; j < m; j++) front.push(p[j]);
    },
  };
}

function insertSorted(entries: { bound: number }[], entry: { bound: number }): void {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid].bound >= entry.bound) lo = mid + 1;
    else hi = mid;
  }
  entries.splice(lo, 0, entry);
}

/** The remaining picks round the regions, each the candidate whose draw has the lowest achievement scalarization to the reference point. */
function fillByReach(
  pools: readonly CandidatePool[],
  m: number,
  ref: readonly number[],
  spread: ArrayLike<number>,
  q: number,
  picks: { pool: number; row: number }[],
  chosen: Set<string>,
): void {
  const scores = pools.map((pool) => Float64Array.from({ length: pool.count }, (_, row) => achievement(pool.S, row * m, ref, spread)));
  const order = pools.map((_, k) => k).filter((k) => pools[k].count > 0);
  // the region whose draws come closest to the box takes the first pick
  order.sort((a, b) => Math.min(...scores[a]) - Math.min(...scores[b]));
  for (let turn = 0; picks.length < q && order.length > 0; turn++) {
    const k = order[turn % order.length];
    let best = -1;
    for (let row = 0; row < pools[k].count; row++) {
      if (!chosen.has(`${k}:${row}`) && (best < 0 || scores[k][row] < scores[k][best])) best = row;
    }
    if (best < 0) {
      order.splice(turn % order.length, 1);
      turn--;
      continue;
    }
    picks.push({ pool: k, row: best });
    chosen.add(`${k}:${best}`);
  }
}

/** The remaining picks round the regions, each by a random Chebyshev scalarization of its draws. */
function fillByScalarization(
  pools: readonly CandidatePool[],
  Y: Float64Array,
  n: number,
  m: number,
  ref: readonly number[],
  q: number,
  random: Random,
  picks: { pool: number; row: number }[],
  chosen: Set<string>,
): void {
  const spread = objectiveSpreads(Y, n, m, ref);
  const ideal = new Float64Array(m).fill(Infinity);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) ideal[j] = Math.min(ideal[j], Y[i * m + j]);
  const order = pools.map((_, k) => k).filter((k) => pools[k].count > 0);
  for (let turn = 0; picks.length < q && order.length > 0; turn++) {
    const k = order[turn % order.length];
    const pool = pools[k];
    const weights = simplexWeights(m, random);
    let best = -1;
    let bestValue = Infinity;
    for (let row = 0; row < pool.count; row++) {
      if (chosen.has(`${k}:${row}`)) continue;
      let value = -Infinity;
      for (let j = 0; j < m; j++) value = Math.max(value, (weights[j] * (pool.S[row * m + j] - ideal[j])) / spread[j]);
      if (value < bestValue) {
        bestValue = value;
        best = row;
      }
    }
    if (best < 0) {
      order.splice(turn % order.length, 1);
      turn--;
      continue;
    }
    picks.push({ pool: k, row: best });
    chosen.add(`${k}:${best}`);
  }
}

/** Uniform weights on the simplex (normalized exponential draws). */
function simplexWeights(m: number, random: Random): Float64Array {
  const w = Float64Array.from({ length: m }, () => -Math.log(1 - random.uniform()));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / total);
}
