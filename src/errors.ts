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
