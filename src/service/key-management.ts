import { KilnError } from '../errors.js';
import { findKey, listKeys, updateKey, type ApiKeyRow, type KeyReach } from '../store/api-keys.js';
import type { Db } from '../store/db.js';
import { announceCredentialChange } from '../store/notify.js';
import type { KeyPrefix } from './api-key-format.js';
import { createApiKey } from './api-keys.js';
import { allowListErrors, normalizeAllowList } from './ip-allowlist.js';
import { inTestMode, liveOrganizationOf, type Principal, type Scope } from './principal.js';
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

/**
 * Keys are rows of the live organization. A live admin manages all of them (it creates the
 * test keys); a test-mode admin only the test keys: it never sees, changes or creates a live one.
 */
function reachOf(principal: Principal): KeyReach {
  return inTestMode(principal) ? 'test' : 'all';
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
  // a test-mode key makes test keys only, by default too
  const prefix = input.prefix ?? (inTestMode(principal) ? 'svc_test_' : undefined);
  if (inTestMode(principal) && prefix !== 'svc_test_') {
    throw validationFailed([
      { path: 'prefix', message: `is ${prefix}; a test-mode key creates svc_test_ keys only (create live and CI keys with a live admin key)` },
    ]);
  }
  const allowedIps = checkAllowList(principal, input.allowed_ips);
  const { row, key } = await createApiKey(db, {
    organizationId: liveOrganizationOf(principal),
    name: input.name,
    scopes: input.scopes,
    expiresAt,
    prefix,
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
  const { rows, total } = await listKeys(db, liveOrganizationOf(principal), reachOf(principal), page, perPage);
  return { data: rows.map(keyRecord), total };
}

export async function setAllowedIps(db: Db, principal: Principal, id: string, allowedIps: string[]) {
  const row = await findKey(db, liveOrganizationOf(principal), reachOf(principal), id);
  if (!row) throw notFound('API key', id);
  const normalized = allowedIps.length === 0 ? [] : checkAllowList(principal, allowedIps);
  const updated = keyRecord(await updateKey(db, row.id, { allowed_ips: normalized }));
  await announceCredentialChange(db);
  return updated;
}

export async function revokeKey(db: Db, principal: Principal, id: string) {
  const row = await findKey(db, liveOrganizationOf(principal), reachOf(principal), id);
  if (!row) throw notFound('API key', id);
  if (row.id === principal.keyId) {
    throw new KilnError('INVALID_STATE', 'A key cannot revoke itself; revoke it with another admin key.', { status: 'active' });
  }
  if (!row.revoked_at) {
    await updateKey(db, row.id, { revoked_at: new Date() });
    await announceCredentialChange(db);
  }
  return { id: row.id, revoked: true };
}
