import { createBuiltinFunction, type BuiltinFunction } from '../../engine/problems/builtin-function.js';
import type { Mdl } from '../../engine/mdl/schema.js';
import { EvaluatorError, type EvaluateOptions, type EvaluationOutcome, type EvaluationRequest, type Evaluator } from './types.js';

/**
 * Evaluates candidates with a builtin test problem or domain simulator in this process. A candidate
 * whose values are malformed, or whose objectives come out non-finite, gets an { ok: false } outcome.
 */
export class BuiltinEvaluator implements Evaluator {
  readonly kind = 'builtin' as const;
  private readonly fn: BuiltinFunction;
  private readonly objectiveNames: string[];

  /** Throws an EvaluatorError of code 'invalid' when the builtin does not fit the campaign. */
  constructor(mdl: Mdl) {
    try {
      this.fn = createBuiltinFunction(mdl);
    } catch (error) {
      throw new EvaluatorError('invalid', (error as Error).message, { cause: error });
    }
    this.objectiveNames = mdl.objectives.map((o) => o.name);
  }

  async evaluate(batch: readonly EvaluationRequest[], options: EvaluateOptions = {}): Promise<EvaluationOutcome[]> {
    const outcomes: EvaluationOutcome[] = [];
    for (const request of batch) {
      if (options.signal?.aborted) {
        throw new EvaluatorError('cancelled', 'the evaluation was cancelled.', { cause: options.signal.reason });
      }
      outcomes.push(this.evaluateOne(request));
    }
    return outcomes;
  }

  private evaluateOne(request: EvaluationRequest): EvaluationOutcome {
    let objectives: Record<string, number>;
    try {
      objectives = this.fn(request.parameters);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    for (const name of this.objectiveNames) {
      if (!Number.isFinite(objectives[name])) {
        return { ok: false, error: `objective '${name}' came out ${objectives[name]}, not a finite number.` };
      }
    }
    return { ok: true, objectives };
  }
}
