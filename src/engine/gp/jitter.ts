/**
 * Jitter escalation for Cholesky factorizations that fail numerically (duplicated inputs with a
 * tiny noise variance, or float32 rounding in the blocked factor): retry with a diagonal jitter of
 * 1e-6, 1e-5, 1e-4 and 1e-3 times the mean diagonal, the schedule of GPyTorch's
 * psd_safe_cholesky extended by one step because the blocked factor rounds its Schur complements
 * to float32.
 */
export const JITTER_FACTORS: readonly number[] = [0, 1e-6, 1e-5, 1e-4, 1e-3];

/**
 * Calls `attempt` with jitter 0, then with each escalated jitter (absolute: factor × meanDiagonal)
 * until it returns a result; null when every attempt failed.
 */
export function tryWithJitter<T>(meanDiagonal: number, attempt: (jitter: number) => T | null): { result: T; jitter: number } | null {
  if (!Number.isFinite(meanDiagonal) || meanDiagonal <= 0) return null;
  for (const factor of JITTER_FACTORS) {
    const jitter = factor * meanDiagonal;
    const result = attempt(jitter);
    if (result !== null) return { result, jitter };
  }
  return null;
}

/**
 * A covariance that no jitter of the schedule makes factorizable. Its own class, so a caller that
 * can do without the factorization (a batch that conditions on a believed pick) catches this and
 * nothing else.
 */
export class NotPositiveDefiniteError extends Error {
  override readonly name = 'NotPositiveDefiniteError';
}

/** tryWithJitter, but a failure is a NotPositiveDefiniteError that says what to check. */
export function withJitter<T>(meanDiagonal: number, attempt: (jitter: number) => T | null, what: string): { result: T; jitter: number } {
  const outcome = tryWithJitter(meanDiagonal, attempt);
  if (outcome === null) {
    const limit = JITTER_FACTORS[JITTER_FACTORS.length - 1];
    throw new NotPositiveDefiniteError(
      `Kiln: the ${what} is not positive definite even with a diagonal jitter of ${limit} x its mean diagonal ` +
        `(${meanDiagonal}); check the inputs and outputs for NaN or infinite values.`,
    );
  }
  return outcome;
}
