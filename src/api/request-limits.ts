import { createHash } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { KilnError } from '../errors.js';
import type { Principal } from '../service/principal.js';
import { GUEST_PLAN } from './auth.js';
import { REFUSED_PLAN, setRateLimitHeaders, type RateLimits, type RateLimitState } from './rate-limit.js';
import type { RouteDefinition } from './route.js';

/**
 * How a request was accounted for, in `ctx.state.rateLimit`: counted by its route's limiter, or
 * on a route that counts nothing but reports the caller's window (health, the OpenAPI document,
 * the routes that sign in). Anything else is counted afterwards by `requestLimits`.
 */
export type LimitMark = 'counted' | 'report';

/** The route table's limiter: counts the caller of a route (a guest by address) with the route's own window. */
export function routeLimiter(limits: RateLimits | undefined) {
  return async (ctx: Context, principal: Principal, route: RouteDefinition): Promise<void> => {
    if (!limits?.enabled) return;
    ctx.state.rateLimit = 'counted' satisfies LimitMark;
    try {
      const endpoint = route.rateLimit ? { name: route.operationId, perMinute: route.rateLimit.perMinute } : undefined;
      setRateLimitHeaders(ctx, await limits.consume(principal.keyId, principal.plan, endpoint));
    } catch (error) {
      if (error instanceof KilnError && error.status === 429) {
        setRateLimitHeaders(ctx, error.cause as RateLimitState, error.details?.retry_after as number);
      }
      throw error;
    }
  };
}

export interface RequestLimitDependencies {
  limits?: RateLimits;
  authenticate: (ctx: Context, options: { guests?: boolean }) => Promise<Principal>;
  clientIp?: (ctx: Context) => string;
  logger: Logger;
}

/**
 * Every /v1 response carries the rate-limit headers. A request no route's limiter counted (bad
 * credentials: 401 or 403 IP_NOT_ALLOWED; a path or method no route serves: 404 or 405; no
 * credentials on a route that needs them: 401) is counted here, against:
 * - a valid credential's own counter (a key calling an unknown route pays like any request);
 * - a refused credential's own window, keyed by a hash of what was presented, never its address's;
 * - for a request without credentials, its address's refusal window, apart from the guest
 *   allowance, so refusals never spend what a guest may be served.
 * A refusal past its window is answered 429 instead. Routes that count nothing report the
 * caller's window as it stands.
 */
export function requestLimits(deps: RequestLimitDependencies) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const limits = deps.limits;
    if (!limits?.enabled || !ctx.path.startsWith('/v1/')) {
      await next();
      return;
    }
    let failure: Error | undefined;
    try {
      await next();
    } catch (error) {
      // held while the request is counted, then thrown on to the error envelope
      failure = error instanceof Error ? error : new Error(String(error));
    }
    const mark = ctx.state.rateLimit as LimitMark | undefined;
    if (mark !== 'counted') {
      try {
        const subject = await subjectOf(ctx, deps, mark === 'report');
        setRateLimitHeaders(ctx, mark === 'report' ? await limits.peek(subject.id, subject.plan) : await limits.consume(subject.id, subject.plan));
      } catch (error) {
        if (error instanceof KilnError && error.status === 429) {
          setRateLimitHeaders(ctx, error.cause as RateLimitState, error.details?.retry_after as number);
          failure = error;
        } else deps.logger.warn({ err: error }, 'could not count a request no route counted');
      }
    }
    if (failure !== undefined) throw failure;
  };
}

async function subjectOf(ctx: Context, deps: RequestLimitDependencies, report: boolean): Promise<{ id: string; plan: string }> {
  const known = ctx.state.principal as Principal | undefined;
  if (known) return { id: known.keyId, plan: known.plan };
  const header = ctx.get('Authorization');
  const address = deps.clientIp?.(ctx) ?? ctx.ip;
  if (!header) return report ? { id: `ip:${address}`, plan: GUEST_PLAN } : { id: `refused-ip:${address}`, plan: REFUSED_PLAN };
  try {
    const principal = await deps.authenticate(ctx, {});
    return { id: principal.keyId, plan: principal.plan };
  } catch {
    return { id: `refused-key:${createHash('sha256').update(header.trim()).digest('hex').slice(0, 32)}`, plan: REFUSED_PLAN };
  }
}
