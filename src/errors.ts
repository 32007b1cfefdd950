/**
 * Every error code the API answers with, and its HTTP status: the one table both the server and the
 * dashboard (through a type-only import) read, so a code cannot be misspelt or given two statuses.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_SCOPE: 403,
  IP_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATE: 409,
  CONCURRENT_CAMPAIGN_LIMIT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  DATASET_INVALID: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  NOT_IMPLEMENTED: 501,
  PROVIDER_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
  /** WebSocket only: a connection holds too many subscriptions */
  TOO_MANY_SUBSCRIPTIONS: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The error envelope's `error` member as the API sends it. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Kiln's error family. Every error a caller can act on is a KilnError with one of the codes above
 * (its status follows from the code) and the envelope's details; the API maps them to responses in
 * exactly one place (src/api/error-envelope.ts). Anything else that escapes is INTERNAL.
 */
export class KilnError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'KilnError';
    this.status = ERROR_STATUS[code];
  }
}

/** Postgres SQLSTATE classes and Node socket codes that mean "the database is not there right now". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/**
 * Whether an error says the database is unreachable (stopped, restarting, network gone) rather
 * than that a request was wrong: the API answers such errors 503, and they pass.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|the database system is (starting up|shutting down)/i.test(message)
    )
      return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
