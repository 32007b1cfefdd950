import type { EvaluationResult } from '../engine/campaign/types.js';
import type { EvaluationOutcome } from './types.js';

/** What the engine's `tell` receives for a proposal the evaluator answered with `outcome`. */
export function evaluationResult(id: string, outcome: EvaluationOutcome): EvaluationResult {
  if (!outcome.ok) return { id, error: outcome.error };
  return { id, objectives: outcome.objectives, ...(outcome.outcomes ? { outcomes: outcome.outcomes } : {}) };
}
