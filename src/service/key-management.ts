import { KilnError } from '../errors.js';
import { findKey, listKeys, updateKey, type ApiKeyRow } from '../store/api-keys.js';
import type { Db } from '../store/db.js';
import type { KeyPrefix } from './api-key-format.js';
import { createApiKey } from './api-keys.js';
import { allowListErrors, normalizeAllowList } from './ip-allowlist.js';
import type { Principal, Scope } from './principal.js';
import { notFound, validationFailed } from './validation.js';

/** The stored record of a key as lists and PATCH show it: usage, allowlist and revocation, never its secret. */
export function keyRecord(row: ApiKeyRow) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    scopes: row.scopes,
    created_at: iso(row.created_at),
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    request_count: Number(row.request_count),
    allowed_ips: row.allowed_ips,
    revoked_at: iso(row.revoked_at),
  };
}

/** Keys belong to the live organization; a test-mode admin key manages the same keys. */
function organizationOf(principal: Principal): string {
  return principal.organizationId.replace(/__test$/, '');
}

function checkAllowList(principal: Principal, allowedIps: string[] | undefined): string[] {
  if (!allowedIps || allowedIps.length === 0) return [];
  if (principal.plan !== 'enterprise') {
    throw validationFailed([
      { path: 'allowed_ips', message: `IP allowlists are an enterprise-plan feature; this organization is on the ${principal.plan} plan` },
    ]);
  }
  const errors = allowListErrors(allowedIps);
  if (errors.length > 0) throw validationFailed(errors);
  return normalizeAllowList(allowedIps);
}

export async function createKeyFor(
  db: Db,
  principal: Principal,
  input: { name: string; scopes: Scope[]; expires_at?: string; allowed_ips?: string[]; prefix?: KeyPrefix },
) {
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) throw validationFailed([{ path: 'expires_at', message: 'must be in the future' }]);
  const allowedIps = checkAllowList(principal, input.allowed_ips);
  const { row, key } = await createApiKey(db, {
    organizationId: organizationOf(principal),
    name: input.name,
    scopes: input.scopes,
    expiresAt,
    prefix: input.prefix,
    allowedIps,
  });
  const record = keyRecord(row);
  return {
    id: record.id,
    name: record.name,
    key,
    key_prefix: record.key_prefix,
    scopes: record.scopes,
    expires_at: record.expires_at,
    allowed_ips: record.allowed_ips,
    created_at: record.created_at,
  };
}

export async function listKeysFor(db: Db, principal: Principal, page: number, perPage: number) {
  const { rows, total } = await listKeys(db, organizationOf(principal), page, perPage);
  return { data: rows.map(keyRecord), total };
}

export async function setAllowedIps(db: Db, principal: Principal, id: string, allowedIps: string[]) {
  const row = await findKey(db, organizationOf(principal), id);
  if (!row) throw notFound('API key', id);
  const normalized = allowedIps.length === 0 ? [] : checkAllowList(principal, allowedIps);
  return keyRecord(await updateKey(db, row.id, { allowed_ips: normalized }));
}

export async function revokeKey(db: Db, principal: Principal, id: string) {
  const row = await findKey(db, organizationOf(principal), id);
  if (!row) throw notFound('API key', id);
  if (row.id === principal.keyId) {
    throw new KilnError('INVALID_STATE', 'A key cannot revoke itself; revoke it with another admin key.', { status: 'active' });
  }
  if (!row.revoked_at) await updateKey(db, row.id, { revoked_at: new Date() });
  return { id: row.id, revoked: true };
}
