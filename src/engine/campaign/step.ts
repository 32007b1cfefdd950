import { proposeBatch } from '../acquisition/batch.js';
import { latinHypercube } from '../design.js';
import type { Mdl } from '../mdl/schema.js';
import { Random } from '../random.js';
import { SearchSpace } from '../space.js';
import { objectiveMatrix } from './objective-space.js';
import { budgetUsed } from './state.js';
import {
  deserializeHyperparameters,
  serializeHyperparameters,
  type CampaignState,
  type Proposal,
} from './types.js';

export interface StepResult {
  state: CampaignState;
  proposals: Proposal[];
  /** how the batch was chosen: initial-design, random, lhs, ehvi, mc-ehvi or parego */
  strategy: string;
}

/** Successful evaluations needed before a surrogate is worth fitting. */
const MIN_MODEL_DATA = 2;

/**
 * Proposes the next iteration's batch. Pure: the same MDL and state give the same proposals,
 * because every random draw comes from a generator seeded by the campaign seed and the iteration.
 * The proposals are recorded as pending in the returned state; `tell` completes the iteration.
 */
export function step(mdl: Mdl, previous: CampaignState): StepResult {
  const state: CampaignState = structuredClone(previous);
  const remaining = mdl.optimizer.budget - budgetUsed(state);
  if (state.status !== 'running' || remaining <= 0 || state.pending.length > 0) {
    return { state, proposals: [], strategy: 'none' };
  }
  const space = new SearchSpace(mdl);
  const iteration = state.iteration + 1;
  const random = new Random(mixSeed(state.seed, iteration));
  const { points, strategy } = choosePoints(mdl, state, space, random, iteration, remaining);
  const proposals: Proposal[] = points.map((x) => ({
    id: `${state.idPrefix ?? 'eval_'}${state.nextId++}`,
    iteration,
    parameters: space.decode(x),
  }));
  state.pending = proposals;
  return { state, proposals, strategy };
}

function choosePoints(
  mdl: Mdl,
  state: CampaignState,
  space: SearchSpace,
  random: Random,
  iteration: number,
  remaining: number,
): { points: Float64Array[]; strategy: string } {
  const { method, batch_size: batchSize } = mdl.optimizer;
  const hasWarmStart = state.evaluations.some((e) => e.iteration === 0);
  const isDesign = iteration === 1 && !(hasWarmStart && method === 'cma-es');
  const q = Math.min(isDesign ? initialSamples(mdl, space) : batchSize, remaining);

  if (method === 'lhs') {
    const design = latinHypercube(space, mdl.optimizer.budget, new Random(state.seed));
    const used = budgetUsed(state);
    return { points: rows(design, space.dimension, used, used + q), strategy: 'lhs' };
  }
  if (method === 'random') return { points: randomPoints(space, q, random), strategy: 'random' };
  if (isDesign) {
    return { points: rows(latinHypercube(space, q, random), space.dimension, 0, q), strategy: 'initial-design' };
  }

  const { Y, n, m, rows: dataRows } = objectiveMatrix(mdl, state.evaluations);
  if (n < MIN_MODEL_DATA || state.referencePoint === null) {
    return { points: randomPoints(space, q, random), strategy: 'random' };
  }
  const d = space.dimension;
  const X = new Float64Array(n * d);
  dataRows.forEach((r, i) => X.set(space.snap(space.encode(state.evaluations[r].parameters)), i * d));
  const batch = proposeBatch({
    space,
    X,
    Y,
    n,
    m,
    ref: state.referencePoint,
    q,
    pending: [],
    acquisition: mdl.optimizer.acquisition,
    random,
    hyperparameters: state.hyperparameters?.map(deserializeHyperparameters),
  });
  state.hyperparameters = batch.hyperparameters.map(serializeHyperparameters);
  return { points: batch.points, strategy: batch.acquisition };
}

/** Default initial design: 2 (d + 1) points (d = number of parameters), at most half the budget. */
export function initialSamples(mdl: Mdl, space: SearchSpace): number {
  const requested = mdl.optimizer.initial_samples;
  if (requested !== undefined) return requested;
  const byDimension = 2 * (space.parameters.length + 1);
  return Math.max(1, Math.min(byDimension, Math.floor(mdl.optimizer.budget / 2)));
}

function rows(matrix: Float64Array, d: number, from: number, to: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let i = from; i < to; i++) out.push(matrix.slice(i * d, (i + 1) * d));
  return out;
}

/** Uniform random feasible points (repaired where constraints are linear, rejected otherwise). */
function randomPoints(space: SearchSpace, count: number, random: Random): Float64Array[] {
  const out: Float64Array[] = [];
  for (let attempt = 0; out.length < count; attempt++) {
    if (attempt > 1000 * count) {
      throw new Error('Kiln could not sample feasible points: check that the constraints can all hold within the bounds.');
    }
    const x = space.repair(Float64Array.from({ length: space.dimension }, () => random.uniform()));
    if (space.isFeasible(space.decode(x))) out.push(x);
  }
  return out;
}

/** A well-mixed 31-bit seed for one iteration, so iterations draw independent streams. */
function mixSeed(seed: number, iteration: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(iteration, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return (h ^ (h >>> 15)) >>> 1;
}
