/**
 * The evaluator interface: how a campaign's candidates get their objective values, whether from a
 * builtin function, a local program, an HTTP service or results posted from outside.
 */

export interface EvaluationRequest {
  parameters: Record<string, number | string>;
}

/**
 * Per candidate: its objective values by MDL objective name (and its measured outcomes by MDL
 * outcome name, when the campaign declares any), or why it could not be evaluated.
 */
export type EvaluationOutcome = { ok: true; objectives: Record<string, number>; outcomes?: Record<string, number> } | { ok: false; error: string };

export type EvaluatorKind = 'builtin' | 'command' | 'http' | 'external';

export interface EvaluateOptions {
  /** Aborting rejects the batch with an EvaluatorError of code 'cancelled' and stops any program. */
  signal?: AbortSignal;
}

export interface Evaluator {
  readonly kind: EvaluatorKind;
  /**
   * One outcome per request, in order. A failing candidate is an { ok: false } outcome with the
   * reason, never silently dropped; a failure of the whole batch (e.g. the program crashed) rejects
   * with an EvaluatorError carrying a message a person can act on.
   */
  evaluate(batch: readonly EvaluationRequest[], options?: EvaluateOptions): Promise<EvaluationOutcome[]>;
}

/**
 * Why a whole batch failed, or why an evaluator cannot be created:
 * - refused: the server does not allow this kind of evaluator
 * - unsupported: the kind exists but is handled elsewhere (inside the Kiln service)
 * - invalid: the campaign's evaluator settings do not fit the campaign
 * - failed: the program could not start, or exited with an error
 * - timeout: the program ran past its time limit
 * - protocol: the program's output broke the stdin/stdout protocol
 * - cancelled: the caller aborted
 */
export type EvaluatorErrorCode = 'refused' | 'unsupported' | 'invalid' | 'failed' | 'timeout' | 'protocol' | 'cancelled';

export class EvaluatorError extends Error {
  override readonly name = 'EvaluatorError';
  readonly code: EvaluatorErrorCode;

  constructor(code: EvaluatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export interface EvaluatorOptions {
  /** Whether campaigns may run local programs (command evaluators); an administrator's choice. */
  allowCommand: boolean;
  /** Working directory for command evaluators (normally the campaign file's folder). */
  cwd?: string;
}
