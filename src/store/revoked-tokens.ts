import type { Executor } from './db.js';

/** The id of a JWT that was refreshed or revoked, kept until the token would have expired anyway. */
export interface RevokedTokenRow {
  jti: string;
  expires_at: Date;
}

export async function isTokenRevoked(db: Executor, jti: string): Promise<boolean> {
  return (await db('revoked_tokens').where({ jti }).first('jti')) !== undefined;
}

/** Revokes a token id; false when it was revoked already (a second refresh of the same token). */
export async function revokeToken(db: Executor, row: RevokedTokenRow): Promise<boolean> {
  const inserted = await db('revoked_tokens').insert(row).onConflict('jti').ignore().returning('jti');
  return inserted.length > 0;
}

/** Ids of tokens that have expired need no keeping: the token fails on its expiry anyway. */
export async function sweepRevokedTokens(db: Executor): Promise<void> {
  await db('revoked_tokens').where('expires_at', '<', db.fn.now()).delete();
}
