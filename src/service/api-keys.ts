import { timingSafeEqual } from 'node:crypto';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import { addKeyUsage, countKeys, insertApiKey, keyWithHashExists, keysWithPrefix, type ApiKeyRow } from '../store/api-keys.js';
import type { Db } from '../store/db.js';
import { ensureOrganization, findOrganization } from '../store/organizations.js';
import { ipAllowed } from './ip-allowlist.js';
import { generateApiKey, hashApiKey, isWellFormedKey, keyDisplayPrefix, type KeyPrefix } from './api-key-format.js';
import { SCOPES, testOrganizationId, type Principal, type Scope } from './principal.js';

/** The organization of a self-hosted installation; created on first start. */
export const DEFAULT_ORGANIZATION = { id: 'org_default', name: 'Default organization', plan: 'enterprise' };

const unauthenticated = (message: string) => new KilnError('UNAUTHENTICATED', message);

/**
 * Resolves a bearer API key to its principal. A key with a wrong shape or checksum is refused
 * before any query; the stored hash is compared in constant time.
 */
export async function authenticateKey(db: Db, key: string, context: { ip?: string; now?: Date } = {}): Promise<Principal> {
  const now = context.now ?? new Date();
  if (!isWellFormedKey(key)) {
    throw unauthenticated('The API key is malformed or mistyped (its checksum does not match). Copy the whole key, starting with svc_.');
  }
  const presented = Buffer.from(hashApiKey(key), 'hex');
  const row = (await keysWithPrefix(db, keyDisplayPrefix(key))).find((candidate) => timingSafeEqual(Buffer.from(candidate.key_hash, 'hex'), presented));
  if (!row) throw unauthenticated('The API key is not known to this Kiln server.');
  if (row.revoked_at) throw unauthenticated('The API key has been revoked.');
  if (row.expires_at && row.expires_at <= now) throw unauthenticated(`The API key expired at ${row.expires_at.toISOString()}.`);
  if (row.allowed_ips.length > 0 && !(context.ip && ipAllowed(context.ip, row.allowed_ips))) {
    throw new KilnError(
      'IP_NOT_ALLOWED',
      `This key may be used only from ${row.allowed_ips.join(', ')}; this request came from ${context.ip ?? 'an unknown address'}.`,
    );
  }
  // Test-mode data lives in a shadow organization of its own: a `svc_test_` key works on it and
  // never sees live data (every query is scoped by organization), and live keys never see it.
  const organizationId = key.startsWith('svc_test_') ? testOrganizationId(row.organization_id) : row.organization_id;
  return {
    organizationId,
    plan: row.plan,
    keyId: row.id,
    scopes: row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
    expiresAt: row.expires_at,
  };
}

export interface CreatedKey {
  row: ApiKeyRow;
  key: string;
}

export async function createApiKey(
  db: Db,
  input: { organizationId: string; name: string; scopes: readonly Scope[]; expiresAt?: Date | null; prefix?: KeyPrefix; key?: string; allowedIps?: string[] },
): Promise<CreatedKey> {
  const key = input.key ?? generateApiKey(input.prefix);
  if (key.startsWith('svc_test_')) {
    const organization = await findOrganization(db, input.organizationId);
    await ensureOrganization(db, {
      id: testOrganizationId(input.organizationId),
      name: `${organization?.name ?? input.organizationId} (test mode)`,
      plan: organization?.plan ?? 'free',
    });
  }
  const row = await insertApiKey(db, {
    id: newId('key_'),
    organization_id: input.organizationId,
    name: input.name,
    key_prefix: keyDisplayPrefix(key),
    key_hash: hashApiKey(key),
    scopes: [...input.scopes],
    expires_at: input.expiresAt ?? null,
    allowed_ips: input.allowedIps ?? [],
  });
  return { row, key };
}

/**
 * Bootstrap: BOOTSTRAP_ADMIN_KEY, when set, exists as an admin key after start;
 * otherwise the first start on an empty database creates one admin key, returned once for
 * printing. Returns the key to print, or null when there is nothing new to show.
 */
export async function bootstrapAdminKey(db: Db, configured: string | undefined): Promise<{ key: string; created: boolean } | null> {
  await ensureOrganization(db, DEFAULT_ORGANIZATION);
  if (configured !== undefined) {
    if (!isWellFormedKey(configured)) {
      throw new Error(
        'BOOTSTRAP_ADMIN_KEY is not a valid Kiln key (svc_live_/svc_test_/svc_ci_, 24 characters and a 6-character checksum). Generate one with `kiln keys generate`.',
      );
    }
    if (await keyWithHashExists(db, hashApiKey(configured))) return { key: configured, created: false };
    await createApiKey(db, { organizationId: DEFAULT_ORGANIZATION.id, name: 'bootstrap admin', scopes: ['admin'], key: configured });
    return { key: configured, created: true };
  }
  if ((await countKeys(db, DEFAULT_ORGANIZATION.id)) > 0) return null;
  const { key } = await createApiKey(db, { organizationId: DEFAULT_ORGANIZATION.id, name: 'bootstrap admin', scopes: ['admin'] });
  return { key, created: true };
}

/**
 * Per-key request counts and last use, accumulated in memory and written every few seconds, so a
 * busy key does not turn every request into a write on one hot row.
 */
export class KeyUsageRecorder {
  private pending = new Map<string, { count: number; lastUsed: Date }>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    intervalMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(keyId: string, at = new Date()): void {
    const entry = this.pending.get(keyId);
    if (entry) {
      entry.count += 1;
      entry.lastUsed = at;
    } else this.pending.set(keyId, { count: 1, lastUsed: at });
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    await addKeyUsage(this.db, batch).catch(() => {
      for (const [id, usage] of batch) {
        const entry = this.pending.get(id);
        if (entry) entry.count += usage.count;
        else this.pending.set(id, usage);
      }
    });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
