import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Logger } from 'pino';
import type { ReceiptDevice } from '../engine/campaign/types.js';
import { KilnError } from '../errors.js';
import type { DatasetServices } from '../service/datasets.js';
import type { Principal } from '../service/principal.js';
import type { SocialLoginServices } from '../service/social-login.js';
import type { TemplateCatalog } from '../service/templates.js';
import type { TokenService } from '../service/tokens.js';
import type { Db } from '../store/db.js';
import { readJsonBody, readTextBody } from './json-body.js';
import { readMultipartForm, type FormLimits } from './multipart-form.js';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';
import { renderDocsPage } from './docs-page.js';
import { errorEnvelope } from './error-envelope.js';
import { dashboard } from './web.js';
import { openApiDocument } from './openapi.js';
import { requestId } from './request-id.js';
import type { RateLimits } from './rate-limit.js';
import { requestLimits, routeLimiter, type LimitMark } from './request-limits.js';
import { RouteTable, type RouteDefinition } from './route.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { authRoutes } from './routes/auth.js';
import { campaignRoutes } from './routes/campaigns.js';
import { datasetRoutes } from './routes/datasets.js';
import { jobRoutes } from './routes/jobs.js';
import { materialRoutes } from './routes/materials.js';
import { socialLoginRoutes, socialLoginWebRouter } from './routes/social-login.js';
import { templateRoutes } from './routes/templates.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: 'ok' | 'unavailable';
  /** the backend and GPU this host's engine threads choose, probed without opening a device */
  tensor_backend: string;
  tensor_device: ReceiptDevice | null;
  /** supervisors seen recently; tensor_backend is null until the worker has run an engine step */
  workers: { id: string; hostname: string; slots: number; tensor_backend: string | null; tensor_device: ReceiptDevice | null; last_seen_at: string }[];
}

export interface AppDependencies {
  logger: Logger;
  db: Db;
  /** what GET /v1/health reports */
  health: () => Promise<HealthReport>;
  authenticate: (ctx: Context, options: { guests?: boolean }) => Promise<Principal>;
  datasets: DatasetServices;
  templates: TemplateCatalog;
  tokens: TokenService;
  socialLogin: SocialLoginServices;
  /** absent: no rate limiting (e.g. API_RATE_LIMIT_PER_MINUTE=0) */
  rateLimits?: RateLimits;
  /** the node's buffered key usage: written out before keys are listed */
  keyUsage?: { flush(): Promise<void> };
  /** the caller's address (behind the configured proxies): the window a refused request without credentials counts in */
  clientIp?: (ctx: Context) => string;
  version: string;
}

/** JSON bodies above this are refused with 413 before they are parsed. */
const JSON_LIMIT = 2 * 1024 * 1024;
/** The multipart campaign creation: one MDL file part and a few short fields. */
const FORM_LIMITS: FormLimits = { fileBytes: 2 * 1024 * 1024, files: 1, fields: 20, fieldBytes: 64 * 1024 };

declare module 'koa' {
  interface Request {
    /** the parsed body of a route that takes one (parseBody below) */
    body?: unknown;
  }
}

/**
 * The Koa application: request ids, the error envelope, and the /v1 routes of the route table,
 * which also produces the OpenAPI document and the /docs page.
 */
export function createApp(deps: AppDependencies): { app: Koa; routes: RouteTable } {
  const app = new Koa({ proxy: false });
  app.silent = true;
  const table = new RouteTable();
  campaignRoutes(table, deps.db, deps.templates);
  jobRoutes(table, deps.db);
  materialRoutes(table);
  datasetRoutes(table, deps.datasets);
  templateRoutes(table, deps.templates);
  authRoutes(table, deps.tokens);
  apiKeyRoutes(table, deps.db, deps.keyUsage);
  socialLoginRoutes(table, deps.socialLogin);

  const router = new Router({ prefix: '/v1' });
  router.get('/health', async (ctx) => {
    ctx.state.rateLimit = 'report' satisfies LimitMark;
    const report = await deps.health();
    ctx.status = report.status === 'ok' ? 200 : 503;
    ctx.body = { data: report };
  });
  let document: Record<string, unknown> | null = null;
  const openapi = () => (document ??= openApiDocument(table, { version: deps.version }));
  router.get('/openapi.json', (ctx) => {
    ctx.state.rateLimit = 'report' satisfies LimitMark;
    ctx.body = openapi();
  });
  table.mount(router, { authenticate: deps.authenticate, parseBody, limit: routeLimiter(deps.rateLimits) });

  app.use(requestId);
  app.use(errorEnvelope(deps.logger));
  app.use(requestLimits({ limits: deps.rateLimits, authenticate: deps.authenticate, clientIp: deps.clientIp, logger: deps.logger }));
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && (ctx.path === '/docs' || ctx.path === '/docs/')) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderDocsPage(openapi());
      return;
    }
    await next();
  });
  app.use(socialLoginWebRouter(deps.socialLogin).routes());
  app.use(dashboard(join(packageRoot(), 'dist', 'web')));
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new KilnError('METHOD_NOT_ALLOWED', 'This path does not take that method; see /v1/openapi.json for what it takes.'),
      notImplemented: () => new KilnError('NOT_IMPLEMENTED', 'This server does not implement that method.'),
    }),
  );
  return { app, routes: table };
}

/** JSON for every body route; multipart/form-data and text/csv where the route documents them; anything else is 400. */
async function parseBody(ctx: Context, route: RouteDefinition): Promise<void> {
  const hasBody = Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';
  if (!hasBody) {
    ctx.request.body = undefined;
    return;
  }
  if (ctx.is('application/json', '+json')) {
    ctx.request.body = await readJsonBody(ctx, route.jsonLimitBytes ?? JSON_LIMIT, { nonFinite: route.nonFiniteNumbers });
    return;
  }
  if (route.csv && ctx.is('text/csv', 'text/plain')) {
    ctx.state.csvText = await readTextBody(ctx, JSON_LIMIT);
    ctx.request.body = undefined;
    return;
  }
  if (route.multipart && ctx.is('multipart/form-data')) {
    const form = await readMultipartForm(ctx, FORM_LIMITS);
    ctx.request.body = form.fields;
    ctx.state.multipart = form;
    return;
  }
  const accepted = ['application/json', ...(route.multipart ? ['multipart/form-data'] : []), ...(route.csv ? ['text/csv'] : [])].join(' or ');
  throw new KilnError('BAD_REQUEST', `This route takes ${accepted} bodies; the request's Content-Type is ${ctx.get('Content-Type') || 'missing'}.`);
}
