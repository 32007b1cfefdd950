import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { noteRequest } from './connection-guard.js';

/** Every response carries X-Request-Id: the caller's own (when sane) or a fresh one. */
export async function requestId(ctx: Context, next: Next): Promise<void> {
  const given = ctx.get('X-Request-Id');
  const id = /^[A-Za-z0-9._-]{1,128}$/.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  noteRequest(id);
  ctx.set('X-Request-Id', id);
  await next();
}
