import { hypervolume, hypervolumeImprovements } from '../../hypervolume.js';
import type { SerializedHyperparameters } from '../../gp/priors.js';
import { paretoIndices } from '../../pareto.js';
import type { Observations } from '../types.js';
import { centerPreference, outsideDistances } from './centers.js';

/**
 * Trust-region bookkeeping in the manner of TuRBO (Eriksson et al. 2019) and MORBO (Daulton et
 * al. 2022): each region is a box around a centre point, with an edge length in the unit cube
 * (scaled per coordinate by the local model's lengthscales) that doubles after SUCCESS_STREAK
 * batches that improved the front, halves after a failure streak, and restarts elsewhere once it
 * falls below LENGTH_MIN. Centres move to the best point inside their box each step.
 */

export const LENGTH_INIT = 0.8;
export const LENGTH_MIN = 0.5 ** 7;
export const LENGTH_MAX = 1.6;
export const SUCCESS_STREAK = 3;
/** A batch point succeeds when it adds this share of the current hypervolume (TuRBO's 1e-3). */
const RELATIVE_IMPROVEMENT = 1e-3;

export interface RegionMemory {
  /** evaluation id of the centre */
  center: string;
  length: number;
  successes: number;
  failures: number;
  /** per-coordinate box scale (geometric mean 1) from the last local fit; null before one */
  weights: number[] | null;
  /** the last local fit per objective, warm start of the next */
  hyperparameters: SerializedHyperparameters[] | null;
  /** the last fit of the outcome constraints' shared model (models.ts), warm start of the next; absent before one */
  constraints?: SerializedHyperparameters;
  /** how far model steps reach, as a share of the box's width (steps.ts); absent before the first */
  reach?: number;
}

export interface TrustRegionMemory {
  regions: RegionMemory[];
  /** what the last batch held: evaluation ids and the region each came from */
  lastBatch: { ids: string[]; regions: number[]; steps?: number[] } | null;
  /** centres of regions that collapsed: never a centre again */
  retired: string[];
  /** regions restarted so far */
  restarts: number;
  /** judged batches in a row that improved nothing (basins.ts); absent before the first */
  stalled?: number;
  /** basin starts proposed in the last batch: each region re-centres on its start once evaluated (basins.ts) */
  moves?: { id: string; region: number; length: number }[];
  /** regions that TuRBO's rule restarted this step (collapsed, or their centre gone) */
  collapsed?: number[];
}

export interface RegionSettings {
  regions: number;
  /** consecutive failed batches before a region halves: ⌈max(4, d) / points per region⌉ */
  failureStreak: number;
}

/** TuRBO's settings for a campaign of encoded dimension d and batch size q. */
export function regionSettings(d: number, q: number): RegionSettings {
  const regions = Math.min(5, Math.max(1, Math.ceil(q / 4)));
  const perRegion = Math.max(1, Math.round(q / regions));
  return { regions, failureStreak: Math.ceil(Math.max(4, d) / perRegion) };
}

/**
 * The regions for this step: created on the first one, otherwise judged on the last batch
 * (success, failure, resize, restart) and re-centred. Pure: returns a new memory.
 */
export function updateRegions(previous: TrustRegionMemory | undefined, o: Observations, settings: RegionSettings, scale: ArrayLike<number>): TrustRegionMemory {
  const ref = o.ref!;
  const preference = centerPreference(o.Y, o.n, o.m, ref, scale);
  const rowOf = new Map(o.ids.map((id, i) => [id, i]));
  if (!previous) {
    const memory: TrustRegionMemory = { regions: [], lastBatch: null, retired: [], restarts: 0 };
    for (const row of preference.slice(0, settings.regions)) memory.regions.push(freshRegion(o.ids[row]));
    return memory;
  }
  const memory: TrustRegionMemory = structuredClone(previous);
  const improved = previous.lastBatch ? judgeBatch(previous, o, rowOf, scale) : [];
  if (improved.some((v) => v !== undefined)) memory.stalled = improved.some(Boolean) ? 0 : (previous.stalled ?? 0) + 1;
  // a region moved to a basin start begins there afresh; a start that was not evaluated is dropped
  const moved = new Map((previous.moves ?? []).filter((move) => rowOf.has(move.id)).map((move) => [move.region, move]));
  delete memory.moves;
  const taken = new Set<string>(Array.from(moved.values(), (move) => move.id));
  memory.regions = memory.regions.map((region, r) => {
    const move = moved.get(r);
    if (move) {
      memory.retired.push(region.center);
      memory.restarts++;
      return { ...freshRegion(move.id), length: move.length };
    }
    let next = region;
    if (improved[r] !== undefined) next = resize(region, improved[r], settings);
    if (next.length < LENGTH_MIN || !rowOf.has(next.center)) {
      memory.retired.push(region.center);
      memory.restarts++;
      return next; // re-centred below
    }
    const center = bestInside(next, o, preference, rowOf, taken);
    taken.add(center);
    return { ...next, center };
  });
  const retired = new Set(memory.retired);
  const collapsed: number[] = [];
  memory.regions = memory.regions.map((region, r) => {
    if (region.length >= LENGTH_MIN && rowOf.has(region.center) && taken.has(region.center)) return region;
    collapsed.push(r);
    const row = preference.find((i) => !taken.has(o.ids[i]) && !retired.has(o.ids[i])) ?? preference.find((i) => !taken.has(o.ids[i]));
    const center = o.ids[row ?? preference[0]];
    taken.add(center);
    return freshRegion(center);
  });
  if (collapsed.length > 0) memory.collapsed = collapsed;
  else delete memory.collapsed;
  memory.lastBatch = null;
  return memory;
}

function freshRegion(center: string): RegionMemory {
  return { center, length: LENGTH_INIT, successes: 0, failures: 0, weights: null, hyperparameters: null };
}

/** TuRBO's resize rule after one batch that did or did not improve the front. */
function resize(region: RegionMemory, improved: boolean, settings: RegionSettings): RegionMemory {
  const next = { ...region };
  if (improved) {
    next.successes++;
    next.failures = 0;
  } else {
    next.failures++;
    next.successes = 0;
  }
  if (next.successes >= SUCCESS_STREAK) {
    next.length = Math.min(LENGTH_MAX, 2 * next.length);
    next.successes = 0;
  } else if (next.failures >= settings.failureStreak) {
    next.length /= 2;
    next.failures = 0;
  }
  return next;
}

/**
 * Per region of the last batch: did any of its points improve on the data before the batch?
 * Improvement is added hypervolume above RELATIVE_IMPROVEMENT of the previous hypervolume; while
 * nothing has reached the reference box, getting closer to it than any earlier point counts.
 * Regions that proposed nothing are left out (undefined).
 */
function judgeBatch(memory: TrustRegionMemory, o: Observations, rowOf: Map<string, number>, scale: ArrayLike<number>): (boolean | undefined)[] {
  const { m } = o;
  const ref = o.ref!;
  const batch = new Set(memory.lastBatch!.ids);
  const before: number[] = [];
  for (let i = 0; i < o.n; i++) if (!batch.has(o.ids[i])) before.push(i);
  const frontRows = paretoOf(o, before);
  const front = new Float64Array(frontRows.length * m);
  frontRows.forEach((r, k) => front.set(o.Y.subarray(r * m, (r + 1) * m), k * m));
  const hvBefore = hypervolume(front, frontRows.length, m, ref);
  const outside = outsideDistances(o.Y, o.n, m, ref, scale);
  let closest = Infinity;
  for (const i of before) closest = Math.min(closest, outside[i]);
  const verdicts: (boolean | undefined)[] = memory.regions.map(() => undefined);
  memory.lastBatch!.ids.forEach((id, k) => {
    const r = memory.lastBatch!.regions[k];
    if (r >= verdicts.length) return;
    verdicts[r] ??= false;
    const row = rowOf.get(id);
    if (row === undefined || verdicts[r]) return;
    const y = o.Y.subarray(row * m, (row + 1) * m);
    if (hvBefore > 0) {
      const gain = hypervolumeImprovements(front, frontRows.length, m, ref, y, 1)[0];
      verdicts[r] = gain > RELATIVE_IMPROVEMENT * hvBefore;
    } else {
      verdicts[r] = outside[row] < closest - RELATIVE_IMPROVEMENT * Math.max(1, Math.abs(closest));
    }
  });
  return verdicts;
}

/** The non-dominated rows among `rows`. */
function paretoOf(o: Observations, rows: number[]): number[] {
  const { m } = o;
  const Y = new Float64Array(rows.length * m);
  rows.forEach((r, k) => Y.set(o.Y.subarray(r * m, (r + 1) * m), k * m));
  return Array.from(paretoIndices(Y, rows.length, m), (k) => rows[k]);
}

/**
 * The most preferred point inside the region's box that no other region has taken; the current
 * centre when none is (it stays inside its own box by definition).
 */
function bestInside(region: RegionMemory, o: Observations, preference: readonly number[], rowOf: Map<string, number>, taken: Set<string>): string {
  const centerRow = rowOf.get(region.center)!;
  const c = o.X.subarray(centerRow * o.d, (centerRow + 1) * o.d);
  for (const row of preference) {
    const id = o.ids[row];
    if (taken.has(id)) continue;
    if (row === centerRow || isInsideBox(boxDistance(o.X.subarray(row * o.d, (row + 1) * o.d), c, region))) return id;
  }
  return region.center;
}

/**
 * Whether a box distance (boxDistance) lies inside the box. Candidates and refined points are
 * clipped onto the box's edge at centre ± half-width, and (c + h − c) / h can round to just above
 * 1: without the tolerance a region could never move its centre to a point on its own edge.
 */
export function isInsideBox(distance: number): boolean {
  return distance <= 1 + 1e-9;
}

/** Chebyshev distance from the centre in units of the box's half-widths (≤ 1 inside). */
export function boxDistance(x: ArrayLike<number>, center: ArrayLike<number>, region: RegionMemory): number {
  let worst = 0;
  for (let j = 0; j < x.length; j++) {
    const half = 0.5 * region.length * (region.weights?.[j] ?? 1);
    worst = Math.max(worst, Math.abs(x[j] - center[j]) / half);
  }
  return worst;
}
