import type { IncomingMessage } from 'node:http';

/**
 * The client's address. With no trusted proxies it is the socket's peer, whatever X-Forwarded-For
 * says (a client can send any header). With N trusted proxies, each of which appends the address
 * it received from, the client is the N-th entry from the right; entries further left were written
 * by the client and are ignored.
 */
export function clientIp(req: IncomingMessage, trustedProxies: number): string {
  const socket = req.socket.remoteAddress ?? '';
  if (trustedProxies === 0) return socket;
  const header = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return chain.length >= trustedProxies ? chain[chain.length - trustedProxies] : socket;
}
