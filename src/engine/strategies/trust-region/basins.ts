import type { ReachFrame } from '../../acquisition/reach-frame.js';
import type { Random } from '../../random.js';
import type { SearchSpace } from '../../space.js';
import type { Observations } from '../types.js';
import { LENGTH_INIT, LENGTH_MIN, type TrustRegionMemory } from './regions.js';

/**
 * Basin restarts: escaping local fronts. On a multimodal landscape (ripples larger than the bowl
 * they sit in, as in Rastrigin-like distance terms) every region converges to a local minimum and
 * TuRBO's restart, at the next preferred observed point, lands beside one of them again. The local
 * minima the regions have converged to are the data's view of the landscape without its ripples
 * (at a ripple's minimum only the bowl is left), so they point to the bowl: new regions start from
 * a weighted recombination of the best minima and samples around it with their spread (CMA-ES's
 * mean and step, Hansen 2016, taken over basins instead of points, as in memetic and
 * basin-hopping searches).
 *
 * The rule: while no observed point is inside the reference box, once STALL_BATCHES judged
 * batches in a row have brought no point closer to it, every region but the most preferred whose
 * box has shrunk below LENGTH_SPENT, or that TuRBO's rule restarted this step, moves to a basin
 * start. Once a point is inside, TuRBO's restart (at the next preferred point) stays: there the
 * regions sit on the front, and moving them away cost DTLZ6 (m = 2, d = 11, 1,000 evaluations)
 * 14 points of the maximum hypervolume. The starts are proposed in the batch; a region re-centres on its start once it is
 * evaluated (regions.ts), with a box as wide as the minima's spread, and the stall count starts
 * again. Cost: O(k d) for k minima, nothing per candidate; the evaluations are those the spent
 * regions would have spent shrinking further.
 */

/** Judged batches without any improvement before spent regions move to basin starts. */
export const STALL_BATCHES = 1;
/** A region whose box is below this edge length has converged to its basin (two halvings above LENGTH_MIN). */
export const LENGTH_SPENT = 4 * LENGTH_MIN;
/** Fewest minima to recombine: with one, there is no spread to sample. */
const LEAST_MINIMA = 2;

export interface BasinMove {
  /** the region that moves */
  region: number;
  /** where it moves (encoded, snapped) */
  point: Float64Array;
  /** its box's edge length there */
  length: number;
}

/**
 * The regions that move this step and their starts: empty unless the campaign has stalled
 * outside the reference box and at least LEAST_MINIMA minima are known. `o`: the observations
 * with infeasible rows folded beyond the reference; `frame`: the step's reach frame, whose count
 * inside the box decides "outside"; `preference`: gives its rows best first
 * (centers.ts), called only once the rule applies (ranking the rows is O(n² m)). The minima are
 * the current and retired centres.
 */
export function basinMoves(
  memory: TrustRegionMemory,
  o: Observations,
  frame: ReachFrame,
  space: SearchSpace,
  preference: () => readonly number[],
  random: Random,
): BasinMove[] {
  if ((memory.stalled ?? 0) < STALL_BATCHES || (memory.moves?.length ?? 0) > 0 || frame.inside > 0) return [];
  const rank = new Map(preference().map((row, k) => [o.ids[row], k]));
  const centers = memory.regions.map((r) => r.center);
  const leader = centers.reduce((best, id) => ((rank.get(id) ?? Infinity) < (rank.get(best) ?? Infinity) ? id : best), centers[0]);
  const collapsed = new Set(memory.collapsed ?? []);
  const spent = memory.regions.flatMap((region, r) => (region.center !== leader && (region.length < LENGTH_SPENT || collapsed.has(r)) ? [r] : []));
  if (spent.length === 0) return [];
  const minima = [...new Set([...memory.retired, ...centers])].filter((id) => rank.has(id)).sort((a, b) => rank.get(a)! - rank.get(b)!);
  const rowOf = new Map(o.ids.map((id, i) => [id, i]));
  const funnel = basinFunnel(
    minima.map((id) => o.X.subarray(rowOf.get(id)! * o.d, (rowOf.get(id)! + 1) * o.d)),
    o.d,
  );
  if (!funnel) return [];
  const starts = basinStarts(funnel, spent.length, o, space, random);
  return starts.map((point, k) => ({ region: spent[k], point, length: funnel.length }));
}

export interface Funnel {
  /** weighted mean of the best minima */
  mean: Float64Array;
  /** their weighted spread per coordinate */
  sd: Float64Array;
  /** a new region's box edge: twice the spread's geometric mean, within [4 LENGTH_MIN, LENGTH_INIT] */
  length: number;
}

/**
 * CMA-ES's recombination over minima (best first): the best μ = max(2, ⌊k/2⌋) with weights
 * ln(μ + ½) − ln(i), their weighted mean and, per coordinate, their weighted spread around it.
 * Null with fewer than LEAST_MINIMA.
 */
export function basinFunnel(minima: readonly ArrayLike<number>[], d: number): Funnel | null {
  if (minima.length < LEAST_MINIMA) return null;
  const mu = Math.max(LEAST_MINIMA, Math.floor(minima.length / 2));
  const raw = Array.from({ length: mu }, (_, i) => Math.log(mu + 0.5) - Math.log(i + 1));
  const total = raw.reduce((a, b) => a + b, 0);
  const weights = raw.map((w) => w / total);
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  weights.forEach((w, i) => {
    for (let j = 0; j < d; j++) mean[j] += w * minima[i][j];
  });
  weights.forEach((w, i) => {
    for (let j = 0; j < d; j++) sd[j] += w * (minima[i][j] - mean[j]) ** 2;
  });
  let logs = 0;
  for (let j = 0; j < d; j++) {
    sd[j] = Math.sqrt(sd[j]);
    logs += Math.log(Math.max(sd[j], LENGTH_MIN)) / d;
  }
  const length = Math.min(LENGTH_INIT, Math.max(4 * LENGTH_MIN, 2 * Math.exp(logs)));
  return { mean, sd, length };
}

/**
 * `count` starts: the funnel's mean first, unless it was evaluated already, then samples
 * mean + sd·z (z standard normal) clipped to the unit cube; each repaired into the space's
 * constraints, snapped, and distinct from every evaluated point and from the others.
 */
export function basinStarts(funnel: Funnel, count: number, o: Observations, space: SearchSpace, random: Random): Float64Array[] {
  const { d } = o;
  const key = (x: ArrayLike<number>): string => Array.from(x).join(',');
  const seen = new Set<string>();
  for (let i = 0; i < o.n; i++) seen.add(key(o.X.subarray(i * d, (i + 1) * d)));
  for (const x of o.pending ?? []) seen.add(key(x));
  const starts: Float64Array[] = [];
  for (let attempt = 0; starts.length < count && attempt < 10 * count; attempt++) {
    const x = Float64Array.from(funnel.mean, (v, j) => (attempt === 0 ? v : Math.min(1, Math.max(0, v + funnel.sd[j] * random.normal()))));
    const point = space.snap(space.repair(x));
    if (seen.has(key(point))) continue;
    seen.add(key(point));
    starts.push(point);
  }
  return starts;
}
