import { completedEvaluations, initialState, tell, type WarmStartRow } from '../engine/campaign/state.js';
import { step } from '../engine/campaign/step.js';
import type { ReceiptEnvironment } from '../engine/campaign/receipt.js';
import type { CampaignState, IterationSummary } from '../engine/campaign/types.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { evaluateProposals } from '../evaluators/evaluate-proposals.js';
import type { Evaluator } from '../evaluators/types.js';
import type { EnginePool, StepPhases } from './engine-pool.js';

export interface IterationReport extends IterationSummary {
  strategy: string;
  /** seconds spent proposing (surrogate fit + acquisition) and evaluating */
  proposeSeconds: number;
  /** on a pool: how the proposing seconds split between planning, fits and completion */
  phases?: StepPhases;
  evaluateSeconds: number;
  evaluationsCompleted: number;
}

export interface LocalRunOptions {
  seed?: number;
  warmStart?: readonly WarmStartRow[];
  onIteration?: (report: IterationReport, state: CampaignState) => void;
  signal?: AbortSignal;
  /** once aborted, the loop stops after the batch in flight is evaluated and told (a gentle stop; `signal` cancels the batch) */
  stopAfterBatch?: AbortSignal;
  /** engine threads to propose on (the step's GP fits then run in parallel); inline when absent */
  pool?: EnginePool;
  /** continue this saved state (a checkpoint) instead of starting afresh */
  state?: CampaignState;
  /** Kiln's version and the tensor backend, for the receipts of steps run inline (a pool names its own) */
  environment?: ReceiptEnvironment;
  /** told when a whole batch failed (the program crashed, timed out, printed invalid JSON) */
  onBatchFailure?: (iteration: number, error: Error) => void;
}

/**
 * Runs a whole campaign in this process: step, evaluate, tell, until a stop rule fires. The CLI
 * and the benchmarks use it; the service runs the same engine calls from its job loop. A batch
 * that fails as a whole fails its candidates, not the run: the campaign's failure rule
 * (`optimizer.max_failed_iterations`) decides when to stop. An abort ends the loop after the last
 * completed iteration, whose state `onIteration` has seen; `stopAfterBatch` lets the batch in
 * flight finish and be told first.
 */
export async function runLocalCampaign(mdl: Mdl, evaluator: Evaluator, options: LocalRunOptions = {}): Promise<CampaignState> {
  let state = options.state ?? initialState(mdl, { seed: options.seed, warmStart: options.warmStart });
  while (state.status === 'running') {
    if (options.signal?.aborted || options.stopAfterBatch?.aborted) break;
    const t0 = performance.now();
    // A state moved from the service mid-iteration carries its proposed batch: evaluate that first.
    const next: { state: CampaignState; proposals: CampaignState['pending']; strategy: string; phases?: StepPhases } =
      state.pending.length > 0
        ? { state, proposals: state.pending, strategy: 'resumed' }
        : options.pool
          ? await options.pool.step(mdl, state)
          : await step(mdl, state, options.environment);
    const t1 = performance.now();
    if (next.proposals.length === 0) break;
    const batch = await evaluateProposals(evaluator, next.proposals, options.signal);
    if (batch.status === 'cancelled') break;
    if (batch.status === 'failed') options.onBatchFailure?.(next.proposals[0].iteration, batch.error);
    const t2 = performance.now();
    const told = tell(mdl, next.state, batch.results);
    state = told.state;
    if (told.summary && options.onIteration) {
      options.onIteration(
        {
          ...told.summary,
          strategy: next.strategy,
          proposeSeconds: (t1 - t0) / 1000,
          ...(next.phases ? { phases: next.phases } : {}),
          evaluateSeconds: (t2 - t1) / 1000,
          evaluationsCompleted: completedEvaluations(state).length,
        },
        state,
      );
    }
  }
  return state;
}
