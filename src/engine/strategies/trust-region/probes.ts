import { boundProbes } from '../bound-probes.js';
import type { StrategyContext } from '../types.js';
import { sampleAt, type RegionModels } from './models.js';
import type { RegionMemory } from './regions.js';

/** Batch points per bound probe. */
export const PROBE_ROOM = 10;

/** What a region's probe needs of it: its centre's row and its box. */
export interface ProbedRegion {
  centerRow: number;
  region: RegionMemory;
}

/**
 * Bound probes (bound-probes.ts) of the regions' centres in a trust-region batch, one per
 * PROBE_ROOM points of `room` left in it, each credited to its region like its model steps. A
 * coordinate is probed on a bound its region's box reaches (its half-width, or BOUND_TOLERANCE
 * when narrower). Batches under PROBE_ROOM points take no probes: at 4 points a probe was a
 * quarter of every batch, and on ZDT1 and DTLZ2 at 90 evaluations that cost more than it found.
 *
 * A probe goes into the batch only where its region's Thompson draw does not make the centre
 * dominate it (probeKept). In many dimensions a wide box reaches a bound in dozens of coordinates
 * at once, and the probe that moves them all lands far from the data, where nothing says it is
 * good: unscreened, DTLZ2 with 200 parameters and 20 outcome constraints spent up to 5 of every
 * 50 evaluations on such probes and ended at 0.13 and 0.18 of hypervolume at 2,000 evaluations
 * (seeds 1 and 2) where it reached 0.32 and 0.30 without them. A probe one step from its centre,
 * the case probes are for (a coordinate 10⁻⁶ from the bound), draws nearly what the centre
 * draws, and passes as often as not; one the draw rejects is asked again at the next batch,
 * under a new draw. `models[r]` are region r's draws, in the order of `regions`; `ref` and
 * `spread` fold sampled infeasibility in as for every candidate (models.ts, sampleAt).
 */
export async function regionProbes(
  regions: readonly ProbedRegion[],
  models: readonly RegionModels[],
  context: StrategyContext,
  ref: readonly number[],
  spread: ArrayLike<number>,
  room: number,
): Promise<{ point: Float64Array; factor: number; region: number }[]> {
  const most = Math.floor(room / PROBE_ROOM);
  if (most <= 0) return [];
  const o = context.observations;
  const { d } = o;
  const centers = regions.map((r) => r.centerRow);
  const halfWidths = (row: number) => {
    const { region } = regions[centers.indexOf(row)];
    return Array.from({ length: d }, (_, j) => 0.5 * region.length * (region.weights?.[j] ?? 1));
  };
  const out: { point: Float64Array; factor: number; region: number }[] = [];
  for (const { point, row } of boundProbes(context.space, o, centers, centers.length, halfWidths)) {
    if (out.length >= most) break;
    const region = centers.indexOf(row);
    if (await probeKept(models[region], point, o.X.subarray(row * d, (row + 1) * d), ref, spread)) out.push({ point, factor: 0, region });
  }
  return out;
}

/**
 * Whether the region's draw leaves the probe undominated by its centre: the same sample path at
 * both (so their difference is a draw of the difference), infeasibility folded in. probe, center:
 * length d, encoded.
 */
export async function probeKept(
  models: RegionModels,
  probe: Float64Array,
  center: ArrayLike<number>,
  ref: readonly number[],
  spread: ArrayLike<number>,
): Promise<boolean> {
  const d = probe.length;
  const X = new Float64Array(2 * d);
  X.set(probe, 0);
  X.set(center, d);
  const { S } = await sampleAt(models, X, 2, ref, spread);
  const m = ref.length;
  let someBetter = false;
  for (let j = 0; j < m; j++) {
    if (S[j] < S[m + j]) return true;
    if (S[m + j] < S[j]) someBetter = true;
  }
  return !someBetter;
}
