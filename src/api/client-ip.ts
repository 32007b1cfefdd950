import type { Context } from 'koa';

/**
 * The client's address. With no trusted proxies it is the socket's peer, whatever X-Forwarded-For
 * says (a client can send any header). With N trusted proxies, each of which appends the address
 * it received from, the client is the N-th entry from the right; entries further left were written
 * by the client and are ignored.
 */
export function clientIp(ctx: Context, trustedProxies: number): string {
  const socket = ctx.req.socket.remoteAddress ?? '';
  if (trustedProxies === 0) return socket;
  const chain = (ctx.get('X-Forwarded-For') || '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return chain.length >= trustedProxies ? chain[chain.length - trustedProxies] : socket;
}
