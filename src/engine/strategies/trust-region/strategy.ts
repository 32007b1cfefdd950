import { samplePosteriorPath } from '../../gp/pathwise.js';
import {
  deserializeHyperparameters,
  serializeHyperparameters,
  type GpHyperparameters,
} from '../../gp/priors.js';
import { standardization } from '../../gp/surrogate.js';
import type { FitRequest, Observations, Strategy, StrategyContext } from '../types.js';
import { localRows, regionCandidates } from './candidates.js';
import { regionSettings, updateRegions, type RegionMemory, type TrustRegionMemory } from './regions.js';
import { selectBatch, type CandidatePool } from './selection.js';

/**
 * Trust regions with local models for high dimensions and large budgets (TuRBO, Eriksson et al.
 * 2019; MORBO, Daulton et al. 2022). Several regions live side by side (regions.ts); each step
 * fits one GP per objective to the points near each region's centre (at most LOCAL_MOST, so a
 * fit costs the same at 200 or 20,000 evaluations), draws Thompson samples of every objective at
 * candidates inside each region (pathwise conditioning, gp/pathwise.ts) and picks the batch by
 * greedy hypervolume improvement of the draws (selection.ts). No acquisition optimization runs
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
  /** `rows x m` */
  Y: Float64Array;
}

export const trustRegionStrategy: Strategy = {
  name: 'trust-region',
  plan(context) {
    const { memory, regions } = prepare(context);
    const { m, d } = context.observations;
    const fits: FitRequest[] = [];
    regions.forEach((data, r) => {
      const warm = memory.regions[r].hyperparameters;
      for (let o = 0; o < m; o++) {
        fits.push({
          X: data.X,
          y: standardizedOutput(data.Y, data.rows.length, m, o).y,
          n: data.rows.length,
          d,
          seed: context.random.seed(),
          ...(warm ? { initial: deserializeHyperparameters(warm[o]) } : {}),
          restarts: warm ? 1 : 2,
          maxIterations: FIT_ITERATIONS,
        });
      }
    });
    return { fits };
  },

  propose(context, fitted) {
    const { memory, regions } = prepare(context);
    const { observations: o, space, random, q } = context;
    const { m, d } = o;
    const perRegion = Math.ceil(Math.min(CANDIDATES_MAX, Math.max(CANDIDATES_MIN, 100 * d)) / regions.length);
    const pools: CandidatePool[] = regions.map((data, r) => {
      const models = fitted.slice(r * m, (r + 1) * m);
      const region: RegionMemory = {
        ...data.region,
        weights: boxWeights(models, d),
        hyperparameters: models.map(serializeHyperparameters),
      };
      memory.regions[r] = region;
      const center = o.X.slice(data.centerRow * d, (data.centerRow + 1) * d);
      const candidates = regionCandidates(space, center, region, perRegion, random);
      const S = new Float64Array(candidates.count * m);
      for (let k = 0; k < m; k++) {
        const { y, mean, std } = standardizedOutput(data.Y, data.rows.length, m, k);
        const draw = samplePosteriorPath(data.X, y, data.rows.length, d, models[k], candidates.X, candidates.count, random);
        for (let i = 0; i < candidates.count; i++) S[i * m + k] = mean + std * draw[i];
      }
      return { region: r, X: candidates.X, S, count: candidates.count };
    });
    const picks = selectBatch(pools, o.Y, o.n, m, o.ref!, q, random);
    const points = picks.map(({ pool, row }) => pools[pool].X.slice(row * d, (row + 1) * d));
    memory.lastBatch = { ids: context.proposalIds.slice(0, points.length), regions: picks.map((p) => pools[p.pool].region) };
    return { points, label: 'trust-region', memory, hyperparameters: fitted.slice(0, m) };
  },
};

/** This step's regions (judged and re-centred) and the local data of each. */
function prepare(context: StrategyContext): { memory: TrustRegionMemory; regions: RegionData[] } {
  const o = context.observations;
  const memory = updateRegions(context.memory as TrustRegionMemory | undefined, o, regionSettings(o.d, context.q));
  const rowOf = new Map(o.ids.map((id, i) => [id, i]));
  const regions = memory.regions.map((region) => {
    const centerRow = rowOf.get(region.center)!;
    const rows = localRows(o, centerRow, region, Math.min(LOCAL_LEAST, LOCAL_MOST), LOCAL_MOST);
    return { region, centerRow, rows, ...gather(o, rows) };
  });
  return { memory, regions };
}

function gather(o: Observations, rows: readonly number[]): { X: Float64Array; Y: Float64Array } {
  const { d, m } = o;
  const X = new Float64Array(rows.length * d);
  const Y = new Float64Array(rows.length * m);
  rows.forEach((r, i) => {
    X.set(o.X.subarray(r * d, (r + 1) * d), i * d);
    Y.set(o.Y.subarray(r * m, (r + 1) * m), i * m);
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
