import { frontInside } from '../../acquisition/front-inside.js';
import type { ReachFrame } from '../../acquisition/reach-frame.js';
import { paretoIndices } from '../../pareto.js';
import type { Random } from '../../random.js';
import { isDiscrete, unitGap, type SearchSpace } from '../../space.js';
import type { Observations } from '../types.js';
import { isInsideBox, type RegionMemory } from './regions.js';

/** Most parameters one candidate redraws (TuRBO perturbs each with probability min(1, 20 / d)). */
const MAX_PERTURBED = 20;
/**
 * Share of a region's candidates that are recombined: their redrawn parameters take the values of
 * one front point (the donor, drawn anew per candidate) clipped into the box, instead of uniform
 * values. A region refines the front near its centre only; where the best values of some
 * parameters hold along the whole front (distance-like parameters), a donor carries them across,
 * as crossover does in NSGA-II. Without it, the front converged where the regions sat and stayed
 * behind elsewhere (WFG4 with 2 objectives at 1,000 evaluations, seed 1: the best point in each 10°
 * of the front's angle lay 4–14 % beyond the true front, NSGA-II's 4–6 %). Half and half keeps
 * the uniform draws that find values no front point holds.
 */
export const DONOR_SHARE = 0.5;

/**
 * The rows a step's regions recombine with (regionCandidates' `donors`): the Pareto front of `Y`
 * (`n x m`, minimization, infeasible rows already folded beyond the reference), the whole of it
 * where there are several regions to carry values between, and only its rows inside the
 * reference box for a lone region (`frontInside`, the same rows: a folded row lies beyond
 * the reference, so it dominates none inside). A lone region (batches of 4 or fewer) is the
 * step's only search for the box: donors from a front still wholly outside it diluted that
 * search, so that DTLZ2 with 3 objectives and 8 inputs stayed out of the box for 45 evaluations on
 * one seed of three (test/reach-campaign.test.ts), and ZDT1 with 5 % noise fell from 14.2 to 6.2 %
 * of the maximum at 90 evaluations (seeds 1–10). Until a row is inside, a lone region draws as
 * TuRBO does.
 */
export function donorRows(Y: Float64Array, n: number, m: number, frame: ReachFrame, regionCount: number): number[] {
  return regionCount > 1 ? Array.from(paretoIndices(Y, n, m)) : frontInside(frame);
}

/**
 * Candidates of one trust region: copies of the centre with a random subset of the parameters
 * redrawn uniformly inside the region's box (TuRBO's perturbation mask, with the subset's size
 * itself drawn, see perturbedParameters), so in high dimensions candidates differ from the
 * centre in a few coordinates, as good moves there do. A categorical parameter chosen
 * for perturbation takes a random other value; an integer's box spans at least one step either
 * side. A DONOR_SHARE of the candidates take the redrawn parameters' values from one of `donors`
 * (the front's points in the unit cube), clipped into the box; a categorical takes the donor's
 * category. Candidates are repaired into the linear constraints and dropped when a nonlinear one
 * fails. Returns `count x d` row-major (fewer rows when too many were dropped).
 */
export function regionCandidates(
  space: SearchSpace,
  center: Float64Array,
  region: RegionMemory,
  count: number,
  random: Random,
  donors: readonly Float64Array[] = [],
): { X: Float64Array; count: number } {
  const d = space.dimension;
  const layout = space.layout;
  const most = Math.min(MAX_PERTURBED, layout.length);
  const { lower, upper } = regionBox(space, center, region);
  const X = new Float64Array(count * d);
  let kept = 0;
  for (let attempt = 0; kept < count && attempt < 4 * count; attempt++) {
    const x = Float64Array.from(center);
    const chosen = perturbedParameters(layout.length, most, random);
    const donor = donors.length > 0 && random.uniform() < DONOR_SHARE ? donors[random.int(donors.length)] : null;
    chosen.forEach((k) => {
      const { parameter, offset, width } = layout[k];
      if (parameter.type === 'categorical') {
        if (width < 2) return;
        if (donor) {
          x.set(donor.subarray(offset, offset + width), offset);
          return;
        }
        let current = 0;
        for (let j = 1; j < width; j++) if (x[offset + j] > x[offset + current]) current = j;
        const next = (current + 1 + random.int(width - 1)) % width;
        x.fill(0, offset, offset + width);
        x[offset + next] = 1;
      } else if (donor) {
        x[offset] = Math.min(upper[offset], Math.max(lower[offset], donor[offset]));
      } else {
        x[offset] = lower[offset] + random.uniform() * (upper[offset] - lower[offset]);
      }
    });
    const repaired = space.repair(x);
    if (space.constraints.length > 0 && !space.isFeasible(space.decode(repaired))) continue;
    X.set(repaired, kept * d);
    kept++;
  }
  return { X: X.subarray(0, kept * d), count: kept };
}

/**
 * Which parameters one candidate redraws: a count log-uniform in [1, most] (so single-coordinate
 * moves are as common as broad ones, and the samples pick which pays), then that many distinct
 * parameters at random.
 */
function perturbedParameters(total: number, most: number, random: Random): number[] {
  const count = Math.min(most, Math.max(1, Math.floor(Math.exp(random.uniform() * Math.log(most + 1)))));
  const order = Array.from({ length: total }, (_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + random.int(total - i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.slice(0, count);
}

/** The region's box in the unit cube, per encoded coordinate. */
export function regionBox(space: SearchSpace, center: Float64Array, region: RegionMemory): { lower: Float64Array; upper: Float64Array } {
  const d = space.dimension;
  const lower = new Float64Array(d);
  const upper = new Float64Array(d).fill(1);
  for (const { parameter, offset } of space.layout) {
    if (parameter.type === 'categorical') continue;
    let half = 0.5 * region.length * (region.weights?.[offset] ?? 1);
    // a discrete parameter's box reaches at least its neighbouring values, or it could never move
    if (isDiscrete(parameter)) half = Math.max(half, unitGap(parameter));
    lower[offset] = Math.max(0, center[offset] - half);
    upper[offset] = Math.min(1, center[offset] + half);
  }
  return { lower, upper };
}

/**
 * Squared and Chebyshev distance of `x` (length d, from `at`) from the centre `c`, in units of
 * the region's box half-widths: the Chebyshev distance is ≤ 1 inside the box.
 */
function scaledDistance(x: Float64Array, at: number, c: Float64Array, region: RegionMemory): { sum: number; worst: number } {
  let sum = 0;
  let worst = 0;
  for (let j = 0; j < c.length; j++) {
    const t = (x[at + j] - c[j]) / (0.5 * region.length * (region.weights?.[j] ?? 1));
    sum += t * t;
    worst = Math.max(worst, Math.abs(t));
  }
  return { sum, worst };
}

/**
 * The rows a region's local model is fitted on: the nearest to its centre in the box's scaled
 * distance, every row inside the box up to `most`, and at least `least` rows. Returns row indices.
 */
export function localRows(o: Observations, centerRow: number, region: RegionMemory, least: number, most: number): number[] {
  const { d } = o;
  const c = o.X.subarray(centerRow * d, (centerRow + 1) * d);
  const scaled = new Float64Array(o.n);
  let inside = 0;
  for (let i = 0; i < o.n; i++) {
    const { sum, worst } = scaledDistance(o.X, i * d, c, region);
    scaled[i] = sum;
    if (isInsideBox(worst)) inside++;
  }
  const order = Array.from({ length: o.n }, (_, i) => i).sort((a, b) => scaled[a] - scaled[b] || a - b);
  return order.slice(0, Math.min(o.n, Math.max(least, Math.min(most, inside))));
}

/**
 * The partial measurements (some objectives missing) a region's models learn from: those inside
 * its box or no farther from its centre than its farthest local row (`rows`), at most `most`,
 * nearest first; undefined when none is.
 */
export function localPartial(o: Observations, centerRow: number, region: RegionMemory, rows: readonly number[], most: number): Observations['partial'] {
  const partial = o.partial;
  if (!partial) return undefined;
  const { d, m } = o;
  const c = o.X.subarray(centerRow * d, (centerRow + 1) * d);
  const reach = Math.max(0, ...rows.map((r) => scaledDistance(o.X, r * d, c, region).sum));
  const near: { row: number; distance: number }[] = [];
  for (let i = 0; i < partial.n; i++) {
    const { sum, worst } = scaledDistance(partial.X, i * d, c, region);
    if (isInsideBox(worst) || sum <= reach) near.push({ row: i, distance: sum });
  }
  if (near.length === 0) return undefined;
  const kept = near.sort((a, b) => a.distance - b.distance || a.row - b.row).slice(0, most);
  const X = new Float64Array(kept.length * d);
  const Y = new Float64Array(kept.length * m);
  kept.forEach(({ row }, k) => {
    X.set(partial.X.subarray(row * d, (row + 1) * d), k * d);
    Y.set(partial.Y.subarray(row * m, (row + 1) * m), k * m);
  });
  return { X, Y, n: kept.length };
}
