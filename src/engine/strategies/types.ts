import type { AcquisitionChoice } from '../acquisition/batch.js';
import type { ReachFrame } from '../acquisition/reach-frame.js';
import type { GpHyperparameters } from '../gp/priors.js';
import type { Random } from '../random.js';
import type { SearchSpace } from '../space.js';
import type { StrategyName } from './strategy-choice.js';

/**
 * A strategy (a "designer" in OSS Vizier's sense) turns the campaign's observations into the next
 * batch. Every strategy sees the same `Observations`, so what later enters the data (outcome
 * constraints, failure models, pending points) reaches all of them in one place.
 *
 * Proposing is split in two so that the expensive part, fitting GP hyperparameters, can run on
 * several threads: `plan` names the fits the strategy needs (plain data, each with its own seed),
 * the caller runs them (inline or on a pool), and `propose` builds the batch from their results.
 * Both are pure: the same context and fits give the same batch.
 */

export interface Observations {
  /** encoded parameter dimension */
  d: number;
  /** objectives */
  m: number;
  /** successful evaluations */
  n: number;
  /** `n x d` encoded, snapped inputs of the successful evaluations */
  X: Float64Array;
  /** `n x m` minimization-space objectives */
  Y: Float64Array;
  /** evaluation id of each row */
  ids: string[];
  /** iteration of each row (0 = warm start) */
  iterations: Int32Array;
  /** outcome constraints */
  c: number;
  /** `n x c` signed margins of the outcome constraints (≥ 0 where one holds), finite */
  C: Float64Array;
  /** per row: 1 when every outcome constraint holds (the rows that form the front) */
  feasible: Uint8Array;
  /** encoded inputs of evaluations that failed, one per row */
  failed: Float64Array[];
  /**
   * encoded, snapped inputs of candidates proposed and not yet told: an asynchronous step
   * (campaign/step.ts, `StepOptions.count`) proposes beside them, conditioned on them, and never
   * proposes one again; empty in a step that waits for its whole batch
   */
  pending?: Float64Array[];
  /** the evaluation id of each pending candidate, in the order of `pending` */
  pendingIds?: string[];
  /**
   * partial measurements (some objectives missing): `X` `n x d` encoded inputs, `Y` `n x m`
   * minimization-space objectives with NaN where not measured. Kept out of `X`/`Y` above (the
   * front needs every objective); a model of one objective may learn from them.
   */
  partial?: { X: Float64Array; Y: Float64Array; n: number };
  /** minimization-space reference point; null before any data */
  ref: number[] | null;
  /**
   * the measurements are noisy (declared in the MDL, or material fitted noise): improvement is
   * then measured against the model's predictions at the evaluated points, not the raw values
   */
  noisy: boolean;
}

/**
 * The campaign compiled once per step from the MDL and the state (campaign/compiled.ts): the
 * search space, the minimization space's signs, the settings the strategies act on, the
 * observations and the reach criterion's frame. Strategies, the batch acquisition and the noise
 * probe read these, never the MDL, so a mechanism added above has one place to read from.
 */
export interface CompiledCampaign {
  space: SearchSpace;
  /** per objective: 1 minimized, −1 maximized (a value times its sign is in minimization space) */
  signs: Float64Array;
  /** per objective: the declared measurement sd (MDL units), held fixed in its fits; undefined where none is declared */
  noiseSd: readonly (number | undefined)[];
  /** per objective: whether its measurements are known to be exact (campaign/noisy-front.ts exactObjectives), which caps its fitted noise */
  exact: readonly boolean[];
  /** optimizer.budget */
  budget: number;
  /** optimizer.batch_size */
  batchSize: number;
  /** optimizer.acquisition */
  acquisition: AcquisitionChoice;
  /** the evaluations as the strategy sees them (tails compressed for the GP strategies: campaign/tail-warp.ts) */
  observations: Observations;
  /** the reach criterion's frame over `observations` (acquisition/reach-frame.ts); null before a reference point exists */
  reach: ReachFrame | null;
}

export interface StrategyContext {
  /** the campaign compiled for this step; `space` and `observations` below are its own */
  campaign: CompiledCampaign;
  /** campaign.space */
  space: SearchSpace;
  /** the campaign seed */
  seed: number;
  /** evaluations spent so far (warm-start rows excluded) */
  used: number;
  /** campaign.observations */
  observations: Observations;
  /** the hyperparameters of the last model fitted in this campaign, one set per objective */
  previousHyperparameters: GpHyperparameters[] | null;
  /** candidates to propose */
  q: number;
  /** the iteration being proposed (state.iteration + 1) */
  iteration: number;
  /** the evaluation ids the proposals will get, in order (q of them) */
  proposalIds: string[];
  /** seeded by the campaign seed and the iteration; `plan` and `propose` each get a fresh copy */
  random: Random;
  /** this strategy's own state from the previous step (JSON), undefined on its first step */
  memory: unknown;
  /**
   * How many times the CPU's share of posterior work the backend affords in the same time: 1 on
   * the CPU backends, a power of two up to 16 on a GPU (jobs/compute-scale.ts measures it). The
   * global strategy widens its acquisition search by it (raw samples, CMA-ES restarts); it is
   * recorded in the receipt, so a replay searches alike.
   */
  computeScale: number;
}

/** One GP hyperparameter fit: one output (or several sharing hyperparameters) over a set of rows, with its own seed. */
export interface FitRequest {
  /** `n x d` inputs in [0, 1] */
  X: Float64Array;
  /** length n standardized outputs (mean 0, std 1); `n x outputs` row-major with `outputs` */
  y: Float64Array;
  /** columns of y fitted with one shared set of hyperparameters (default 1; several: n ≤ 256) */
  outputs?: number;
  n: number;
  d: number;
  seed: number;
  /** warm start, e.g. the previous fit of the same model */
  initial?: GpHyperparameters;
  restarts?: number;
  maxIterations?: number;
  /** a known noise variance of the standardized output, held fixed (a declared measurement sd) */
  noise?: number;
  /** the output's measurements are known to be exact: its fitted noise is capped (gp/priors.ts EXACT_NOISE_MAX) */
  exact?: boolean;
}

export interface StrategyPlan {
  fits: FitRequest[];
}

export interface StrategyOutcome {
  /** encoded, snapped, feasible points; at most q */
  points: Float64Array[];
  /** how the batch was chosen, for logs (e.g. ehvi, trust-region, nsga2) */
  label: string;
  /** the acquisition that ranked the candidates (ehvi, parego, thompson-hvi...), for receipts; absent when none did */
  acquisition?: string;
  /** this strategy's state for its next step; must survive JSON */
  memory?: unknown;
  /** hyperparameters of the model behind the batch, one set per objective, for logs and diagnostics */
  hyperparameters?: GpHyperparameters[];
}

export interface Strategy {
  readonly name: StrategyName;
  plan(context: StrategyContext): StrategyPlan;
  /** asynchronous: the model-guided strategies read posteriors back from the tensor backend */
  propose(context: StrategyContext, fitted: readonly GpHyperparameters[]): Promise<StrategyOutcome>;
}

/** A strategy that fits nothing. */
export const NO_FITS: StrategyPlan = Object.freeze({ fits: [] });
