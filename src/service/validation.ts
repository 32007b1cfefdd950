import { KilnError } from '../errors.js';

export interface FieldError {
  path: string;
  message: string;
}

/** 422 VALIDATION_FAILED listing every problem with its path, all of them, not only the first. */
export function validationFailed(errors: readonly FieldError[], message?: string): KilnError {
  const summary = message ?? (errors.length === 1 ? `${errors[0].path}: ${errors[0].message}` : `${errors.length} problems; see details.errors.`);
  return new KilnError('VALIDATION_FAILED', `The request is not valid: ${summary}`, { errors });
}

export function notFound(kind: string, id: string): KilnError {
  return new KilnError('NOT_FOUND', `No ${kind} with id ${id}.`);
}

/** 403 INSUFFICIENT_SCOPE for a request whose reach goes past its route's scope (`what` says why, as a sentence). */
export function insufficientScope(scope: string, what: string): KilnError {
  return new KilnError('INSUFFICIENT_SCOPE', `${what}: that needs the ${scope} scope, which this key does not have.`, { required_scope: scope });
}

export function invalidState(message: string, status: string): KilnError {
  return new KilnError('INVALID_STATE', message, { status });
}
