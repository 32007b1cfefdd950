import type Router from '@koa/router';
import type { Context } from 'koa';
import { type z } from 'zod';
import { KilnError } from '../errors.js';
import { hasScope, type Principal, type Scope } from '../service/principal.js';
import { validationFailed, type FieldError } from '../service/validation.js';
import { lineOf, unstorableMembers, unstorableText } from '../text-rules.js';
import type { MultipartForm } from './multipart-form.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a handler answers: `data` (and list `meta`) in the envelope, or nothing when it wrote ctx itself. */
export interface Reply {
  status?: number;
  data: unknown;
  meta?: unknown;
}

export interface RouteInput<Q, B> {
  query: Q;
  body: B;
  params: Record<string, string>;
  principal: Principal;
  ctx: Context;
}

export interface ResponseDoc {
  description: string;
  /** the `data` member's schema (wrapped in the envelope in the document) */
  data?: z.ZodType;
  list?: boolean;
  /** a list's `meta` when it is not a page (the document says PageMeta otherwise) */
  listMeta?: z.ZodType;
  /** the body is `data` itself, not wrapped in the envelope (a document meant to be saved as a file) */
  bare?: boolean;
  /** a non-JSON body, e.g. text/csv */
  content?: string;
}

export interface RouteDefinition<Q = unknown, B = unknown> {
  method: HttpMethod;
  /** OpenAPI form, e.g. /campaigns/{campaign_id} (under /v1) */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * Required scope; every route declares one (default deny). 'none': any authenticated caller
   * (the materials lookup); 'public': no credentials at all (signing in).
   */
  scope: Scope | 'none' | 'public';
  /** open to guests without credentials: only the templates list and detail and the materials lookup are */
  guests?: boolean;
  /** a stricter per-minute limit for this endpoint than the plan's (creating a campaign 10, starting one 5, an upload 5, results 60) */
  rateLimit?: { perMinute: number };
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** the body as documented, where a member is validated by a dedicated validator (e.g. the MDL) */
  bodyDoc?: z.ZodType;
  /** documented alternative multipart body */
  multipart?: z.ZodType;
  /** the route also takes a text/csv body, handed to the handler as text (`ctx.state.csvText`) */
  csv?: { description: string };
  /**
   * the JSON body may carry bare NaN and Infinity tokens (as Python writes measured values);
   * they arrive as non-finite numbers for the handler to judge
   */
  nonFiniteNumbers?: boolean;
  /** a larger JSON body limit than the API's default, for a route that takes whole documents (bytes) */
  jsonLimitBytes?: number;
  /** the handler reads the request stream itself (uploads); nothing is parsed before it */
  streamsBody?: boolean;
  responses: Record<number, ResponseDoc>;
  handle(input: RouteInput<Q, B>): Promise<Reply | void>;
}

export interface RouteHooks {
  /** resolves the caller (a guest where the route allows guests); throws 401 */
  authenticate(ctx: Context, options: { guests?: boolean }): Promise<Principal>;
  /** parses the request body for routes that take one */
  parseBody(ctx: Context, route: RouteDefinition): Promise<void>;
  /** counts the request against the caller's limits; throws 429 */
  limit(ctx: Context, principal: Principal, route: RouteDefinition): Promise<void>;
}

/** The caller of a public route: no organization, no scopes. */
const PUBLIC: Principal = { organizationId: '', plan: 'free', keyId: 'public', scopes: [] };

/** The API's routes: mounted on a Koa router and described in the OpenAPI document from one list. */
export class RouteTable {
  readonly routes: RouteDefinition[] = [];

  add<Q, B>(route: RouteDefinition<Q, B>): void {
    // default deny: a route that names no scope (a cast can hide it from the compiler) stops the start
    if (!route.scope) throw new Error(`Route ${route.method.toUpperCase()} ${route.path} declares no scope; every route must.`);
    this.routes.push(route);
  }

  mount(router: Router, hooks: RouteHooks): void {
    for (const route of this.routes) {
      const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
      router[route.method](koaPath, async (ctx) => {
        // a route open to all counts nothing; its answer reports the caller's window (request-limits.ts)
        if (route.scope === 'public') ctx.state.rateLimit = 'report';
        const principal = route.scope === 'public' ? PUBLIC : await hooks.authenticate(ctx, { guests: route.guests });
        if (route.scope !== 'public') await hooks.limit(ctx, principal, route);
        if (route.scope !== 'none' && route.scope !== 'public' && !hasScope(principal, route.scope)) {
          throw new KilnError('INSUFFICIENT_SCOPE', `This request needs the ${route.scope} scope, which this key does not have.`, {
            required_scope: route.scope,
          });
        }
        // text Postgres cannot keep (NUL, lone surrogates) is refused here, naming where it was, before any query sees it
        refuseUnstorable([...unstorableMembers(ctx.params), ...unstorableMembers(ctx.query)]);
        const query = route.query ? parseOrFail(route.query, ctx.query, '') : undefined;
        let body: unknown;
        if ((route.body || route.multipart) && !route.streamsBody) {
          await hooks.parseBody(ctx, route);
          body = ctx.request.body;
          refuseUnstorable(unstorableBody(ctx, body));
          if (route.body && !ctx.state.multipart && ctx.state.csvText === undefined) body = parseOrFail(route.body, body ?? {}, '');
        }
        const reply = await route.handle({ query, body, params: ctx.params, principal, ctx });
        if (reply) {
          ctx.status = reply.status ?? 200;
          ctx.body = reply.meta === undefined ? { data: reply.data } : { data: reply.data, meta: reply.meta };
        }
      });
    }
  }
}

function refuseUnstorable(problems: FieldError[]): void {
  if (problems.length > 0) throw validationFailed(problems);
}

/** The body's unstorable text: a JSON body's members, a form's fields and text files, a CSV body's lines. */
function unstorableBody(ctx: Context, body: unknown): FieldError[] {
  const csvText = ctx.state.csvText as string | undefined;
  if (csvText !== undefined) return unstorableLine('(body)', csvText);
  const form = ctx.state.multipart as MultipartForm | undefined;
  if (!form) return unstorableMembers(body);
  const files = Object.entries(form.files).flatMap(([name, file]) => unstorableLine(name, file.content.toString('utf8')));
  return [...unstorableMembers(form.fields), ...files];
}

/** A text document's first unstorable character, by line (decoded UTF-8 holds no lone surrogate, so that is a NUL). */
function unstorableLine(path: string, text: string): FieldError[] {
  const why = unstorableText(text);
  if (!why) return [];
  return [{ path, message: `line ${lineOf(text, text.indexOf('\u0000'))} ${why}` }];
}

export function parseOrFail<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw validationFailed(zodFieldErrors(parsed.error.issues, prefix));
}

export function zodFieldErrors(issues: readonly z.core.$ZodIssue[], prefix: string): FieldError[] {
  return issues
    .map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
      return keys.map((key) => ({
        path: formatPath(prefix, [...issue.path, ...(key === undefined ? [] : [key])]) || '(body)',
        message: issue.code === 'unrecognized_keys' ? 'is not a known member' : issue.message,
      }));
    })
    .flat();
}

function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out;
}

/** The page a list request asks for: `page` (default 1) and `per_page` (default 20). */
export function paging(query: { page?: number; per_page?: number }): { page: number; perPage: number } {
  return { page: query.page ?? 1, perPage: query.per_page ?? 20 };
}

/** A page of a list: meta with page, per_page, total and total_pages (a page past the last has no data and the same meta). */
export function pageMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage) };
}
