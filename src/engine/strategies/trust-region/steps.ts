import type { SearchSpace } from '../../space.js';
import { achievement } from '../../acquisition/reach.js';
import { refineCandidates, towardBox, towardUtopia, utopiaPoint, type RegionDraw, type Scalarization } from './refine.js';
import type { RegionMemory, TrustRegionMemory } from './regions.js';

/**
 * Model steps: besides its Thompson picks, each region proposes its centre moved downhill on
 * separable quadratic models of its local data (quadratic.ts), at three reaches (STEP_FACTORS
 * times the region's step reach): a line search spread over one batch. In tens to hundreds of
 * dimensions the draws that rank the random candidates are dominated by prior noise away from
 * the data, and so is the GP's mean (on DTLZ2 in 100 dimensions its gradient at the centres has a
 * cosine of only 0.2–0.5 with the true one); a quadratic fitted to the same 100–200 points keeps
 * a reliable slope and curvature. How far the model can be trusted is unknown and changes as the
 * region closes in, so the reach is adapted like a classical trust-region radius: it moves to the
 * factor whose point did best, and halves when none beat the centre (adaptReach).
 */

/** Reaches of one region's model steps, in units of its step reach. */
export const STEP_FACTORS = [0.5, 1, 2] as const;
/** The step reach of a new region, as a share of its box's width per coordinate. */
export const REACH_INIT = 0.1;
const REACH_MIN = 0.005;
const REACH_MAX = 1;
/** Regions take model steps only when they have at least this many batch points each. */
const LEAST_POINTS_PER_REGION = 2 * STEP_FACTORS.length;

/** Whether a batch of q over `regions` regions leaves room for model steps. */
export function takesModelSteps(q: number, regions: number): boolean {
  return regions > 0 && q / regions >= LEAST_POINTS_PER_REGION;
}

/**
 * One region's model steps from `center` (length d, encoded) on the models `model` of the
 * objectives: one point per STEP_FACTORS entry that moved, with that factor. `scalarization` and
 * `spread` (length m) as for refineCandidate.
 */
export async function modelSteps(
  space: SearchSpace,
  model: RegionDraw,
  center: Float64Array,
  region: RegionMemory,
  scalarization: Scalarization,
  spread: Float64Array,
): Promise<{ point: Float64Array; factor: number }[]> {
  const reach = region.reach ?? REACH_INIT;
  const jobs = STEP_FACTORS.map((factor) => ({ draw: model, start: center, scalarization, reach: Math.min(REACH_MAX, factor * reach) }));
  const points = await refineCandidates(space, jobs, spread);
  const steps: { point: Float64Array; factor: number }[] = [];
  STEP_FACTORS.forEach((factor, k) => {
    const point = points[k];
    if (point && point.some((v, j) => v !== center[j])) steps.push({ point, factor });
  });
  return steps;
}

/**
 * What a region's steps descend (refine.ts): the achievement scalarization to the reference point
 * while its centre lies outside the reference box, else the Chebyshev scalarization from `utopia`.
 * Y: `n x m` minimization-space objectives (infeasible rows folded beyond the reference), so an
 * infeasible centre counts as outside; ref and spread: length m.
 */
export function stepScalarization(
  Y: Float64Array,
  centerRow: number,
  m: number,
  ref: readonly number[],
  spread: ArrayLike<number>,
  utopia: ArrayLike<number>,
): Scalarization {
  return achievement(Y, centerRow * m, ref, spread) > 0 ? towardBox(ref) : towardUtopia(utopia);
}

/**
 * Each region's step reach after its last model steps were evaluated. A step's worth is what the
 * step descended (stepScalarization, judged on the same centre): the Chebyshev scalarization's
 * weights make the centre's terms equal (value 1 at the centre); the achievement counts as is.
 * The reach moves to the factor of the best step when it beat the centre, and halves when none
 * did. Y is `n x m` minimization-space objectives (infeasible rows already moved beyond the
 * reference); ref and `spread` (length m) the reference point and the objectives' observed
 * spread, which places the utopia as the steps' own (refine.ts utopiaPoint) does. Infeasible
 * rows' folded values must not widen it: a distant origin weighs every objective alike. `rowOf`
 * maps evaluation ids to rows. Returns the regions, reaches updated.
 */
export function adaptReach(
  previous: TrustRegionMemory,
  Y: Float64Array,
  m: number,
  ref: readonly number[],
  spread: ArrayLike<number>,
  rowOf: Map<string, number>,
): RegionMemory[] {
  const batch = previous.lastBatch;
  if (!batch?.steps) return previous.regions;
  const utopia = utopiaPoint([Y], m, spread);
  return previous.regions.map((region, r) => {
    const centerRow = rowOf.get(region.center);
    if (centerRow === undefined) return region;
    const { origin, equalize } = stepScalarization(Y, centerRow, m, ref, spread, utopia);
    const value = (row: number): number => {
      let worst = -Infinity;
      for (let j = 0; j < m; j++) {
        const unit = equalize ? Math.max(Y[centerRow * m + j] - origin[j], 1e-12) : spread[j];
        worst = Math.max(worst, (Y[row * m + j] - origin[j]) / unit);
      }
      return worst;
    };
    let best = Infinity;
    let factor = 0;
    batch.ids.forEach((id, k) => {
      const row = rowOf.get(id);
      if (batch.regions[k] !== r || !(batch.steps![k] > 0) || row === undefined) return;
      const v = value(row);
      if (v < best) {
        best = v;
        factor = batch.steps![k];
      }
    });
    if (factor === 0) return region;
    const reach = region.reach ?? REACH_INIT;
    const start = value(centerRow);
    const improved = best < start - 1e-6 * Math.max(1, Math.abs(start));
    return { ...region, reach: Math.min(REACH_MAX, Math.max(REACH_MIN, improved ? reach * factor : reach / 2)) };
  });
}
