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
    if (!available || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || SERVER_PATHS.test(ctx.path)) {
      await next();
      return;
    }
    const requested = fileFor(root, ctx.path);
    const file = requested && existsSync(requested) && statSync(requested).isFile() ? requested : join(root, 'index.html');
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    const asset = file.includes(`${sep}assets${sep}`);
    ctx.set('Cache-Control', asset ? 'public, max-age=31536000, immutable' : 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = createReadStream(asset ? compressedCopy(ctx, file) : file);
  };
}

/** The file a path names inside the dashboard, or null for a path that leaves it or cannot be decoded. */
function fileFor(root: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const file = normalize(join(root, decoded));
  return file.startsWith(root) && !/\.(br|gz)$/.test(file) ? file : null;
}

/** The build's brotli or gzip copy of an asset when the client takes it (web/vite.config.ts makes them). */
function compressedCopy(ctx: Context, file: string): string {
  ctx.vary('Accept-Encoding');
  for (const [encoding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    if (ctx.acceptsEncodings(encoding, 'identity') === encoding && existsSync(file + suffix)) {
      ctx.set('Content-Encoding', encoding);
      return file + suffix;
    }
  }
  return file;
}
