import { createBuiltinFunction, type BuiltinFunction } from '../engine/problems/builtin-function.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { EvaluatorError, type EvaluateOptions, type EvaluationOutcome, type EvaluationRequest, type Evaluator } from './types.js';

/**
 * Evaluates candidates with a builtin test problem or domain simulator in this process. A candidate
 * whose values are malformed, or whose objectives or outcomes come out non-finite, gets an { ok: false } outcome.
 */
export class BuiltinEvaluator implements Evaluator {
  readonly kind = 'builtin' as const;
  private readonly fn: BuiltinFunction;
  private readonly objectiveNames: string[];
  private readonly outcomeNames: string[];

  /** Throws an EvaluatorError of code 'invalid' when the builtin does not fit the campaign. */
  constructor(mdl: Mdl) {
    try {
      this.fn = createBuiltinFunction(mdl);
    } catch (error) {
      throw new EvaluatorError('invalid', (error as Error).message, { cause: error });
    }
    this.objectiveNames = mdl.objectives.map((o) => o.name);
    this.outcomeNames = mdl.outcomes.map((o) => o.name);
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
    let measured: ReturnType<BuiltinFunction>;
    try {
      measured = this.fn(request.parameters);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
    for (const [kind, names, values] of [
      ['objective', this.objectiveNames, measured.objectives],
      ['outcome', this.outcomeNames, measured.outcomes],
    ] as const) {
      for (const name of names) {
        if (!Number.isFinite(values[name])) {
          return { ok: false, error: `${kind} '${name}' came out ${values[name]}, not a finite number.` };
        }
      }
    }
    return { ok: true, objectives: measured.objectives, ...(this.outcomeNames.length > 0 ? { outcomes: measured.outcomes } : {}) };
  }
}
