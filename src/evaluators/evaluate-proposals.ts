import type { EvaluationResult, Proposal } from '../engine/campaign/types.js';
import { EvaluatorError, type EvaluationOutcome, type Evaluator } from './types.js';

/**
 * What evaluating one batch of proposals came to, as the engine's `tell` takes it:
 * - evaluated: one result per proposal, each a success or that candidate's own failure;
 * - failed: the batch failed as a whole (a program crashed, a service stayed down), so every
 *   candidate fails with the reason and `error` is left for the caller to report;
 * - cancelled: the caller aborted; nothing is to be told.
 */
export type BatchEvaluation =
  | { status: 'evaluated'; results: EvaluationResult[] }
  | { status: 'failed'; results: EvaluationResult[]; error: Error }
  | { status: 'cancelled'; error: Error };

/**
 * Evaluates `proposals` and maps the evaluator's answer to evaluation results, the same way for
 * the CLI's local runner and the service's job runner. A whole-batch failure fails the candidates,
 * not the campaign: the engine's failure rule (`optimizer.max_failed_iterations`) decides when
 * repeated failures stop it. A failure after `signal` aborted counts as the cancellation it caused.
 */
export async function evaluateProposals(evaluator: Evaluator, proposals: readonly Proposal[], signal?: AbortSignal): Promise<BatchEvaluation> {
  try {
    const outcomes = await evaluator.evaluate(
      proposals.map((p) => ({ parameters: p.parameters })),
      { signal },
    );
    return { status: 'evaluated', results: proposals.map((p, i) => evaluationResult(p.id, outcomes[i])) };
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    if (signal?.aborted || (error instanceof EvaluatorError && error.code === 'cancelled')) return { status: 'cancelled', error };
    return { status: 'failed', results: proposals.map((p) => ({ id: p.id, error: `the whole batch failed: ${error.message}` })), error };
  }
}

function evaluationResult(id: string, outcome: EvaluationOutcome): EvaluationResult {
  if (!outcome.ok) return { id, error: outcome.error };
  return { id, objectives: outcome.objectives, ...(outcome.outcomes ? { outcomes: outcome.outcomes } : {}) };
}
