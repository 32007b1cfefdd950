import type { Context } from 'koa';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { KilnError } from '../errors.js';
import { planLimits } from '../service/plans.js';
import type { Db } from '../store/db.js';
import { GUEST_PLAN } from './auth.js';

const GUEST_REQUESTS_PER_HOUR = 100;

/**
 * The plan of a window that counts refusals: a credential that was refused (each presented
 * credential its own window) or an address's requests without credentials that no guest can be
 * served. Each such window holds 100 requests per hour, like a guest's, but apart from it.
 */
export const REFUSED_PLAN = 'refused';

export type WindowName = 'minute' | 'hour';

const WINDOW_SECONDS: Record<WindowName, number> = { minute: 60, hour: 3600 };

export interface RateLimitSettings {
  /** API_RATE_LIMIT_PER_MINUTE: replaces the plans' per-minute and per-endpoint limits; 0 disables limiting */
  perMinute?: number;
  /** API_RATE_LIMIT_PER_HOUR: replaces the plans' per-hour limit; 0 drops the hourly window */
  perHour?: number;
}

/** One window a request counts against. */
interface Window {
  /** counter key suffix: the same subject has separate counters per window and per endpoint */
  scope: string;
  window: WindowName;
  limit: number;
}

/** The outcome for the window that binds: the fewest requests left (ties: the later reset). */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets */
  reset: number;
  window: WindowName;
}

/**
 * Per-key limits by plan (guests: per client address): the plan's per-minute and per-hour
 * windows plus stricter per-endpoint windows. Counters live in Postgres (one atomic upsert per
 * window and request, so every API node counts exactly); while the database is unreachable an
 * in-memory limiter per node takes over rather than letting every request through or failing it.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterPostgres>();

  constructor(
    private readonly db: Db,
    private readonly settings: RateLimitSettings,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.settings.perMinute !== 0;
  }

  /**
   * Counts one request of `subject` and returns the binding window's state; throws 429
   * RATE_LIMITED (with the state for the headers in `details`) when any window is exhausted.
   */
  async consume(subject: string, plan: string, endpoint?: { name: string; perMinute: number }): Promise<RateLimitState> {
    const windows = this.windowsFor(plan, endpoint);
    const outcomes = await Promise.all(
      windows.map(async (w) => {
        try {
          return { w, res: await this.limiter(w).consume(`${subject}:${w.scope}`), rejected: false };
        } catch (error) {
          if (error instanceof RateLimiterRes) return { w, res: error, rejected: true };
          throw error;
        }
      }),
    );
    const rejected = outcomes.filter((o) => o.rejected);
    if (rejected.length > 0) {
      const worst = rejected.reduce((a, b) => (b.res.msBeforeNext > a.res.msBeforeNext ? b : a));
      const retryAfter = Math.max(1, Math.ceil(worst.res.msBeforeNext / 1000));
      const state = stateOf(worst.w, worst.res);
      const per = worst.w.scope === worst.w.window ? `per ${worst.w.window}` : `per ${worst.w.window} on ${worst.w.scope}`;
      throw new KilnError(
        'RATE_LIMITED',
        `Rate limit exceeded: ${worst.w.limit} requests ${per}. Wait ${retryAfter} seconds before retrying.`,
        { limit: worst.w.limit, window: worst.w.window, retry_after: retryAfter },
        { cause: state },
      );
    }
    return outcomes.map((o) => stateOf(o.w, o.res)).reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.reset > a.reset) ? b : a));
  }

  /**
   * The binding window's state for `subject` without counting a request: what the responses of
   * uncounted routes (health, the OpenAPI document, sign-in) report.
   */
  async peek(subject: string, plan: string): Promise<RateLimitState> {
    const states = await Promise.all(
      this.windowsFor(plan).map(async (w) => {
        const res = await this.limiter(w).get(`${subject}:${w.scope}`);
        if (res) return stateOf(w, res);
        return { limit: w.limit, remaining: w.limit, reset: Math.ceil(Date.now() / 1000) + WINDOW_SECONDS[w.window], window: w.window };
      }),
    );
    return states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.reset > a.reset) ? b : a));
  }

  private windowsFor(plan: string, endpoint?: { name: string; perMinute: number }): Window[] {
    // guests have their own fixed allowance: 100 requests per hour per client address; refusals
    // are counted in windows of the same size, apart from it
    if (plan === GUEST_PLAN || plan === REFUSED_PLAN) return [{ scope: 'hour', window: 'hour', limit: GUEST_REQUESTS_PER_HOUR }];
    const limits = planLimits(plan);
    const perMinute = this.settings.perMinute ?? limits.requestsPerMinute;
    const perHour = this.settings.perHour ?? limits.requestsPerHour;
    const windows: Window[] = [{ scope: 'minute', window: 'minute', limit: perMinute }];
    if (perHour > 0) windows.push({ scope: 'hour', window: 'hour', limit: perHour });
    // An operator who sets API_RATE_LIMIT_PER_MINUTE has chosen the limits; the stricter
    // per-endpoint windows belong to the plans.
    if (endpoint && this.settings.perMinute === undefined && endpoint.perMinute < perMinute)
      windows.push({ scope: endpoint.name, window: 'minute', limit: endpoint.perMinute });
    return windows;
  }

  private limiter(w: Window): RateLimiterPostgres {
    const id = `${w.window}:${w.limit}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const duration = WINDOW_SECONDS[w.window];
      limiter = new RateLimiterPostgres({
        storeClient: this.db,
        storeType: 'knex',
        tableName: 'rate_limits',
        tableCreated: true,
        keyPrefix: `w${duration}p${w.limit}`,
        points: w.limit,
        duration,
        insuranceLimiter: new RateLimiterMemory({ points: w.limit, duration }),
      });
      this.limiters.set(id, limiter);
      this.logger.debug({ window: w.window, limit: w.limit }, 'rate-limit window created');
    }
    return limiter;
  }
}

function stateOf(w: Window, res: RateLimiterRes): RateLimitState {
  return {
    limit: w.limit,
    remaining: Math.max(0, res.remainingPoints),
    reset: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    window: w.window,
  };
}

/** X-RateLimit-* headers on every limited response; Retry-After on a 429 only. */
export function setRateLimitHeaders(ctx: Context, state: RateLimitState, retryAfter?: number): void {
  ctx.set('X-RateLimit-Limit', String(state.limit));
  ctx.set('X-RateLimit-Remaining', String(state.remaining));
  ctx.set('X-RateLimit-Reset', String(state.reset));
  if (retryAfter !== undefined) ctx.set('Retry-After', String(retryAfter));
}
