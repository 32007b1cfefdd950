import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, KilnError } from '../errors.js';

/**
 * The one place where errors become responses: a KilnError keeps its status, code and details;
 * an unreachable database is a 503 SERVICE_UNAVAILABLE (the request may be repeated as it is);
 * anything else is a 500 INTERNAL whose body carries only the request id (never a stack, SQL or
 * path), with the full error in the log under the same id.
 */
export function errorEnvelope(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new KilnError('NOT_FOUND', `No route ${ctx.method} ${ctx.path}.`);
      }
    } catch (error) {
      const requestId = String(ctx.state.requestId ?? '');
      if (error instanceof KilnError) {
        ctx.status = error.status;
        ctx.body = { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } };
        return;
      }
      if (isDatabaseUnavailable(error)) {
        logger.warn({ err: error, requestId }, 'database unavailable');
        ctx.status = 503;
        ctx.body = {
          error: {
            code: 'SERVICE_UNAVAILABLE',
            message: 'Kiln cannot reach its database right now (restarting or unreachable); nothing saved is lost. Try again in a few seconds.',
            details: { request_id: requestId, retry_after: 5 },
          },
        };
        return;
      }
      logger.error({ err: error, requestId }, 'unhandled error');
      ctx.status = 500;
      ctx.body = {
        error: {
          code: 'INTERNAL',
          message: 'Kiln hit an unexpected error; it has been logged with this request id.',
          details: { request_id: requestId },
        },
      };
    }
  };
}
