import type { ReachFrame } from '../../acquisition/reach-frame.js';
import { serializeHyperparameters, type GpHyperparameters } from '../../gp/priors.js';
import { localLengthscales } from '../../gp/warp.js';
import type { CompiledCampaign, FitRequest, Observations, Strategy, StrategyContext, StrategyOutcome } from '../types.js';
import { donorRows, localPartial, localRows, regionBox, regionCandidates } from './candidates.js';
import { basinMoves } from './basins.js';
import { globalPickCount, globalPicks } from './global-pick.js';
import { centerPreference } from './centers.js';
import { rankingObjectives } from '../feasibility.js';
import {
  disposeRegionModels,
  fitCount,
  localData,
  regionFits,
  regionModels,
  sampleAt,
  standardizedColumns,
  type LocalData,
  type RegionModels,
} from './models.js';
import { drawOfPaths, lineSearchTrials, refineCandidates, towardUtopia, utopiaPoint } from './refine.js';
import { regionSettings, updateRegions, type RegionMemory, type TrustRegionMemory } from './regions.js';
import { regionProbes } from './probes.js';
import { selectBatch, type CandidatePool } from './selection.js';
import { separableQuadratics } from './quadratic.js';
import { adaptReach, modelSteps, stepScalarization, takesModelSteps } from './steps.js';

/**
 * Trust regions with local models for high dimensions and large budgets (TuRBO, Eriksson et al.
 * 2019; MORBO, Daulton et al. 2022). Several regions live side by side (regions.ts); each step
 * fits one GP per objective to the points near each region's centre (at most LOCAL_MOST, so a
 * fit costs the same at 200 or 20,000 evaluations), and one GP shared by the outcome constraints
 * that some of those points violate (models.ts), draws Thompson samples of every objective at
 * candidates inside each region (pathwise conditioning, gp/pathwise.ts), refines the first-round
 * picks a short way downhill on the same draws (refine.ts) and picks the batch by greedy
 * hypervolume improvement of the draws among all of them (selection.ts). No acquisition optimization runs
 * per batch point, so a batch of 50 costs what a batch of 5 does.
 */

/** Rows of a local model: at most this many (the dense float64 GP path), at least LOCAL_LEAST. */
const LOCAL_MOST = 200;
const LOCAL_LEAST = 100;
/** Partial measurements (some objectives missing) near a region that its objectives' models add: at most this many. */
const LOCAL_PARTIAL = 100;
/**
 * Candidates per step over all regions: 100 per dimension, within these limits, on every backend.
 * More do not help: on DTLZ2 in 30 dimensions to 2,000 evaluations, eight times as many (what a
 * GPU draws in the same time) ended at 0.414 against 0.416 (2 seeds): the greedy selection then
 * finds the draws' extremes far from the data, where they are prior noise.
 */
const CANDIDATES_MIN = 2000;
const CANDIDATES_MAX = 5000;
/** L-BFGS iterations of a local fit (warm-started from the region's previous fit after the first). */
const FIT_ITERATIONS = 60;
/** Rows of a region's quadratic models (steps.ts), per coefficient. */
const QUADRATIC_ROWS = 2;
/** Lengthscales are clipped to this factor of their median before they shape a box. */
const WEIGHT_RANGE = 10;

interface RegionData extends LocalData {
  region: RegionMemory;
  centerRow: number;
}

export const trustRegionStrategy: Strategy = {
  name: 'trust-region',
  plan(context) {
    const { memory, regions } = regionsOf(context);
    const declared = context.campaign.noiseSd;
    const fits: FitRequest[] = [];
    regions.forEach((data, r) =>
      fits.push(...regionFits(data, context.observations.d, memory.regions[r], declared, FIT_ITERATIONS, context.random, context.campaign.exact)),
    );
    return { fits };
  },

  async propose(context, fitted) {
    const models: RegionModels[] = [];
    try {
      return await proposeFrom(context, fitted, models);
    } finally {
      for (const model of models) disposeRegionModels(model);
    }
  },
};

/**
 * The batch from the fitted models: the regions' draws at their candidates (evaluated on the
 * tensor backend), refinement, model steps and greedy selection. Every region's draws are pushed
 * onto `models` as they are made, so the caller frees their tensors whatever happens.
 */
async function proposeFrom(context: StrategyContext, fitted: readonly GpHyperparameters[], models: RegionModels[]): Promise<StrategyOutcome> {
  const prepared = regionsOf(context);
  const { regions, penalty, waiting } = prepared;
  // the batch's regions replace their entries: the prepared memory stays as both phases saw it
  const memory: TrustRegionMemory = { ...prepared.memory, regions: [...prepared.memory.regions] };
  const { observations: o, space, random, q } = context;
  const { m, d } = o;
  const perRegion = Math.ceil(Math.min(CANDIDATES_MAX, Math.max(CANDIDATES_MIN, 100 * d)) / regions.length);
  let next = 0;
  // every region recombines with the front (candidates.ts, DONOR_SHARE), infeasibility folded in
  const front = donorRows(penalty.Y, o.n, m, penalty.frame, regions.length);
  // the random streams are drawn region by region; the draws are then evaluated together
  const sampled = regions.map((data, r) => {
    const objectives = fitted.slice(next, next + m);
    const constraints = data.active.length > 0 ? fitted[next + m] : null;
    next += fitCount(data, m);
    const region: RegionMemory = {
      ...data.region,
      weights: boxWeights(objectives, d, o.X.subarray(data.centerRow * d, (data.centerRow + 1) * d)),
      hyperparameters: objectives.map(serializeHyperparameters),
      ...(constraints ? { constraints: serializeHyperparameters(constraints) } : {}),
    };
    memory.regions[r] = region;
    const center = o.X.slice(data.centerRow * d, (data.centerRow + 1) * d);
    const model = regionModels(data, d, { objectives, constraints }, regionBox(space, center, region), penalty.scale, random);
    models.push(model);
    const donors = front.filter((row) => row !== data.centerRow).map((row) => o.X.subarray(row * d, (row + 1) * d));
    return { region: r, model, candidates: regionCandidates(space, center, region, perRegion, random, donors) };
  });
  const pools: CandidatePool[] = await Promise.all(
    sampled.map(async ({ region, model, candidates }) => ({ region, ...(await sampleAt(model, candidates.X, candidates.count, penalty.ref, penalty.spread)) })),
  );
  // the scalarization's origin for refinement and model steps alike
  const utopia = utopiaPoint([o.Y.subarray(0, o.n * m), ...pools.map((p) => p.S)], m, penalty.spread);
  // once nothing improves, spent regions move to basin starts (basins.ts), first in the batch
  const basins = basinMoves(
    memory,
    { ...o, Y: penalty.Y },
    penalty.frame,
    space,
    () => centerPreference(penalty.Y, o.n, m, o.ref!, penalty.spread),
    random,
  ).slice(0, q);
  if (basins.length > 0) {
    memory.moves = basins.map((move, k) => ({ id: context.proposalIds[k], region: move.region, length: move.length }));
    memory.stalled = 0;
  }
  const stepped = takesModelSteps(q, regions.length) ? await stepsOf(regions, memory, utopia, context, penalty) : [];
  const moved = basins.map((move) => ({ point: move.point, factor: 0, region: move.region }));
  const steps = [...moved, ...stepped, ...(await regionProbes(regions, models, context, penalty.ref, penalty.spread, q - moved.length - stepped.length))].slice(
    0,
    q,
  );
  // a lone region whose model covers every observation leaves a place to the global acquisition (global-pick.ts)
  const global = globalPickCount(regions.length, regions[0]?.rows.length ?? 0, o.n, o.c, q - steps.length);
  const thompson = q - steps.length - global;
  // before enough observed points are inside the reference box, the later picks head for it
  const reach = { picks: penalty.frame.picks(thompson, 'local'), scale: penalty.frame.scale };
  // candidates still pending join the front at their draws' values, so the picks go elsewhere
  const baseline = await withFantasies(penalty, o, regions, models);
  const first = selectBatch(pools, baseline.Y, baseline.n, m, o.ref!, thompson, random, reach);
  const refined = await refinePicks(pools, first, models, utopia, context, penalty);
  const picks = selectBatch(refined, baseline.Y, baseline.n, m, o.ref!, thompson, random, reach);
  const points = [...steps.map((s) => s.point), ...picks.map(({ pool, row }) => refined[pool].X.slice(row * d, (row + 1) * d))];
  const whole = global > 0 ? await globalPicks(context, fitted.slice(0, m), points, global) : null;
  if (whole) points.push(...whole.points);
  // the global picks count as the lone region's (index 0: their success grows it too), with no step factor
  const zeros = whole ? whole.points.map(() => 0) : [];
  // a batch still pending is judged with this one, when their results are in
  memory.lastBatch = {
    ids: [...(waiting?.ids ?? []), ...context.proposalIds.slice(0, points.length)],
    regions: [...(waiting?.regions ?? []), ...steps.map((s) => s.region), ...picks.map((p) => refined[p.pool].region), ...zeros],
    steps: [...(waiting?.steps ?? waiting?.ids.map(() => 0) ?? []), ...steps.map((s) => s.factor), ...picks.map(() => 0), ...zeros],
  };
  // Thompson draws ranked by hypervolume improvement, with sampled infeasibility folded in when constrained.
  const ranking = reach.picks === thompson ? 'thompson-reach' : reach.picks > 0 ? 'thompson-hvi + reach' : 'thompson-hvi';
  const acquisition = o.c > 0 ? `constrained ${ranking}` : whole ? `${ranking} + global ${whole.label}` : ranking;
  return { points, label: 'trust-region', acquisition, memory, hyperparameters: fitted.slice(0, m) };
}

/**
 * The folded `n x m` objectives followed by a fantasy of every pending candidate (an asynchronous
 * step): its value under the Thompson draw of the region whose centre is nearest. Without pending
 * candidates, the folded objectives themselves.
 */
async function withFantasies(
  penalty: Penalty,
  o: Observations,
  regions: readonly RegionData[],
  models: readonly RegionModels[],
): Promise<{ Y: Float64Array; n: number }> {
  const pending = o.pending ?? [];
  if (pending.length === 0 || regions.length === 0) return { Y: penalty.Y, n: o.n };
  const { m, d } = o;
  const Y = new Float64Array((o.n + pending.length) * m);
  Y.set(penalty.Y.subarray(0, o.n * m));
  const fantasies = pending.map((x) => {
    let nearest = 0;
    let best = Infinity;
    regions.forEach((data, r) => {
      let distance = 0;
      for (let j = 0; j < d; j++) distance += (x[j] - o.X[data.centerRow * d + j]) ** 2;
      if (distance < best) [best, nearest] = [distance, r];
    });
    return sampleAt(models[nearest], Float64Array.from(x), 1, penalty.ref, penalty.spread);
  });
  (await Promise.all(fantasies)).forEach((fantasy, k) => Y.set(fantasy.S.subarray(0, m), (o.n + k) * m));
  return { Y, n: o.n + pending.length };
}

/**
 * The last batch split into its candidates already told, judged now, and those still pending
 * (after an asynchronous step), judged with the next batch.
 */
function splitBatch(batch: TrustRegionMemory['lastBatch'], pendingIds: ReadonlySet<string>) {
  if (!batch) return { told: null, waiting: null };
  const part = (keep: (id: string) => boolean) => {
    const rows = batch.ids.flatMap((id, k) => (keep(id) ? [k] : []));
    return {
      ids: rows.map((k) => batch.ids[k]),
      regions: rows.map((k) => batch.regions[k]),
      ...(batch.steps ? { steps: rows.map((k) => batch.steps![k]) } : {}),
    };
  };
  const waiting = part((id) => pendingIds.has(id));
  return { told: part((id) => !pendingIds.has(id)), waiting: waiting.ids.length > 0 ? waiting : null };
}

/**
 * How infeasibility is folded into objectives this step, and the observations so folded. The
 * objectives' unit `spread` is the reach frame's scale: folding, refinement, model steps and the
 * reach picks all measure in it.
 */
interface Penalty {
  frame: ReachFrame;
  ref: readonly number[];
  spread: Float64Array;
  scale: Float64Array;
  /** `n x m` observed objectives with infeasible rows moved beyond the reference point */
  Y: Float64Array;
}

function penaltyOf(o: Observations, frame: ReachFrame): Penalty {
  return { frame, ref: frame.ref, ...rankingObjectives(o, frame) };
}

/**
 * The pools with a gradient-refined copy of every first-round pick added (refine.ts): the final
 * selection then weighs refined points against the random candidates on the same draws.
 */
async function refinePicks(
  pools: readonly CandidatePool[],
  picks: readonly { pool: number; row: number }[],
  models: readonly RegionModels[],
  utopia: Float64Array,
  context: StrategyContext,
  penalty: Penalty,
): Promise<CandidatePool[]> {
  const { m, d } = context.observations;
  const added = pools.map(() => [] as Float64Array[]);
  const jobs = picks.map(({ pool, row }) => ({
    draw: models[pool].draw,
    start: pools[pool].X.slice(row * d, (row + 1) * d),
    scalarization: towardUtopia(utopia),
  }));
  const refined = await refineCandidates(context.space, jobs, penalty.spread, lineSearchTrials(context.computeScale));
  picks.forEach(({ pool }, k) => {
    if (refined[k]) added[pool].push(refined[k]);
  });
  const extended = pools.map(async (p, k) => {
    if (added[k].length === 0) return p;
    const extra = new Float64Array(added[k].length * d);
    added[k].forEach((point, i) => extra.set(point, i * d));
    const more = await sampleAt(models[k], extra, added[k].length, penalty.ref, penalty.spread);
    const X = new Float64Array((p.count + more.count) * d);
    X.set(p.X.subarray(0, p.count * d));
    X.set(extra, p.count * d);
    const S = new Float64Array((p.count + more.count) * m);
    S.set(p.S.subarray(0, p.count * m));
    S.set(more.S, p.count * m);
    return { region: p.region, X, S, count: p.count + more.count };
  });
  return Promise.all(extended);
}

/**
 * Every region's model steps (steps.ts) on separable quadratic models of its local data (one
 * factorization for the objectives and the active constraints' slacks), leaving out those whose
 * models predict a violated active constraint.
 */
async function stepsOf(
  regions: readonly RegionData[],
  memory: TrustRegionMemory,
  utopia: Float64Array,
  context: StrategyContext,
  penalty: Penalty,
): Promise<{ point: Float64Array; factor: number; region: number }[]> {
  const { observations: o, space } = context;
  const { m, d } = o;
  const out: { point: Float64Array; factor: number; region: number }[] = [];
  // the quadratic's 2d + 1 coefficients want QUADRATIC_ROWS rows each: beyond the GP's rows, the region's nearest
  const least = QUADRATIC_ROWS * (2 * d + 1);
  for (const [r, local] of regions.entries()) {
    const region = memory.regions[r];
    const center = o.X.slice(local.centerRow * d, (local.centerRow + 1) * d);
    const data = local.rows.length >= least ? local : localData(o, localRows(o, local.centerRow, local.region, least, least), local.active);
    const n = data.rows.length;
    const a = data.active.length;
    const w = m + a;
    const joined = new Float64Array(n * w);
    for (let i = 0; i < n; i++) {
      joined.set(data.Y.subarray(i * m, (i + 1) * m), i * w);
      joined.set(data.S.subarray(i * a, (i + 1) * a), i * w + m);
    }
    const { y, mean, std } = standardizedColumns(joined, n, w);
    const paths = separableQuadratics(data.X, y, n, d, w, center);
    const model = drawOfPaths(paths.slice(0, m), { mean: mean.slice(0, m), std: std.slice(0, m), ...regionBox(space, center, region) });
    const scalarization = stepScalarization(penalty.Y, local.centerRow, m, o.ref!, penalty.spread, utopia);
    for (const step of await modelSteps(space, model, center, region, scalarization, penalty.spread)) {
      const slacks = paths.slice(m).map((path, j) => mean[m + j] + std[m + j] * path.at(step.point, 1)[0]);
      if (slacks.every((s) => s >= 0)) out.push({ ...step, region: r });
    }
  }
  return out;
}

interface PreparedRegions {
  memory: TrustRegionMemory;
  regions: RegionData[];
  penalty: Penalty;
  waiting: TrustRegionMemory['lastBatch'];
}

/**
 * The regions of a step's compiled campaign, prepared by whichever phase asks first. `step` runs
 * plan and propose on one compiled campaign, so judging and re-centring the regions and choosing
 * their local rows (a tenth of a second at 3,000 evaluations in 30 dimensions) happen once; a
 * caller that plans and proposes apart compiles twice and prepares twice, to the same result.
 */
const preparedRegions = new WeakMap<CompiledCampaign, PreparedRegions>();

function regionsOf(context: StrategyContext): PreparedRegions {
  let prepared = preparedRegions.get(context.campaign);
  if (!prepared) {
    prepared = prepare(context);
    preparedRegions.set(context.campaign, prepared);
  }
  return prepared;
}

/**
 * This step's regions (judged and re-centred on the observations with infeasibility folded in)
 * and the local data of each.
 */
function prepare(context: StrategyContext): PreparedRegions {
  const o = context.observations;
  const penalty = penaltyOf(o, context.campaign.reach!);
  const rowOf = new Map(o.ids.map((id, i) => [id, i]));
  const remembered = context.memory as TrustRegionMemory | undefined;
  // candidates of the last batch still pending are not failures of their region: they wait
  const { told, waiting } = splitBatch(remembered?.lastBatch ?? null, new Set(o.pendingIds ?? []));
  const previous = remembered && { ...remembered, lastBatch: told };
  // step reaches are judged from where the last steps started, before the regions re-centre
  const judged = previous && { ...previous, regions: adaptReach(previous, penalty.Y.subarray(0, o.n * o.m), o.m, o.ref!, penalty.spread, rowOf) };
  const memory = updateRegions(judged, { ...o, Y: penalty.Y }, regionSettings(o.d, context.q), penalty.spread);
  const regions = memory.regions.map((region) => {
    const centerRow = rowOf.get(region.center)!;
    const rows = localRows(o, centerRow, region, Math.min(LOCAL_LEAST, LOCAL_MOST), LOCAL_MOST);
    const partial = localPartial(o, centerRow, region, rows, LOCAL_PARTIAL);
    return { region, centerRow, ...localData(o, rows), ...(partial ? { partial } : {}) };
  });
  return { memory, regions, penalty, waiting };
}

/**
 * TuRBO's box shape: per coordinate, the lengthscale over the geometric mean of all of them
 * (averaged in log space over the objectives), so the box is long where the objectives change
 * slowly. Lengthscales are first clipped to WEIGHT_RANGE of their median: an input that no
 * objective uses should open its coordinate, not squeeze all the others to nothing. A warped
 * model's lengthscales are taken in raw units at the region's center (gp/warp.ts).
 */
function boxWeights(models: readonly GpHyperparameters[], d: number, center: ArrayLike<number>): number[] {
  const logs = new Float64Array(d);
  for (const h of models) {
    const lengthscales = localLengthscales(h.lengthscales, h.warp, center);
    for (let j = 0; j < d; j++) logs[j] += Math.log(lengthscales[j]) / models.length;
  }
  const median = Array.from(logs).sort((a, b) => a - b)[Math.floor(d / 2)];
  const limit = Math.log(WEIGHT_RANGE);
  let mean = 0;
  for (let j = 0; j < d; j++) {
    logs[j] = Math.min(median + limit, Math.max(median - limit, logs[j]));
    mean += logs[j] / d;
  }
  return Array.from(logs, (v) => Math.exp(v - mean));
}
