import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { authenticateKey, type KeyUsageRecorder } from '../service/api-keys.js';
import type { Principal } from '../service/principal.js';
import type { TokenService } from '../service/tokens.js';
import type { Db } from '../store/db.js';
import { clientIp } from './client-ip.js';

/** The bearer token of a request: from the Authorization header, or `?token=` where allowed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new KilnError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <API key or token>".');
  return match[1];
}

/** Guests are counted per client address: 100 requests per hour each. */
export const GUEST_PLAN = 'guest';

/**
 * Bearer authentication: an API key (`svc_...`) or a Kiln JWT (three dot-separated parts). On
 * routes open to guests, a request without an Authorization header is a guest: read-only, no
 * organization, counted by its address.
 */
export function bearerAuthenticator(db: Db, usage: KeyUsageRecorder, tokens: TokenService, trustedProxies: number) {
  const resolve = async (token: string | null, ip?: string): Promise<Principal> => {
    if (token === null) throw new KilnError('UNAUTHENTICATED', 'This request needs credentials: send Authorization: Bearer <API key or token>.');
    if (!token.startsWith('svc_') && token.split('.').length === 3) return tokens.verify(token, { ip });
    const principal = await authenticateKey(db, token, { ip });
    usage.record(principal.keyId);
    return principal;
  };
  return {
    resolve,
    http: async (ctx: Context, options: { guests?: boolean } = {}): Promise<Principal> => {
      if (ctx.state.principal) return ctx.state.principal as Principal;
      const ip = clientIp(ctx.req, trustedProxies);
      const header = ctx.get('Authorization');
      const principal: Principal =
        !header && options.guests
          ? { organizationId: '', plan: GUEST_PLAN, keyId: `ip:${ip}`, scopes: ['templates:read'] }
          : await resolve(bearerToken(header || undefined), ip);
      ctx.state.principal = principal;
      return principal;
    },
  };
}
