import type { Executor } from './db.js';
import { pageOf } from './paging.js';

export interface ApiKeyRow {
  id: string;
  organization_id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  scopes: string[];
  allowed_ips: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  request_count: number;
}

export async function insertApiKey(
  db: Executor,
  row: Pick<ApiKeyRow, 'id' | 'organization_id' | 'name' | 'key_prefix' | 'key_hash' | 'scopes' | 'expires_at' | 'allowed_ips'>,
): Promise<ApiKeyRow> {
  const [key] = await db('api_keys')
    .insert({ ...row, scopes: JSON.stringify(row.scopes), allowed_ips: JSON.stringify(row.allowed_ips) })
    .returning('*');
  return key;
}

/** Candidate keys for a presented key, by its displayable prefix; the caller compares hashes. */
export async function keysWithPrefix(db: Executor, keyPrefix: string): Promise<(ApiKeyRow & { plan: string })[]> {
  return db('api_keys')
    .join('organizations', 'organizations.id', 'api_keys.organization_id')
    .where('api_keys.key_prefix', keyPrefix)
    .select<(ApiKeyRow & { plan: string })[]>('api_keys.*', 'organizations.plan');
}

export async function countKeys(db: Executor, organizationId: string): Promise<number> {
  const [{ n }] = await db('api_keys').where({ organization_id: organizationId }).count({ n: '*' });
  return Number(n);
}

export async function keyWithHashExists(db: Executor, keyHash: string): Promise<boolean> {
  return (await db('api_keys').where({ key_hash: keyHash }).first('id')) !== undefined;
}

/** Usage counters, added in batches so a busy key does not cost a write per request. */
export async function addKeyUsage(db: Executor, usage: ReadonlyMap<string, { count: number; lastUsed: Date }>): Promise<void> {
  for (const [id, { count, lastUsed }] of usage) {
    await db('api_keys')
      .where({ id })
      .update({ request_count: db.raw('request_count + ?', [count]), last_used_at: db.raw('greatest(coalesce(last_used_at, ?), ?)', [lastUsed, lastUsed]) });
  }
}

/** Which of an organization's keys a caller manages: all of them, or its test-mode (`svc_test_`) keys only. */
export type KeyReach = 'all' | 'test';

function keysOf(db: Executor, organizationId: string, reach: KeyReach) {
  const query = db('api_keys').where({ organization_id: organizationId });
  if (reach === 'test') query.andWhereLike('key_prefix', 'svc\\_test\\_%');
  return query;
}

export async function listKeys(
  db: Executor,
  organizationId: string,
  reach: KeyReach,
  page: number,
  perPage: number,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  return pageOf<ApiKeyRow>(keysOf(db, organizationId, reach), { sort: { column: 'created_at', descending: true }, page, perPage });
}

export async function findKey(db: Executor, organizationId: string, reach: KeyReach, id: string): Promise<ApiKeyRow | undefined> {
  return keysOf(db, organizationId, reach).andWhere({ id }).first();
}

/** What decides whether a token made from this key still holds; by id alone, as the token names its key. */
export async function keyValidity(db: Executor, id: string): Promise<Pick<ApiKeyRow, 'revoked_at' | 'expires_at' | 'allowed_ips'> | undefined> {
  return db('api_keys').where({ id }).first('revoked_at', 'expires_at', 'allowed_ips');
}

export async function updateKey(db: Executor, id: string, patch: { allowed_ips?: string[]; revoked_at?: Date }): Promise<ApiKeyRow> {
  const { allowed_ips, ...values } = patch;
  const [row] = await db('api_keys')
    .where({ id })
    .update({ ...values, ...(allowed_ips ? { allowed_ips: JSON.stringify(allowed_ips) } : {}) })
    .returning('*');
  return row;
}
