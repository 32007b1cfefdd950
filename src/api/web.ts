import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Context, Next } from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Paths that belong to the server (any API version, so /v2/... is a 404, not the app), never to the dashboard. */
const SERVER_PATHS = /^\/(v\d+|docs|auth)(\/|$)/;

/**
 * Serves the built dashboard (dist/web) at the root: files as they are (hashed assets cached for
 * good), and index.html for any other GET so the app's own routes load. The dashboard is a client
 * of the public API like any other; nothing here knows about it beyond its files.
 */
export function dashboard(dir: string) {
  const root = normalize(dir + sep);
  const available = existsSync(join(root, 'index.html'));
  return async (ctx: Context, next: Next): Promise<void> => {
    if (!available || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || SERVER_PATHS.test(ctx.path)) return next();
    const requested = normalize(join(root, decodeURIComponent(ctx.path)));
    const file = requested.startsWith(root) && existsSync(requested) && statSync(requested).isFile() ? requested : join(root, 'index.html');
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    ctx.set('Cache-Control', file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = createReadStream(file);
  };
}
