import type { GpHyperparameters } from '../gp/priors.js';
import { initialDesignSize } from '../mdl/initial-design.js';
import type { Mdl, ParameterValue } from '../mdl/schema.js';
import { Random } from '../random.js';
import { SearchSpace } from '../space.js';
import { chooseStrategy } from '../strategies/choice.js';
import { fitModel } from '../strategies/fit.js';
import { strategyNamed } from '../strategies/registry.js';
import { randomPoints } from '../strategies/space-filling.js';
import type { FitRequest, Strategy, StrategyContext, StrategyName } from '../strategies/types.js';
import { noiseProbe } from './noise-probe.js';
import { exactObjectives, noisyFront } from './noisy-front.js';
import { observe } from './observations.js';
import { compressTails } from './tail-warp.js';
import { dataHash, mdlHash, proposalsHash, SEED_DERIVATION, stateHash, type Receipt, type ReceiptEnvironment } from './receipt.js';
import { budgetUsed, nextState } from './state.js';
import { deserializeHyperparameters, serializeHyperparameters, type CampaignState, type Proposal } from './types.js';

export interface StepResult {
  state: CampaignState;
  proposals: Proposal[];
  /** how the batch was chosen: initial-design, random, lhs, nsga2, ehvi, mc-ehvi, parego or trust-region */
  strategy: string;
  /** what decided the batch (receipt.ts); null when nothing was proposed */
  receipt: Receipt | null;
}

/**
 * An asynchronous step: `count` more candidates while others are still pending (a lab or a
 * cluster that asks for work before the batch out is finished). The pending candidates are
 * conditioned on (the global model believes its own prediction at each, Kriging believer; the
 * trust regions add each one's Thompson-draw value to the front their picks must improve; no
 * strategy proposes one of them again), so the new picks go elsewhere. The new candidates form
 * an iteration of their own, after the latest pending one. Without `count` a step proposes a
 * batch of `optimizer.batch_size` (or the initial design), and only when nothing is pending.
 */
export interface StepOptions {
  count?: number;
}

/** Successful evaluations needed before a surrogate is worth fitting. */
const MIN_MODEL_DATA = 2;

/**
 * Proposes the next iteration's batch. Pure: the same MDL and state give the same proposals,
 * because every random draw comes from a generator seeded by the campaign seed and the iteration.
 * The proposals are recorded as pending in the returned state; `tell` completes the iteration.
 *
 * `step` fits the models inline. A caller with threads to spare runs `planStep`, spreads the
 * returned fits over them (strategies/fit.ts, `fitModel`) and hands the results to
 * `completeStep`: the proposals are the same either way.
 */
export function step(mdl: Mdl, previous: CampaignState, environment?: ReceiptEnvironment, options: StepOptions = {}): Promise<StepResult> {
  return completeStep(mdl, previous, planStep(mdl, previous, options).map(fitModel), environment, options);
}

/** The GP fits the next step needs (plain data, each with its own seed); empty when none. */
export function planStep(mdl: Mdl, state: CampaignState, options: StepOptions = {}): FitRequest[] {
  const prepared = prepare(mdl, state, options);
  return prepared ? prepared.strategy.plan(prepared.context('plan')).fits : [];
}

/**
 * The next step from the results of `planStep`'s fits, in their order. `environment` (Kiln's
 * version and the tensor backend) goes into the receipt as given: the engine cannot know either.
 */
export async function completeStep(
  mdl: Mdl,
  previous: CampaignState,
  fitted: readonly GpHyperparameters[],
  environment?: ReceiptEnvironment,
  options: StepOptions = {},
): Promise<StepResult> {
  const prepared = prepare(mdl, previous, options);
  const state = nextState(previous);
  if (!prepared) return { state, proposals: [], strategy: 'none', receipt: null };
  const { strategy, space, iteration, seeds } = prepared;
  const computeScale = environment?.compute_scale ?? 1;
  const outcome = await strategy.propose({ ...prepared.context('propose'), computeScale }, fitted);
  state.strategy = prepared.choice;
  if (outcome.memory !== undefined) state.strategies = { ...state.strategies, [strategy.name]: outcome.memory };
  if (outcome.hyperparameters) state.hyperparameters = outcome.hyperparameters.map(serializeHyperparameters);
  const parameters = distinctPoints(space, previous, outcome.points, new Random(mixSeed(seeds.propose, iteration))).map((x) => space.decode(x));
  if (prepared.modelGuided) withReplicates(mdl, previous, parameters);
  const probe = prepared.modelGuided && parameters.length > 0 ? noiseProbe(mdl, previous, state.hyperparameters) : null;
  if (probe) parameters[parameters.length - 1] = probe;
  const proposals: Proposal[] = parameters.map((values) => ({
    id: `${state.idPrefix ?? 'eval_'}${state.nextId++}`,
    iteration,
    parameters: values,
  }));
  state.pending = [...previous.pending, ...proposals];
  const receipt: Receipt = {
    version: 1,
    iteration,
    engine_version: environment?.engine_version ?? null,
    tensor_backend: environment?.tensor_backend ?? null,
    tensor_device: environment?.tensor_device ?? null,
    ...(computeScale !== 1 ? { compute_scale: computeScale } : {}),
    seed: { campaign: previous.seed, iteration: seeds.iteration, plan: seeds.plan, propose: seeds.propose, derivation: SEED_DERIVATION },
    strategy: strategy.name,
    acquisition: outcome.acquisition ?? 'none',
    evaluations_seen: previous.evaluations.length,
    data_hash: dataHash(previous.evaluations),
    state_hash: stateHash(previous),
    mdl_hash: mdlHash(mdl),
    proposals_hash: proposalsHash(proposals),
    ...(options.count !== undefined ? { asked: { count: options.count, pending: previous.pending.length } } : {}),
  };
  // Kept with the pending batch, so a batch resumed after a crash is stored with its receipt.
  if (previous.receipt && previous.pending.some((p) => p.iteration === previous.receipt!.iteration)) {
    state.earlierReceipts = [...(previous.earlierReceipts ?? []), previous.receipt];
  }
  state.receipt = receipt;
  // the job log and the iteration row say why a design comes back
  return { state, proposals, strategy: probe ? `${outcome.label} + noise check` : outcome.label, receipt };
}

interface PreparedStep {
  strategy: Strategy;
  /** the batch comes from a model (global or trust-region), not a design or random points */
  modelGuided: boolean;
  choice: NonNullable<CampaignState['strategy']>;
  space: SearchSpace;
  iteration: number;
  seeds: { iteration: number; plan: number; propose: number };
  context(phase: 'plan' | 'propose'): StrategyContext;
}

/** Everything a step decides before any model is fitted; null when nothing is to be proposed. */
function prepare(mdl: Mdl, state: CampaignState, options: StepOptions): PreparedStep | null {
  const remaining = mdl.optimizer.budget - budgetUsed(state);
  if (state.status !== 'running' || remaining <= 0) return null;
  if (state.pending.length > 0 && !(options.count !== undefined && options.count > 0)) return null;
  const space = new SearchSpace(mdl);
  // an asynchronous step's batch follows the latest one still pending
  const iteration = Math.max(state.iteration, ...state.pending.map((p) => p.iteration)) + 1;
  // measured warm-start rows: failed ones inform the failure model but replace no initial design
  const warmRows = state.evaluations.filter((e) => e.iteration === 0 && e.objectives !== null).length;
  const choice = state.strategy ?? chooseStrategy(mdl, space, warmRows);
  const modelBased = choice.name === 'global' || choice.name === 'trust-region';
  const observations = modelBased ? compressTails(observe(mdl, state, space)) : observe(mdl, state, space);
  // A warm start replaces the initial design; random and lhs have none of their own.
  const isDesign = iteration === 1 && warmRows === 0 && choice.name !== 'random' && choice.name !== 'lhs';
  const q = Math.min(isDesign ? initialDesignSize(mdl) : (options.count ?? mdl.optimizer.batch_size), remaining);

  let name: StrategyName = isDesign ? 'initial-design' : choice.name;
  if (modelBased && !isDesign && (observations.n < MIN_MODEL_DATA || observations.ref === null)) name = 'random';
  const strategy = strategyNamed(name);
  // Plan and propose draw from separate streams, both fixed by the seed and the iteration.
  const iterationSeed = mixSeed(state.seed, iteration);
  const streams = new Random(iterationSeed);
  const seeds = { plan: streams.seed(), propose: streams.seed() };
  const exact = exactObjectives(mdl, state.evaluations);
  return {
    strategy,
    modelGuided: name === 'global' || name === 'trust-region',
    choice,
    space,
    iteration,
    seeds: { iteration: iterationSeed, ...seeds },
    context: (phase) => ({
      mdl,
      space,
      seed: state.seed,
      used: budgetUsed(state),
      observations,
      previousHyperparameters: state.hyperparameters?.map(deserializeHyperparameters) ?? null,
      exactObjectives: exact,
      q,
      iteration,
      proposalIds: Array.from({ length: q }, (_, k) => `${state.idPrefix ?? 'eval_'}${state.nextId + k}`),
      random: new Random(seeds[phase]),
      memory: state.strategies?.[strategy.name],
      // planning searches nothing; completeStep sets the scale it was given
      computeScale: 1,
    }),
  };
}

/** Fresh random draws per duplicate before a duplicate is kept (a small finite space may have no other point). */
const DUPLICATE_REDRAWS = 200;

/**
 * The batch with every point that repeats an evaluated or pending candidate, or an earlier point
 * of the batch, replaced by a random feasible point that repeats none. Points are compared as the
 * evaluator sees them (snapped: integers, steps and listed values rounded), so two proposals
 * that round to one setting are caught. A batch without repeats is returned as it is.
 */
function distinctPoints(space: SearchSpace, state: CampaignState, points: readonly Float64Array[], random: Random): Float64Array[] {
  const key = (x: ArrayLike<number>) => Array.from(x).join(',');
  const seen = new Set<string>();
  for (const e of state.evaluations) seen.add(key(space.snap(space.encode(e.parameters))));
  for (const p of state.pending) seen.add(key(space.snap(space.encode(p.parameters))));
  return points.map((x) => {
    let point = space.snap(x);
    for (let k = 0; seen.has(key(point)) && k < DUPLICATE_REDRAWS; k++) {
      const fresh = randomPoints(space, 1, random)[0];
      if (!seen.has(key(fresh))) point = fresh;
    }
    seen.add(key(point));
    return point;
  });
}

/** A well-mixed 31-bit seed for one iteration, so iterations draw independent streams (receipt.ts SEED_DERIVATION says how). */
function mixSeed(seed: number, iteration: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(iteration, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  return (h ^ (h >>> 15)) >>> 1;
}

/**
 * `optimizer.replicates` in a noisy campaign: designs on the model's front measured fewer times
 * than asked take up to a quarter of the batch (rounded up), replacing its last candidates: the
 * least certain first (largest posterior sd relative to the front's extent along the objective),
 * then the fewest measurements. A replicate repeats the design's parameter values exactly, so its
 * measurements pool into one design (noisy-front.ts). Changes `batch` in place.
 */
function withReplicates(mdl: Mdl, state: CampaignState, batch: Record<string, ParameterValue>[]): void {
  const wanted = mdl.optimizer.replicates ?? 1;
  if (wanted <= 1 || batch.length === 0) return;
  const front = noisyFront(mdl, state)?.designs.filter((design) => design.onFront);
  if (!front || front.length === 0 || state.referencePoint === null) return;
  const ref = state.referencePoint;
  const extent = ref.map((r, j) => Math.max(r - Math.min(...front.map((design) => design.predicted[j])), 1e-12));
  const uncertainty = (design: (typeof front)[number]) => Math.max(...Array.from(design.sd, (sd, j) => sd / extent[j]));
  const due = front
    .filter((design) => design.rows.length < wanted)
    .sort((a, b) => uncertainty(b) - uncertainty(a) || a.rows.length - b.rows.length || a.rows[0] - b.rows[0]);
  const slots = Math.min(due.length, Math.ceil(batch.length / 4));
  for (let k = 0; k < slots; k++) batch[batch.length - slots + k] = { ...state.evaluations[due[k].rows[0]].parameters };
}
