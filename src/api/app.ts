import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { Logger } from 'pino';
import { KilnError } from '../errors.js';
import { errorEnvelope } from './error-envelope.js';
import { requestId } from './request-id.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: 'ok' | 'unavailable';
  tensor_backend: string;
}

export interface AppDependencies {
  logger: Logger;
  /** what GET /v1/health reports */
  health: () => Promise<HealthReport>;
}

/** JSON bodies above this are refused with 413 before they are parsed. */
const JSON_LIMIT = '2mb';

/**
 * The Koa application: request ids, the error envelope, body parsing and the /v1 routes. The
 * service's routes are added here as they are built (issue 3).
 */
export function createApp(deps: AppDependencies): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const router = new Router({ prefix: '/v1' });
  router.get('/health', async (ctx) => {
    const report = await deps.health();
    ctx.status = report.status === 'ok' ? 200 : 503;
    ctx.body = { data: report };
  });
  app.use(requestId);
  app.use(errorEnvelope(deps.logger));
  app.use(
    koaBody({
      jsonLimit: JSON_LIMIT,
      jsonStrict: true,
      multipart: false,
      onError: (error) => {
        throw bodyError(error);
      },
    }),
  );
  app.use(router.routes());
  return app;
}

/** Body-parser failures (co-body sets `status`) in the envelope's terms. */
function bodyError(error: Error): KilnError {
  const status = (error as { status?: unknown }).status;
  if (status === 413) return new KilnError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${JSON_LIMIT}.`);
  if (status === 415) return new KilnError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body has an unsupported content type.');
  return new KilnError(400, 'BAD_REQUEST', `The request body is not valid JSON: ${error.message}.`);
}
