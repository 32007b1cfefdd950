import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { KilnError } from '../errors.js';
import { keyValidity } from '../store/api-keys.js';
import type { Db } from '../store/db.js';
import { announceCredentialChange } from '../store/notify.js';
import { isTokenRevoked, revokeToken, sweepRevokedTokens } from '../store/revoked-tokens.js';
import { ipAllowed } from './ip-allowlist.js';
import { SCOPES, type Principal, type Scope } from './principal.js';

export const TOKEN_ISSUER = 'kiln';
export const TOKEN_AUDIENCE = 'kiln-api';
/** The default token lifetime: 30 days. */
export const DEFAULT_TOKEN_SECONDS = 30 * 24 * 3600;
const MAX_TOKEN_SECONDS = 366 * 24 * 3600;

export interface IssuedToken {
  token: string;
  expires_at: string;
}

const unauthenticated = (message: string) => new KilnError('UNAUTHENTICATED', message);

/**
 * Kiln's JWTs: HS256 only (pinned on verification, so `alg: none` or another algorithm is
 * refused), signed with API_SECRET_KEY, with issuer, audience, subject, id, issue and expiry
 * times all required. A token carries its organization, plan and scopes; a refreshed or revoked
 * token's id is kept in `revoked_tokens` until it would have expired anyway.
 */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(
    private readonly db: Db,
    secret: string,
  ) {
    if (Buffer.byteLength(secret) < 32) throw new Error('API_SECRET_KEY must be at least 32 bytes.');
    this.key = new TextEncoder().encode(secret);
  }

  async issue(subject: { sub: string; organizationId: string; plan: string; scopes: readonly Scope[] }, seconds = DEFAULT_TOKEN_SECONDS): Promise<IssuedToken> {
    if (!Number.isInteger(seconds) || seconds < 60 || seconds > MAX_TOKEN_SECONDS) {
      throw new KilnError('VALIDATION_FAILED', `The request is not valid: expires_in: must be between 60 seconds and ${MAX_TOKEN_SECONDS / 86400} days.`, {
        errors: [{ path: 'expires_in', message: 'out of range' }],
      });
    }
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ org: subject.organizationId, plan: subject.plan, scopes: [...subject.scopes] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(subject.sub)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + seconds)
      .sign(this.key);
    return { token, expires_at: new Date((now + seconds) * 1000).toISOString() };
  }

  /**
   * The principal of a valid, unrevoked token; 401 otherwise, saying why. A token minted from an
   * API key lives no longer than the key: it fails once the key is revoked or expired, and the
   * key's `allowed_ips` apply to it.
   */
  async verify(token: string, context: { ip?: string } = {}): Promise<Principal & { jti: string; exp: number; sub: string }> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'iss', 'aud'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw unauthenticated('The token has expired; sign in again or refresh it before it expires.');
      throw unauthenticated('The token is not valid (bad signature, algorithm, issuer, audience or claims).');
    }
    const scopes = Array.isArray(payload.scopes) ? payload.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s as string)) : [];
    if (typeof payload.org !== 'string' || typeof payload.plan !== 'string') throw unauthenticated('The token is not valid (claims).');
    if (await isTokenRevoked(this.db, payload.jti!)) {
      throw unauthenticated('The token has been replaced by a refresh or revoked; use the newer token.');
    }
    const keyExpiry = payload.sub!.startsWith('key_') ? await this.checkIssuingKey(payload.sub!, context.ip) : null;
    const tokenExpiry = new Date(payload.exp! * 1000);
    // the token acts as its subject: the key it was minted from, or the signed-in user
    return {
      organizationId: payload.org,
      plan: payload.plan,
      keyId: payload.sub!,
      scopes,
      expiresAt: keyExpiry && keyExpiry < tokenExpiry ? keyExpiry : tokenExpiry,
      jti: payload.jti!,
      exp: payload.exp!,
      sub: payload.sub!,
    };
  }

  /** Throws unless the key a token was minted from still holds; returns the key's expiry. */
  private async checkIssuingKey(keyId: string, ip: string | undefined): Promise<Date | null> {
    const key = await keyValidity(this.db, keyId);
    if (!key || key.revoked_at) throw unauthenticated('The API key this token was made from has been revoked.');
    if (key.expires_at && key.expires_at <= new Date()) throw unauthenticated('The API key this token was made from has expired.');
    if (key.allowed_ips.length > 0 && !(ip && ipAllowed(ip, key.allowed_ips))) {
      throw new KilnError(
        'IP_NOT_ALLOWED',
        `The key this token was made from may be used only from ${key.allowed_ips.join(', ')}; this request came from ${ip ?? 'an unknown address'}.`,
      );
    }
    return key.expires_at;
  }

  /** The longest a new token for this key may live: not past the key's own expiry. */
  async lifetimeFor(keyId: string, seconds: number): Promise<number> {
    const key = await keyValidity(this.db, keyId);
    if (!key?.expires_at) return seconds;
    const left = Math.floor((key.expires_at.getTime() - Date.now()) / 1000);
    return Math.min(seconds, Math.max(60, left));
  }

  /** A new token for the same subject; the old one stops working at once. */
  async refresh(token: string): Promise<IssuedToken> {
    const claims = await this.verify(token);
    if (!(await revokeToken(this.db, { jti: claims.jti, expires_at: new Date(claims.exp * 1000) }))) {
      throw unauthenticated('The token has already been refreshed; use the newer token.');
    }
    await announceCredentialChange(this.db);
    await sweepRevokedTokens(this.db);
    return this.issue({ sub: claims.sub, organizationId: claims.organizationId, plan: claims.plan, scopes: claims.scopes });
  }
}
