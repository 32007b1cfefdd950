import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { authenticateKey, type KeyUsageRecorder } from '../service/api-keys.js';
import type { Principal } from '../service/principal.js';
import type { Db } from '../store/db.js';

/** The bearer token of a request: from the Authorization header, or `?token=` where allowed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new KilnError(401, 'UNAUTHENTICATED', 'The Authorization header must be "Bearer <API key or token>".');
  return match[1];
}

/**
 * API-key authentication. (The access issue adds JWTs, guests and rate limits behind this same
 * function.)
 */
export function keyAuthenticator(db: Db, usage: KeyUsageRecorder) {
  const resolve = async (token: string | null): Promise<Principal> => {
    if (token === null) throw new KilnError(401, 'UNAUTHENTICATED', 'This request needs credentials: send Authorization: Bearer <API key>.');
    const principal = await authenticateKey(db, token);
    usage.record(principal.keyId);
    return principal;
  };
  return {
    resolve,
    http: async (ctx: Context): Promise<Principal> => {
      if (ctx.state.principal) return ctx.state.principal as Principal;
      const principal = await resolve(bearerToken(ctx.get('Authorization') || undefined));
      ctx.state.principal = principal;
      return principal;
    },
  };
}
