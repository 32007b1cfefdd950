/**
 * Kiln's error family. Every error a caller can act on is a KilnError with the HTTP status, the
 * UPPER_SNAKE code and the details of decisions.md's envelope; the API maps them to responses in
 * exactly one place (src/api/error-envelope.ts). Anything else that escapes is INTERNAL.
 */
export class KilnError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KilnError';
  }
}

/** Postgres SQLSTATE classes and Node socket codes that mean "the database is not there right now". */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

/**
 * Whether an error says the database is unreachable (stopped, restarting, network gone) rather
 * than that a request was wrong: the API answers such errors 503, and they pass.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|the database system is (starting up|shutting down)/i.test(message)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
