import { pointsInside, reachPicks } from '../../acquisition/reach.js';
import { posteriorPath } from '../../gp/pathwise.js';
import { deserializeHyperparameters, serializeHyperparameters, type GpHyperparameters } from '../../gp/priors.js';
import { standardization } from '../../gp/surrogate.js';
import type { FitRequest, Observations, Strategy, StrategyContext } from '../types.js';
import { localRows, regionBox, regionCandidates } from './candidates.js';
import { penalizedObjectives, rankingObjectives } from '../feasibility.js';
import { refineCandidate, utopiaPoint, type RegionDraw } from './refine.js';
import { regionSettings, updateRegions, type RegionMemory, type TrustRegionMemory } from './regions.js';
import { selectBatch, type CandidatePool } from './selection.js';
import { separableQuadratic } from './quadratic.js';
import { adaptReach, modelSteps, takesModelSteps } from './steps.js';
import { constantPath, modelledOutputs } from './constraint-models.js';

/**
 * Trust regions with local models for high dimensions and large budgets (TuRBO, Eriksson et al.
 * 2019; MORBO, Daulton et al. 2022). Several regions live side by side (regions.ts); each step
 * fits one GP per objective to the points near each region's centre (at most LOCAL_MOST, so a
 * fit costs the same at 200 or 20,000 evaluations), draws Thompson samples of every objective at
 * candidates inside each region (pathwise conditioning, gp/pathwise.ts), refines the first-round
 * picks a short way downhill on the same draws (refine.ts) and picks the batch by greedy
 * hypervolume improvement of the draws among all of them (selection.ts). No acquisition optimization runs
 * per batch point, so a batch of 50 costs what a batch of 5 does.
 */

/** Rows of a local model: at most this many (the dense float64 GP path), at least LOCAL_LEAST. */
const LOCAL_MOST = 200;
const LOCAL_LEAST = 100;
/** Candidates per step over all regions: 100 per dimension, within these limits. */
const CANDIDATES_MIN = 2000;
const CANDIDATES_MAX = 5000;
/** L-BFGS iterations of a local fit (warm-started from the region's previous fit after the first). */
const FIT_ITERATIONS = 60;
/** Lengthscales are clipped to this factor of their median before they shape a box. */
const WEIGHT_RANGE = 10;

interface RegionData {
  region: RegionMemory;
  centerRow: number;
  rows: number[];
  X: Float64Array;
  /** `rows x (m + c)`: the objectives, then the outcome-constraint slacks (the local models' outputs) */
  Y: Float64Array;
}

export const trustRegionStrategy: Strategy = {
  name: 'trust-region',
  plan(context) {
    const { memory, regions } = prepare(context);
    const { m, c, d } = context.observations;
    const w = m + c;
    const fits: FitRequest[] = [];
    regions.forEach((data, r) => {
      const previous = memory.regions[r].hyperparameters;
      const warm = previous?.length === w ? previous : null;
      for (const o of modelledOutputs(data.Y, data.rows.length, m, c)) {
        const { y, std } = standardizedOutput(data.Y, data.rows.length, w, o);
        // a declared measurement sd is held fixed, in the standardized column's units
        const declared = o < m ? context.mdl.objectives[o].noise : undefined;
        fits.push({
          X: data.X,
          y,
          n: data.rows.length,
          d,
          seed: context.random.seed(),
          ...(warm ? { initial: deserializeHyperparameters(warm[o]) } : {}),
          restarts: warm ? 1 : 2,
          maxIterations: FIT_ITERATIONS,
          ...(typeof declared === 'object' ? { noise: (declared.sd / std) ** 2 } : {}),
        });
      }
    });
    return { fits };
  },

  propose(context, fitted) {
    const { memory, regions, penalty } = prepare(context);
    const { observations: o, space, random, q } = context;
    const { m, c, d } = o;
    const w = m + c;
    const perRegion = Math.ceil(Math.min(CANDIDATES_MAX, Math.max(CANDIDATES_MIN, 100 * d)) / regions.length);
    const draws: RegionDraw[] = [];
    let offset = 0;
    const pools: CandidatePool[] = regions.map((data, r) => {
      // plan fitted the same outputs: the regions and their local data are the same in both
      const outputs = modelledOutputs(data.Y, data.rows.length, m, c);
      const models: (GpHyperparameters | null)[] = Array.from({ length: w }, () => null);
      outputs.forEach((k, i) => (models[k] = fitted[offset + i]));
      offset += outputs.length;
      const previous = data.region.hyperparameters;
      const region: RegionMemory = {
        ...data.region,
        weights: boxWeights(models.slice(0, m) as GpHyperparameters[], d),
        // a skipped constraint keeps its last fit, or the first objective's, as the warm start of its next fit
        hyperparameters: models.map((model, k) =>
          serializeHyperparameters(model ?? (previous?.length === w ? deserializeHyperparameters(previous[k]) : models[0]!)),
        ),
      };
      memory.regions[r] = region;
      const center = o.X.slice(data.centerRow * d, (data.centerRow + 1) * d);
      const draw: RegionDraw = { paths: [], mean: [], std: [], ...regionBox(space, center, region) };
      for (let k = 0; k < w; k++) {
        const { y, mean, std } = standardizedOutput(data.Y, data.rows.length, w, k);
        const model = models[k];
        draw.paths.push(model ? posteriorPath(data.X, y, data.rows.length, d, model, random) : constantPath(Math.min(...y)));
        draw.mean.push(mean);
        draw.std.push(std);
      }
      draws.push(draw);
      const candidates = regionCandidates(space, center, region, perRegion, random);
      return { region: r, ...sampled(draw, candidates.X, candidates.count, m, penalty) };
    });
    // the scalarization's origin for refinement and model steps alike
    const utopia = utopiaPoint([o.Y.subarray(0, o.n * m), ...pools.map((p) => p.S)], m, penalty.spread);
    const steps = takesModelSteps(q, regions.length) ? stepsOf(regions, memory, utopia, context, penalty) : [];
    const thompson = q - steps.length;
    // before enough observed points are inside the reference box, the later picks head for it
    const reach = reachPicks(thompson, pointsInside(penalty.Y, o.n, m, o.ref!), m);
    const first = selectBatch(pools, penalty.Y, o.n, m, o.ref!, thompson, random, reach);
    const refined = refinePicks(pools, first, draws, utopia, context, penalty);
    const picks = selectBatch(refined, penalty.Y, o.n, m, o.ref!, thompson, random, reach);
    const points = [...steps.map((s) => s.point), ...picks.map(({ pool, row }) => refined[pool].X.slice(row * d, (row + 1) * d))];
    memory.lastBatch = {
      ids: context.proposalIds.slice(0, points.length),
      regions: [...steps.map((s) => s.region), ...picks.map((p) => refined[p.pool].region)],
      steps: [...steps.map((s) => s.factor), ...picks.map(() => 0)],
    };
    // Thompson draws ranked by hypervolume improvement, with sampled infeasibility folded in when constrained.
    const ranking = reach === thompson ? 'thompson-reach' : reach > 0 ? 'thompson-hvi + reach' : 'thompson-hvi';
    const acquisition = c > 0 ? `constrained ${ranking}` : ranking;
    return { points, label: 'trust-region', acquisition, memory, hyperparameters: fitted.slice(0, m) };
  },
};

/**
 * The draws of every objective and slack at `count x d` candidates X, as the pool's `count x m`
 * S: the sampled objectives, moved beyond the reference point where a sampled slack is negative
 * (feasibility.ts), so selection only counts candidates the draw says are feasible.
 */
function sampled(draw: RegionDraw, X: Float64Array, count: number, m: number, penalty: Penalty): Omit<CandidatePool, 'region'> {
  const w = draw.paths.length;
  const c = w - m;
  const values = new Float64Array(count * w);
  draw.paths.forEach((path, k) => {
    const at = path.at(X, count);
    for (let i = 0; i < count; i++) values[i * w + k] = draw.mean[k] + draw.std[k] * at[i];
  });
  const Y = new Float64Array(count * m);
  const slacks = new Float64Array(count * c);
  for (let i = 0; i < count; i++) {
    Y.set(values.subarray(i * w, i * w + m), i * m);
    slacks.set(values.subarray(i * w + m, (i + 1) * w), i * c);
  }
  const S = penalizedObjectives(Y, slacks, count, m, c, penalty.ref, penalty.spread, penalty.scale);
  return { X, S, count };
}

/** How infeasibility is folded into objectives this step, and the observations so folded. */
interface Penalty {
  ref: readonly number[];
  spread: Float64Array;
  scale: Float64Array;
  /** `n x m` observed objectives with infeasible rows moved beyond the reference point */
  Y: Float64Array;
}

function penaltyOf(o: Observations): Penalty {
  return { ref: o.ref!, ...rankingObjectives(o) };
}

/**
 * The pools with a gradient-refined copy of every first-round pick added (refine.ts): the final
 * selection then weighs refined points against the random candidates on the same draws.
 */
function refinePicks(
  pools: readonly CandidatePool[],
  picks: readonly { pool: number; row: number }[],
  draws: readonly RegionDraw[],
  utopia: Float64Array,
  context: StrategyContext,
  penalty: Penalty,
): CandidatePool[] {
  const { m, d } = context.observations;
  const objectives = draws.map((draw) => objectivesOf(draw, m));
  const added = pools.map(() => [] as Float64Array[]);
  for (const { pool, row } of picks) {
    const start = pools[pool].X.slice(row * d, (row + 1) * d);
    const point = refineCandidate(context.space, objectives[pool], start, utopia, penalty.spread);
    if (point) added[pool].push(point);
  }
  return pools.map((p, k) => {
    if (added[k].length === 0) return p;
    const extra = new Float64Array(added[k].length * d);
    added[k].forEach((point, i) => extra.set(point, i * d));
    const more = sampled(draws[k], extra, added[k].length, m, penalty);
    const X = new Float64Array((p.count + more.count) * d);
    X.set(p.X.subarray(0, p.count * d));
    X.set(extra, p.count * d);
    const S = new Float64Array((p.count + more.count) * m);
    S.set(p.S.subarray(0, p.count * m));
    S.set(more.S, p.count * m);
    return { region: p.region, X, S, count: p.count + more.count };
  });
}

/**
 * Every region's model steps (steps.ts) on separable quadratic models of its local data, leaving
 * out those whose models predict a violated outcome constraint.
 */
function stepsOf(
  regions: readonly RegionData[],
  memory: TrustRegionMemory,
  utopia: Float64Array,
  context: StrategyContext,
  penalty: Penalty,
): { point: Float64Array; factor: number; region: number }[] {
  const { observations: o, space } = context;
  const { m, c, d } = o;
  const w = m + c;
  const out: { point: Float64Array; factor: number; region: number }[] = [];
  regions.forEach((data, r) => {
    const region = memory.regions[r];
    const center = o.X.slice(data.centerRow * d, (data.centerRow + 1) * d);
    const model: RegionDraw = { paths: [], mean: [], std: [], ...regionBox(space, center, region) };
    for (let k = 0; k < w; k++) {
      const { y, mean, std } = standardizedOutput(data.Y, data.rows.length, w, k);
      model.paths.push(separableQuadratic(data.X, y, data.rows.length, d, center));
      model.mean.push(mean);
      model.std.push(std);
    }
    for (const step of modelSteps(space, objectivesOf(model, m), center, region, utopia, penalty.spread)) {
      const slacks = model.paths.slice(m).map((path, j) => model.mean[m + j] + model.std[m + j] * path.at(step.point, 1)[0]);
      if (slacks.every((s) => s >= 0)) out.push({ ...step, region: r });
    }
  });
  return out;
}

/** The draw (or model) of the m objectives alone, without the outcome-constraint slacks after them. */
function objectivesOf(draw: RegionDraw, m: number): RegionDraw {
  return { ...draw, paths: draw.paths.slice(0, m), mean: draw.mean.slice(0, m), std: draw.std.slice(0, m) };
}

/**
 * This step's regions (judged and re-centred on the observations with infeasibility folded in)
 * and the local data of each.
 */
function prepare(context: StrategyContext): { memory: TrustRegionMemory; regions: RegionData[]; penalty: Penalty } {
  const o = context.observations;
  const penalty = penaltyOf(o);
  const rowOf = new Map(o.ids.map((id, i) => [id, i]));
  const previous = context.memory as TrustRegionMemory | undefined;
  // step reaches are judged from where the last steps started, before the regions re-centre
  const judged = previous && { ...previous, regions: adaptReach(previous, penalty.Y.subarray(0, o.n * o.m), o.m, rowOf) };
  const memory = updateRegions(judged, { ...o, Y: penalty.Y }, regionSettings(o.d, context.q));
  const regions = memory.regions.map((region) => {
    const centerRow = rowOf.get(region.center)!;
    const rows = localRows(o, centerRow, region, Math.min(LOCAL_LEAST, LOCAL_MOST), LOCAL_MOST);
    return { region, centerRow, rows, ...gather(o, rows) };
  });
  return { memory, regions, penalty };
}

/** The local rows' inputs and outputs (`rows x (m + c)`: objectives, then slacks). */
function gather(o: Observations, rows: readonly number[]): { X: Float64Array; Y: Float64Array } {
  const { d, m, c } = o;
  const w = m + c;
  const X = new Float64Array(rows.length * d);
  const Y = new Float64Array(rows.length * w);
  rows.forEach((r, i) => {
    X.set(o.X.subarray(r * d, (r + 1) * d), i * d);
    Y.set(o.Y.subarray(r * m, (r + 1) * m), i * w);
    Y.set(o.C.subarray(r * c, (r + 1) * c), i * w + m);
  });
  return { X, Y };
}

/** Column k of `n x m` Y standardized, with the mean and std to undo it. */
function standardizedOutput(Y: Float64Array, n: number, m: number, k: number): { y: Float64Array; mean: number; std: number } {
  const raw = Float64Array.from({ length: n }, (_, i) => Y[i * m + k]);
  const { mean, std } = standardization(raw);
  return { y: raw.map((v) => (v - mean) / std), mean, std };
}

/**
 * TuRBO's box shape: per coordinate, the lengthscale over the geometric mean of all of them
 * (averaged in log space over the objectives), so the box is long where the objectives change
 * slowly. Lengthscales are first clipped to WEIGHT_RANGE of their median: an input that no
 * objective uses should open its coordinate, not squeeze all the others to nothing.
 */
function boxWeights(models: readonly GpHyperparameters[], d: number): number[] {
  const logs = new Float64Array(d);
  for (const h of models) for (let j = 0; j < d; j++) logs[j] += Math.log(h.lengthscales[j]) / models.length;
  const median = Array.from(logs).sort((a, b) => a - b)[Math.floor(d / 2)];
  const limit = Math.log(WEIGHT_RANGE);
  let mean = 0;
  for (let j = 0; j < d; j++) {
    logs[j] = Math.min(median + limit, Math.max(median - limit, logs[j]));
    mean += logs[j] / d;
  }
  return Array.from(logs, (v) => Math.exp(v - mean));
}
