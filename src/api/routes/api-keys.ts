import { z } from 'zod';
import { KEY_PREFIXES } from '../../service/api-key-format.js';
import { createKeyFor, listKeysFor, revokeKey, setAllowedIps } from '../../service/key-management.js';
import { SCOPES } from '../../service/principal.js';
import type { Db } from '../../store/db.js';
import { pageMeta, paging, type RouteTable } from '../route.js';
import { pageQuery } from '../schemas.js';

const tag = 'API keys';
const record = z.object({
  id: z.string(),
  name: z.string(),
  key_prefix: z.string().describe('the first characters of the key, to recognise it'),
  scopes: z.array(z.enum(SCOPES)),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  last_used_at: z.iso.datetime().nullable(),
  request_count: z.int(),
  allowed_ips: z.array(z.string()),
  revoked_at: z.iso.datetime().nullable(),
});
const allowedIps = z.array(z.string().min(1).max(64)).max(100).describe('IPv4/IPv6 addresses or CIDR ranges (enterprise plan)');

/**
 * `usage`: the node's buffer of key usage not yet written; listing writes it first, so the
 * counters include every request this node has served (other nodes' lag at most their flush
 * interval, 5 s).
 */
export function apiKeyRoutes(table: RouteTable, db: Db, usage?: { flush(): Promise<void> }): void {
  table.add({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    tag,
    summary: 'Create an API key; the secret appears in this response only',
    scope: 'admin',
    body: z.strictObject({
      name: z.string().min(1).max(200),
      scopes: z.array(z.enum(SCOPES)).min(1),
      expires_at: z.iso.datetime({ offset: true }).optional(),
      allowed_ips: allowedIps.optional(),
      prefix: z
        .enum(KEY_PREFIXES)
        .optional()
        .describe('svc_live_ (default), svc_test_ (test-mode data only) or svc_ci_; a test-mode caller creates svc_test_ keys only, also by default'),
    }),
    responses: {
      201: {
        description: 'created',
        data: z.object({
          id: z.string(),
          name: z.string(),
          key: z.string(),
          key_prefix: z.string(),
          scopes: z.array(z.string()),
          expires_at: z.iso.datetime().nullable(),
          allowed_ips: z.array(z.string()),
          created_at: z.iso.datetime(),
        }),
      },
    },
    handle: async ({ body, principal }) => ({ status: 201, data: await createKeyFor(db, principal, body) }),
  });

  table.add({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    tag,
    summary: "List the organization's keys with usage (request count, last used); a test-mode caller sees its test keys only",
    scope: 'admin',
    query: z.object(pageQuery),
    responses: { 200: { description: 'a page of keys', data: record, list: true } },
    handle: async ({ query, principal }) => {
      const { page, perPage } = paging(query);
      await usage?.flush();
      const { data, total } = await listKeysFor(db, principal, page, perPage);
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });

  table.add({
    method: 'patch',
    path: '/api-keys/{key_id}',
    operationId: 'updateApiKey',
    tag,
    summary: "Change a key's IP allowlist",
    scope: 'admin',
    body: z.strictObject({ allowed_ips: allowedIps }),
    responses: { 200: { description: 'the key', data: record } },
    handle: async ({ params, body, principal }) => ({ data: await setAllowedIps(db, principal, params.key_id, body.allowed_ips) }),
  });

  table.add({
    method: 'delete',
    path: '/api-keys/{key_id}',
    operationId: 'revokeApiKey',
    tag,
    summary: 'Revoke a key; it fails with 401 at once',
    scope: 'admin',
    responses: { 200: { description: 'revoked', data: z.object({ id: z.string(), revoked: z.literal(true) }) } },
    handle: async ({ params, principal }) => ({ data: await revokeKey(db, principal, params.key_id) }),
  });
}
