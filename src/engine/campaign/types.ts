/**
 * Kiln's vocabulary, used the same way in the engine, the service and the docs.
 *
 * - campaign: one optimization of an MDL document, from its initial design to a stop reason.
 * - candidate: a point of the search space proposed for evaluation (parameter name → value).
 * - evaluation: a candidate with the objective values an evaluator returned (or its failure).
 * - iteration: one round of the loop; it proposes and evaluates one batch. Iteration 1 is the
 *   initial design (evaluated all at once); warm-start data are iteration 0.
 * - batch: the candidates of one iteration (`optimizer.batch_size` after the initial design).
 * - surrogate: the Gaussian-process models (one per objective) fitted to the evaluations.
 * - acquisition: the function of the surrogate that scores how useful evaluating a candidate
 *   would be (expected hypervolume improvement, ParEGO scalarization); maximized by CMA-ES.
 * - pending: candidates proposed but not yet told; batch selection accounts for them.
 * - reference point: the worst acceptable value of every objective; hypervolume is measured
 *   against it. Fixed once per campaign so the convergence history is comparable.
 * - job, worker slot, lease: the service's units of execution (src/jobs), not the engine's.
 */
import type { ParameterValue } from '../mdl/schema.js';
import type { SerializedHyperparameters } from '../gp/priors.js';
import type { StrategyChoice } from '../strategies/strategy-choice.js';

export { deserializeHyperparameters, serializeHyperparameters, type SerializedHyperparameters } from '../gp/priors.js';

/**
 * Where the optimization loop stands: running until a stop rule ends it. The service's stored
 * `CampaignStatus` (src/store/campaigns.ts) adds what only it knows: 'created' (never started) and
 * 'stopped' (ended by a cancel or stop request).
 */
export type LoopStatus = 'running' | 'completed' | 'converged' | 'failed';
export type StopReason = 'budget' | 'stagnation' | 'error';

/** An evaluation as the engine keeps it: values in MDL units and directions. */
export interface EvaluationRecord {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
  /**
   * null when the evaluator failed for this candidate (then `error` says why). A partial
   * measurement holds only the objectives that were measured: it is no failure, and each model
   * can learn from what it has, but it stays off the front until every objective is there.
   */
  objectives: Record<string, number> | null;
  /** measured outcomes (MDL `outcomes`) of a successful evaluation, when the campaign has any (a partial one: those measured) */
  outcomes?: Record<string, number>;
  error?: string;
  /** never measured (a lab gave the candidate up): no failure either, so the failure model leaves it out */
  abandoned?: true;
  /** the id the evaluation had where it came from (a warm-start row's sample id); not part of any hash */
  externalId?: string;
  /** an experiment Kiln did not propose, told with its own parameters alongside a batch */
  offPlan?: true;
}

/** A candidate proposed by `step`, to be evaluated and passed back to `tell`. */
export interface Proposal {
  id: string;
  iteration: number;
  parameters: Record<string, ParameterValue>;
}

/**
 * What `tell` receives for each proposal, in any order, matched by id. Objectives or outcomes
 * missing or not finite are unmeasured: the result is partial, and a failure only when nothing
 * finite is left. `abandoned` marks a candidate that was never measured at all. A measurement
 * with `parameters` and an id of its own is an off-plan experiment, recorded in the iteration.
 */
export type EvaluationResult =
  | {
      id: string;
      objectives: Record<string, number>;
      outcomes?: Record<string, number>;
      /** an off-plan experiment's own inputs: its id is none of the pending candidates' */
      parameters?: Record<string, ParameterValue>;
    }
  | { id: string; error: string; abandoned?: true };

/**
 * Everything the loop needs to continue, as plain JSON: the service stores it per iteration and a
 * retried job resumes from it; the same state and seed give the same proposals.
 */
export interface CampaignState {
  version: 1;
  seed: number;
  /** completed iterations (the initial design is iteration 1) */
  iteration: number;
  evaluations: EvaluationRecord[];
  pending: Proposal[];
  /** hypervolume after each completed iteration, in iteration order */
  convergenceHistory: number[];
  /** minimization-space reference point, fixed after the first data arrive */
  referencePoint: number[] | null;
  /**
   * hyperparameters of the last model fitted, one set per objective (the global model, or the
   * trust region holding the best point): they warm-start the next global fit and feed the logs
   */
  hyperparameters: SerializedHyperparameters[] | null;
  /** the strategy that proposes after the initial design and why; set on the first step */
  strategy?: StrategyChoice;
  /** each strategy's own state between steps (plain JSON), by strategy name */
  strategies?: Record<string, unknown>;
  status: LoopStatus;
  stopReason: StopReason | null;
  /** why the campaign stopped, in a sentence a person can act on; absent while it runs */
  stopMessage?: string;
  /** the receipt of the latest step (receipt.ts): kept with its pending batch until the batch is stored */
  receipt?: Receipt;
  /**
   * receipts of earlier iterations whose candidates were still pending when an asynchronous step
   * (step.ts, `StepOptions.count`) proposed another batch beside them; each leaves when its
   * iteration completes
   */
  earlierReceipts?: Receipt[];
  /** counter for evaluation ids the engine hands out when the caller does not */
  nextId: number;
  /** evaluation ids are `${idPrefix}${n}`; the service sets a per-campaign prefix so ids are unique everywhere */
  idPrefix?: string;
}

/** What `tell` reports of one iteration it completed. */
export interface IterationSummary {
  iteration: number;
  evaluated: number;
  /** evaluations of the iteration that have no value (abandoned ones apart) */
  failed: number;
  /** candidates of the iteration given up without a measurement */
  abandoned: number;
  /** evaluations of the iteration that succeeded but break an outcome constraint */
  infeasible: number;
  hypervolume: number;
  paretoSize: number;
  status: LoopStatus;
  stopReason: StopReason | null;
  stopMessage?: string;
}

/**
 * A reproducibility receipt: everything that decided one iteration's batch, so the batch can be
 * proposed again and compared (`kiln replay`). The hashes are sha-256 (hex) of a canonical JSON
 * serialization (canonicalJson): the same data give the same hash on every machine.
 */
export interface Receipt {
  version: 1;
  /** the iteration the batch belongs to */
  iteration: number;
  /** Kiln's package version, and the tensor backend the step ran on; null when the caller did not say */
  engine_version: string | null;
  tensor_backend: string | null;
  /** the GPU adapter a webgpu step ran on; null on the CPU backends (absent in receipts kept before Kiln named it) */
  tensor_device?: ReceiptDevice | null;
  /** how much wider than on a CPU the step searched (StrategyContext.computeScale); absent: 1 */
  compute_scale?: number;
  seed: {
    /** the campaign seed */
    campaign: number;
    /** this iteration's seed, derived from the campaign seed and the iteration */
    iteration: number;
    /** the seeds of the plan (GP fits) and propose (acquisition) streams, drawn from the iteration seed */
    plan: number;
    propose: number;
    derivation: string;
  };
  /** initial-design, random, lhs, global, trust-region or nsga2 */
  strategy: string;
  /** ehvi, mc-ehvi, nehvi, parego, thompson-hvi, each possibly "constrained ...", or none */
  acquisition: string;
  /** evaluations the surrogate saw (warm-start rows, successes and failures) */
  evaluations_seen: number;
  /** sha-256 of the told evaluations in order: ids, iterations, parameters, objectives, outcomes, failures */
  data_hash: string;
  /** sha-256 of the engine state the step started from (data included, this receipt field left out) */
  state_hash: string;
  /** sha-256 of the MDL as run (defaults filled in) */
  mdl_hash: string;
  /** sha-256 of the proposals: ids, iterations and parameters, in order */
  proposals_hash: string;
  /**
   * a batch asked for with a count (step.ts `StepOptions`): the count, and the candidates still
   * pending beside it (an asynchronous batch when there are any); absent for a plain batch
   */
  asked?: { count: number; pending: number };
}

/** What the caller knows and the engine does not: its version and tensor backend. */
export interface ReceiptEnvironment {
  engine_version: string;
  tensor_backend: string;
  tensor_device?: ReceiptDevice | null;
  /** the backend's measured headroom over the CPU (StrategyContext.computeScale); absent: 1 */
  compute_scale?: number;
}

/** A GPU adapter as it describes itself (tensor/webgpu.ts TensorDevice). */
export interface ReceiptDevice {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** a software rasterizer (Mesa's lavapipe), not a GPU */
  software: boolean;
}
