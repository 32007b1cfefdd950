import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { authenticateKey, type KeyUsageRecorder } from '../service/api-keys.js';
import { hasScope, type Principal } from '../service/principal.js';
import type { TokenService } from '../service/tokens.js';
import type { Db } from '../store/db.js';
import { clientIp } from './client-ip.js';
import type { CredentialEnd, Subscriber } from './event-hub.js';

/** The bearer token of a request: from the Authorization header, or `?token=` where allowed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new KilnError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <API key or token>".');
  return match[1];
}

/** A WebSocket's subscriber with what its credential is checked again by. */
export interface CredentialSubscriber extends Subscriber {
  principal: Principal;
  token: string;
  ip: string;
}

/** Guests are counted per client address: 100 requests per hour each. */
export const GUEST_PLAN = 'guest';

/**
 * Bearer authentication: an API key (`svc_...`) or a Kiln JWT (three dot-separated parts). On
 * routes open to guests, a request without an Authorization header is a guest: read-only, no
 * organization, counted by its address.
 */
export function bearerAuthenticator(db: Db, usage: KeyUsageRecorder, tokens: TokenService, trustedProxies: number) {
  /** `recheck`: the credential of an open WebSocket checked again, which is not a use of the key */
  const resolve = async (token: string | null, ip?: string, recheck = false): Promise<Principal> => {
    if (token === null) throw new KilnError('UNAUTHENTICATED', 'This request needs credentials: send Authorization: Bearer <API key or token>.');
    if (!token.startsWith('svc_') && token.split('.').length === 3) return tokens.verify(token, { ip });
    const principal = await authenticateKey(db, token, { ip });
    if (!recheck) usage.record(principal.keyId);
    return principal;
  };
  return {
    resolve,
    /** The WebSocket's side: a handshake's subscriber, and its credential checked again while the socket is open. */
    websocket: {
      authenticate: async (token: string | null, ip: string): Promise<CredentialSubscriber | null> => {
        try {
          const principal = await resolve(token, ip);
          return {
            organizationId: principal.organizationId,
            canRead: hasScope(principal, 'campaigns:read'),
            expiresAt: principal.expiresAt ? principal.expiresAt.getTime() : null,
            principal,
            token: token!,
            ip,
          };
        } catch {
          return null;
        }
      },
      recheck: async (subscriber: Subscriber): Promise<CredentialEnd | null> => {
        const { token, ip, expiresAt } = subscriber as CredentialSubscriber;
        try {
          await resolve(token, ip, true);
          return null;
        } catch (error) {
          if (!(error instanceof KilnError)) throw error;
          if (error.code === 'IP_NOT_ALLOWED') return 'ip_not_allowed';
          return expiresAt !== null && Date.now() >= expiresAt ? 'expired' : 'revoked';
        }
      },
    },
    http: async (ctx: Context, options: { guests?: boolean } = {}): Promise<Principal> => {
      if (ctx.state.principal) return ctx.state.principal as Principal;
      // a refusal is remembered too: the rate limiter asks again for the request it counts
      if (ctx.state.authFailure) throw ctx.state.authFailure;
      const ip = clientIp(ctx.req, trustedProxies);
      const header = ctx.get('Authorization');
      try {
        const principal: Principal =
          !header && options.guests
            ? { organizationId: '', plan: GUEST_PLAN, keyId: `ip:${ip}`, scopes: ['templates:read'] }
            : await resolve(bearerToken(header || undefined), ip);
        ctx.state.principal = principal;
        return principal;
      } catch (error) {
        if (header) ctx.state.authFailure = error;
        throw error;
      }
    },
  };
}
