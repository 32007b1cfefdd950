import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import WebSocket from 'ws';
import { createApiKey } from '../src/service/api-keys.js';
import { SCOPES, type Scope } from '../src/service/principal.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, startTestKiln, TEST_SECRET, TestPostgres, type TestKiln } from './support/service.js';
import { messageText } from '../src/api/ws-text.js';

/*
 * Access control end to end (keys, tokens, guests, plan limits and their error codes): scopes on
 * every route, organization isolation, key lifecycle, IP
 * allowlists behind and without proxies, JWTs and their forgeries, guests, and test mode.
 */

let postgres: TestPostgres;
let kiln: TestKiln;
let admin: ReturnType<typeof client>;
let openapi: { paths: Record<string, Record<string, Operation>> };

interface Operation {
  operationId: string;
  'x-required-scope'?: string;
  requestBody?: { content: Record<string, unknown> };
}

interface Op {
  method: string;
  path: string;
  operation: Operation;
}

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  admin = client(kiln.base, kiln.adminKey);
  const doc = await client(kiln.base, null)('GET', '/v1/openapi.json');
  assert.equal(doc.status, 200);
  openapi = doc.json;
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the served OpenAPI document (so a new route joins these tests by itself). */
function operations(): Op[] {
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (HTTP_METHODS.includes(method)) ops.push({ method, path, operation });
    }
  }
  return ops;
}

const realScope = (scope: string | undefined): scope is Scope => scope !== undefined && (SCOPES as readonly string[]).includes(scope);

async function keyFor(organizationId: string, scopes: Scope[], extra: { expiresAt?: Date; allowedIps?: string[]; name?: string } = {}) {
  return createApiKey(kiln.runtime.db, {
    organizationId,
    name: extra.name ?? `test ${scopes.join(' ')}`,
    scopes,
    expiresAt: extra.expiresAt,
    allowedIps: extra.allowedIps,
  });
}

function expectError(res: { status: number; json: any; text: string }, status: number, code: string, what = '') {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.equal(res.json?.error?.code, code, `${what}: ${res.text}`);
}

const wsBase = () => kiln.base.replace(/^http/, 'ws');

/** Opens a socket with the key and sends one message; resolves with the first answer. */
async function wsAsk(key: string, message: unknown): Promise<any> {
  const ws = new WebSocket(`${wsBase()}/v1/ws`, { headers: { Authorization: `Bearer ${key}` } });
  try {
    await new Promise((opened, failed) => ws.once('open', opened).once('error', failed));
    const answer = new Promise<any>((got, failed) => {
      ws.once('message', (raw) => got(JSON.parse(messageText(raw))));
      ws.once('error', failed);
      setTimeout(() => failed(new Error('no WebSocket answer within 5 s')), 5000).unref();
    });
    ws.send(JSON.stringify(message));
    return await answer;
  } finally {
    ws.close();
  }
}

describe('scopes', () => {
  test('every route with a real scope answers 403 INSUFFICIENT_SCOPE to a key holding every other scope (generated from the OpenAPI document)', async () => {
    const scoped = operations().filter((op) => realScope(op.operation['x-required-scope']));
    assert.ok(scoped.length >= 25, `expected at least 25 scoped operations, the document has ${scoped.length}`);
    for (const op of operations()) {
      const scope = op.operation['x-required-scope'];
      if (op.path.startsWith('/v1/') && op.path !== '/v1/health' && op.path !== '/v1/openapi.json' && op.path !== '/v1/ws') {
        assert.ok(scope !== undefined, `${op.method.toUpperCase()} ${op.path} declares no x-required-scope`);
        assert.ok(realScope(scope) || scope === 'none' || scope === 'public', `${op.method.toUpperCase()} ${op.path}: unknown scope ${scope}`);
      }
    }

    const keys = new Map<Scope, string>();
    const placeholders: Record<string, string> = { campaign_id: 'camp_x', job_id: 'job_x', dataset_id: 'ds_x', template_id: 'tmpl_x', key_id: 'key_x' };
    const checked: string[] = [];
    for (const { method, path, operation } of scoped) {
      const scope = operation['x-required-scope'] as Scope;
      let key = keys.get(scope);
      if (!key) {
        const held = SCOPES.filter((s) => s !== scope && s !== 'admin');
        key = (await keyFor('org_default', held, { name: `all but ${scope}` })).key;
        keys.set(scope, key);
      }
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => placeholders[name] ?? 'x_x');
      const content = operation.requestBody?.content ?? {};
      let body: unknown;
      if (method === 'post' || method === 'patch' || method === 'put') {
        if (!('application/json' in content) && 'multipart/form-data' in content) {
          const form = new FormData();
          form.append('file', new Blob(['x1,x2\n0.1,0.2\n'], { type: 'text/csv' }), 'd.csv');
          body = form;
        } else body = {};
      }
      const what = `${method.toUpperCase()} ${url} (${operation.operationId}, needs ${scope})`;
      const res = await client(kiln.base, key)(method.toUpperCase(), url, body);
      expectError(res, 403, 'INSUFFICIENT_SCOPE', what);
      assert.equal(res.json.error.details?.required_scope, scope, what);
      checked.push(operation.operationId);
    }
    // the route table and the document agree; spot-check the scopes the published list leaves open (jobs, template creation)
    assert.equal(scoped.find((op) => op.path === '/v1/jobs/{job_id}' && op.method === 'get')?.operation['x-required-scope'], 'campaigns:read');
    assert.equal(scoped.find((op) => op.path === '/v1/jobs/{job_id}/cancel')?.operation['x-required-scope'], 'campaigns:write');
    assert.equal(scoped.find((op) => op.path === '/v1/jobs/{job_id}/retry')?.operation['x-required-scope'], 'campaigns:write');
    assert.equal(scoped.find((op) => op.path === '/v1/templates' && op.method === 'post')?.operation['x-required-scope'], 'templates:write');
    assert.equal(scoped.find((op) => op.path === '/v1/datasets/{dataset_id}' && op.method === 'delete')?.operation['x-required-scope'], 'datasets:write');
    assert.equal(scoped.find((op) => op.path === '/v1/api-keys' && op.method === 'post')?.operation['x-required-scope'], 'admin');
    const materials = operations().find((op) => op.path === '/v1/materials');
    assert.equal(materials?.operation['x-required-scope'], 'none');
    assert.equal(checked.length, scoped.length);

    // with only the one missing scope added back, the same key gets past the scope check
    const reader = client(kiln.base, (await keyFor('org_default', ['campaigns:read'])).key);
    assert.equal((await reader('GET', '/v1/campaigns')).status, 200);
    assert.equal((await reader('GET', '/v1/materials?formula=TiO2')).status, 200, 'materials need no scope');
  });
});

describe('organizations', () => {
  test('another organization gets 404 NOT_FOUND on every route with an id, and an error on the WebSocket', async () => {
    await ensureOrganization(kiln.runtime.db, { id: 'org_a', name: 'Lab A', plan: 'enterprise' });
    await ensureOrganization(kiln.runtime.db, { id: 'org_b', name: 'Lab B', plan: 'enterprise' });
    const keyA = (await keyFor('org_a', ['admin'])).key;
    const keyB = (await keyFor('org_b', ['admin'])).key;
    const a = client(kiln.base, keyA);
    const b = client(kiln.base, keyB);

    const campaign = await a('POST', '/v1/campaigns', { name: 'secret campaign', domain: 'benchmark', mdl: zdt1Mdl() });
    assert.equal(campaign.status, 201, campaign.text);
    const started = await a('POST', `/v1/campaigns/${campaign.json.data.id}/start`, {});
    assert.equal(started.status, 202, started.text);
    const form = new FormData();
    form.append('name', 'secret data');
    form.append('file', new Blob(['x1,x2,f1,f2\n0.1,0.2,0.1,3.5\n0.5,0.1,0.5,1.2\n'], { type: 'text/csv' }), 'rows.csv');
    const dataset = await a('POST', '/v1/datasets', form);
    assert.equal(dataset.status, 201, dataset.text);
    const template = await a('POST', '/v1/templates', {
      name: 'Secret Recipe',
      description: 'team only',
      mdl: { ...zdt1Mdl(), domain: 'benchmark' },
      visibility: 'team',
    });
    assert.equal(template.status, 201, template.text);
    const key = await a('POST', '/v1/api-keys', { name: 'secret key', scopes: ['campaigns:read'] });
    assert.equal(key.status, 201, key.text);
    const ids: Record<string, string> = {
      campaign_id: campaign.json.data.id,
      job_id: started.json.data.job.id,
      dataset_id: dataset.json.data.id,
      template_id: template.json.data.id,
      key_id: key.json.data.id,
      // the first candidate of A's campaign (its initial design, once proposed)
      evaluation_id: `eval_${String(campaign.json.data.id).replace(/^camp_/, '')}_1`,
    };

    // minimal valid bodies, so that a 422 cannot come before the lookup
    const bodies: Record<string, unknown> = {
      postEvaluations: { evaluations: [{ id: 'cand_x', objectives: { f1: 0.5, f2: 0.5 } }] },
      updateApiKey: { allowed_ips: ['127.0.0.1'] },
      startCampaign: {},
      correctResult: { objectives: { f1: 0.5, f2: 0.5 } },
    };
    const withIds = operations().filter((op) => /\{\w+_id\}/.test(op.path));
    assert.ok(withIds.length >= 17, `expected at least 17 operations with an id, found ${withIds.length}`);
    const failures: string[] = [];
    for (const { method, path, operation } of withIds) {
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        assert.ok(ids[name], `no org A resource for the path parameter ${name} of ${path}; add one to this test`);
        return encodeURIComponent(ids[name]);
      });
      const body = operation.requestBody ? (bodies[operation.operationId] ?? {}) : undefined;
      const res = await b(method.toUpperCase(), url, body);
      if (res.status !== 404 || res.json?.error?.code !== 'NOT_FOUND')
        failures.push(`${method.toUpperCase()} ${url} (${operation.operationId}) → ${res.status} ${res.text.slice(0, 300)}`);
    }
    assert.deepEqual(failures, [], 'every id route answers 404 NOT_FOUND to another organization');

    // the slug of A's team template means nothing to B either
    expectError(await b('GET', `/v1/templates/${encodeURIComponent(template.json.data.slug)}`), 404, 'NOT_FOUND', 'template by slug');
    // lists do not leak
    assert.ok(!(await b('GET', '/v1/campaigns?per_page=100')).json.data.some((c: { id: string }) => c.id === ids.campaign_id));
    assert.deepEqual((await b('GET', `/v1/jobs?campaign_id=${ids.campaign_id}`)).json.data, []);
    assert.ok(!(await b('GET', '/v1/datasets?per_page=100')).json.data.some((d: { id: string }) => d.id === ids.dataset_id));
    assert.ok(!(await b('GET', '/v1/templates?per_page=100')).json.data.some((t: { id: string }) => t.id === ids.template_id));
    assert.ok(!(await b('GET', '/v1/api-keys?per_page=100')).json.data.some((k: { id: string }) => k.id === ids.key_id));

    // and B's attempts changed nothing of A's
    const campaignNow = await a('GET', `/v1/campaigns/${ids.campaign_id}`);
    assert.equal(campaignNow.status, 200);
    assert.equal(campaignNow.json.data.status, 'running');
    const jobNow = await a('GET', `/v1/jobs/${ids.job_id}`);
    assert.equal(jobNow.status, 200);
    assert.equal(jobNow.json.data.status, 'queued');
    assert.equal(jobNow.json.data.cancel_requested, false);
    assert.equal((await a('GET', `/v1/datasets/${ids.dataset_id}`)).status, 200);
    assert.equal((await a('GET', `/v1/templates/${ids.template_id}`)).status, 200);
    const keyNow = (await a('GET', '/v1/api-keys?per_page=100')).json.data.find((k: { id: string }) => k.id === ids.key_id);
    assert.equal(keyNow.revoked_at, null);
    assert.deepEqual(keyNow.allowed_ips, []);
    assert.equal((await client(kiln.base, key.json.data.key)('GET', '/v1/campaigns')).status, 200);

    // the WebSocket: B's subscription to A's campaign or job is an error message; A's own works
    const byB = await wsAsk(keyB, { type: 'subscribe', campaign_id: ids.campaign_id });
    assert.equal(byB.type, 'error', JSON.stringify(byB));
    assert.equal(byB.error.code, 'NOT_FOUND');
    const jobByB = await wsAsk(keyB, { type: 'subscribe', job_id: ids.job_id });
    assert.equal(jobByB.type, 'error', JSON.stringify(jobByB));
    const byA = await wsAsk(keyA, { type: 'subscribe', campaign_id: ids.campaign_id });
    assert.equal(byA.type, 'subscribed', JSON.stringify(byA));
    assert.equal(byA.campaign_id, ids.campaign_id);
  });
});

describe('API keys', () => {
  test('expired, revoked, malformed and mistyped keys are 401 UNAUTHENTICATED', async () => {
    const expired = await keyFor('org_default', ['campaigns:read'], { expiresAt: new Date(Date.now() - 60_000) });
    expectError(await client(kiln.base, expired.key)('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'expired at creation');

    const expiring = await keyFor('org_default', ['campaigns:read']);
    assert.equal((await client(kiln.base, expiring.key)('GET', '/v1/campaigns')).status, 200);
    await kiln.runtime
      .db('api_keys')
      .where({ id: expiring.row.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expectError(await client(kiln.base, expiring.key)('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'expired later');

    const doomed = await admin('POST', '/v1/api-keys', { name: 'doomed', scopes: ['campaigns:read'] });
    assert.equal(doomed.status, 201);
    const doomedApi = client(kiln.base, doomed.json.data.key);
    assert.equal((await doomedApi('GET', '/v1/campaigns')).status, 200);
    const revoked = await admin('DELETE', `/v1/api-keys/${doomed.json.data.id}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.deepEqual(revoked.json.data, { id: doomed.json.data.id, revoked: true });
    expectError(await doomedApi('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'revoked');
    const listed = (await admin('GET', '/v1/api-keys?per_page=100')).json.data.find((k: { id: string }) => k.id === doomed.json.data.id);
    assert.ok(listed.revoked_at && !Number.isNaN(Date.parse(listed.revoked_at)));

    const anonymous = client(kiln.base, null);
    for (const header of ['Bearer nonsense', 'Basic x', 'Bearer ', 'Bearer', `Token ${kiln.adminKey}`, `Bearer ${kiln.adminKey} extra`]) {
      expectError(await anonymous('GET', '/v1/campaigns', undefined, { Authorization: header }), 401, 'UNAUTHENTICATED', `Authorization: ${header}`);
    }
    const last = kiln.adminKey.at(-1)!;
    const flipped = kiln.adminKey.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    expectError(await client(kiln.base, flipped)('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'wrong checksum');
    // a well-formed key that was never issued
    const { generateApiKey } = await import('../src/service/api-key-format.js');
    expectError(await client(kiln.base, generateApiKey())('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'unknown key');
    expectError(await anonymous('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'no credentials');
  });

  test('key management: the secret once, a list without it, usage counts, allowlist edits, no self-revocation, validation', async () => {
    const created = await admin('POST', '/v1/api-keys', { name: 'ci reader', scopes: ['campaigns:read', 'datasets:read'] });
    assert.equal(created.status, 201, created.text);
    const k = created.json.data;
    assert.match(k.key, /^svc_live_[0-9A-Za-z]{30}$/);
    assert.ok(k.key.startsWith(k.key_prefix));
    assert.ok(k.key_prefix.length < k.key.length);
    assert.deepEqual(k.scopes, ['campaigns:read', 'datasets:read']);
    assert.equal(k.expires_at, null);
    assert.deepEqual(k.allowed_ips, []);
    assert.match(k.id, /^key_/);

    const list = await admin('GET', '/v1/api-keys?per_page=100');
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes(k.key), 'the full key never appears in the list');
    assert.ok(!list.text.includes(k.key.slice(k.key_prefix.length)), 'nor its secret part');
    const stored = await kiln.runtime.db('api_keys').where({ id: k.id }).first();
    assert.ok(!list.text.includes(stored!.key_hash), 'nor its hash');
    const item = list.json.data.find((x: { id: string }) => x.id === k.id);
    assert.deepEqual(Object.keys(item).sort(), [
      'allowed_ips',
      'created_at',
      'expires_at',
      'id',
      'key_prefix',
      'last_used_at',
      'name',
      'request_count',
      'revoked_at',
      'scopes',
    ]);
    assert.equal(item.request_count, 0);
    assert.equal(item.last_used_at, null);
    assert.ok(list.json.meta.total >= 2);

    const user = client(kiln.base, k.key);
    const usedFrom = Date.now();
    for (let i = 0; i < 3; i++) assert.equal((await user('GET', '/v1/campaigns')).status, 200);
    // at once, not after the 5 s flush: the list writes this node's buffered usage first
    const used = (await admin('GET', '/v1/api-keys?per_page=100')).json.data.find((x: { id: string }) => x.id === k.id);
    assert.equal(used.request_count, 3);
    assert.ok(used.last_used_at);
    assert.ok(Date.parse(used.last_used_at) >= usedFrom - 1000 && Date.parse(used.last_used_at) <= Date.now() + 1000);

    const patched = await admin('PATCH', `/v1/api-keys/${k.id}`, { allowed_ips: ['127.0.0.1', '2001:db8::/32'] });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.data.allowed_ips, ['127.0.0.1', '2001:db8::/32']);
    assert.ok(!patched.text.includes(k.key));
    assert.equal((await user('GET', '/v1/campaigns')).status, 200, 'loopback is allowed');
    const cleared = await admin('PATCH', `/v1/api-keys/${k.id}`, { allowed_ips: [] });
    assert.deepEqual(cleared.json.data.allowed_ips, []);
    expectError(await admin('PATCH', '/v1/api-keys/key_nope', { allowed_ips: [] }), 404, 'NOT_FOUND', 'patch unknown key');
    expectError(await admin('DELETE', '/v1/api-keys/key_nope'), 404, 'NOT_FOUND', 'revoke unknown key');

    const keys = (await admin('GET', '/v1/api-keys?per_page=100')).json.data as { id: string; key_prefix: string; name: string }[];
    const self = keys.find((x) => kiln.adminKey.startsWith(x.key_prefix) && x.name === 'bootstrap admin');
    assert.ok(self, 'the bootstrap admin key is listed');
    const selfRevoke = await admin('DELETE', `/v1/api-keys/${self.id}`);
    expectError(selfRevoke, 409, 'INVALID_STATE', 'self-revocation');
    assert.equal((await admin('GET', '/v1/campaigns')).status, 200, 'still works');

    const badScopes = await admin('POST', '/v1/api-keys', { name: 'bad', scopes: ['campaigns:read', 'root'] });
    expectError(badScopes, 422, 'VALIDATION_FAILED', 'unknown scope');
    assert.ok(badScopes.json.error.details.errors.some((e: { path: string }) => e.path.startsWith('scopes')));
    expectError(await admin('POST', '/v1/api-keys', { name: 'none', scopes: [] }), 422, 'VALIDATION_FAILED', 'no scopes');
    const past = await admin('POST', '/v1/api-keys', { name: 'past', scopes: ['campaigns:read'], expires_at: new Date(Date.now() - 3600_000).toISOString() });
    expectError(past, 422, 'VALIDATION_FAILED', 'expires_at in the past');
    assert.equal(past.json.error.details.errors[0].path, 'expires_at');
    const future = await admin('POST', '/v1/api-keys', {
      name: 'future',
      scopes: ['campaigns:read'],
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    assert.equal(future.status, 201, future.text);
    assert.ok(Math.abs(Date.parse(future.json.data.expires_at) - (Date.now() + 3600_000)) < 60_000);
    assert.equal((await client(kiln.base, future.json.data.key)('GET', '/v1/campaigns')).status, 200);

    // key management needs admin
    const notAdmin = client(kiln.base, k.key);
    const denied = await notAdmin('GET', '/v1/api-keys');
    expectError(denied, 403, 'INSUFFICIENT_SCOPE', 'list keys without admin');
    assert.equal(denied.json.error.details.required_scope, 'admin');
  });
});

describe('IP allowlists', () => {
  const keyWith = async (allowed: string[]) => {
    const res = await admin('POST', '/v1/api-keys', { name: `ips ${allowed.join(' ')}`, scopes: ['campaigns:read'], allowed_ips: allowed });
    assert.equal(res.status, 201, res.text);
    return res.json.data as { id: string; key: string; allowed_ips: string[] };
  };

  test('loopback, CIDR ranges, IPv4-mapped IPv6 and IPv6 entries against a direct connection; X-Forwarded-For is ignored without trusted proxies', async () => {
    const loopback = await keyWith(['127.0.0.1']);
    assert.equal((await client(kiln.base, loopback.key)('GET', '/v1/campaigns')).status, 200);

    const tenNet = await keyWith(['10.0.0.0/8']);
    expectError(await client(kiln.base, tenNet.key)('GET', '/v1/campaigns'), 403, 'IP_NOT_ALLOWED', '10.0.0.0/8 from loopback');
    const spoofed = await client(kiln.base, tenNet.key)('GET', '/v1/campaigns', undefined, { 'X-Forwarded-For': '10.1.2.3' });
    expectError(spoofed, 403, 'IP_NOT_ALLOWED', 'spoofed X-Forwarded-For without trusted proxies');

    const mapped = await keyWith(['::ffff:127.0.0.1']);
    assert.deepEqual(mapped.allowed_ips, ['127.0.0.1'], 'stored normalized');
    assert.equal((await client(kiln.base, mapped.key)('GET', '/v1/campaigns')).status, 200);
    const stored = (await admin('GET', '/v1/api-keys?per_page=100')).json.data.find((k: { id: string }) => k.id === mapped.id);
    assert.deepEqual(stored.allowed_ips, ['127.0.0.1']);

    const mappedRange = await keyWith(['::ffff:127.0.0.0/104']);
    assert.deepEqual(mappedRange.allowed_ips, ['127.0.0.0/8']);
    assert.equal((await client(kiln.base, mappedRange.key)('GET', '/v1/campaigns')).status, 200);

    // the test connects to 127.0.0.1, so the server sees IPv4 loopback, which ::1 is not
    const v6 = await keyWith(['::1/128']);
    assert.deepEqual(v6.allowed_ips, ['::1']);
    expectError(await client(kiln.base, v6.key)('GET', '/v1/campaigns'), 403, 'IP_NOT_ALLOWED', '::1/128 from 127.0.0.1');

    // a refused address does not count as use
    const listed = (await admin('GET', '/v1/api-keys?per_page=100')).json.data.find((k: { id: string }) => k.id === tenNet.id);
    assert.equal(listed.request_count, 0);

    // a WebSocket handshake from outside the list is refused too
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${wsBase()}/v1/ws`, { headers: { Authorization: `Bearer ${tenNet.key}` } });
      ws.once('open', () => reject(new Error('handshake accepted')));
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      ws.once('error', () => undefined);
    });
    assert.ok(refused === 401 || refused === 403, `WebSocket handshake refused, got ${refused}`);
  });

  test('behind one trusted proxy the proxy-appended address counts, and client-written entries to its left do not', async () => {
    const proxied = await startTestKiln(kiln.databaseUrl, { WORKER_CONCURRENCY: '0', BOOTSTRAP_ADMIN_KEY: kiln.adminKey, KILN_TRUSTED_PROXIES: '1' });
    try {
      const tenNet = await keyWith(['10.0.0.0/8']);
      const viaProxy = client(proxied.base, tenNet.key);
      assert.equal((await viaProxy('GET', '/v1/campaigns', undefined, { 'X-Forwarded-For': '10.1.2.3' })).status, 200, 'the trusted proxy said 10.1.2.3');
      expectError(
        await viaProxy('GET', '/v1/campaigns', undefined, { 'X-Forwarded-For': '10.1.2.3, 192.0.2.7' }),
        403,
        'IP_NOT_ALLOWED',
        'client-supplied entry left of the proxy',
      );
      expectError(await viaProxy('GET', '/v1/campaigns'), 403, 'IP_NOT_ALLOWED', 'no X-Forwarded-For: the socket address');
      // the WebSocket handshake takes the client address the same way
      const handshake = (xff: string) =>
        new Promise<number>((resolve, reject) => {
          const ws = new WebSocket(`${proxied.base.replace(/^http/, 'ws')}/v1/ws`, {
            headers: { Authorization: `Bearer ${tenNet.key}`, 'X-Forwarded-For': xff },
          });
          ws.once('open', () => {
            ws.close();
            resolve(101);
          });
          ws.once('unexpected-response', (_req, res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          ws.once('error', reject);
        });
      assert.equal(await handshake('10.1.2.3'), 101, 'WebSocket from 10.1.2.3 via the trusted proxy');
      assert.notEqual(await handshake('10.1.2.3, 192.0.2.7'), 101, 'WebSocket with a client-written entry');
      const loopback = await keyWith(['127.0.0.1']);
      expectError(
        await client(proxied.base, loopback.key)('GET', '/v1/campaigns', undefined, { 'X-Forwarded-For': '127.0.0.1, 203.0.113.9' }),
        403,
        'IP_NOT_ALLOWED',
        'the client is what the proxy appended',
      );
    } finally {
      await proxied.stop();
    }
  });

  test('allowlists are an enterprise feature and every entry is validated', async () => {
    await ensureOrganization(kiln.runtime.db, { id: 'org_free', name: 'Free lab', plan: 'free' });
    const free = client(kiln.base, (await keyFor('org_free', ['admin'])).key);
    const refused = await free('POST', '/v1/api-keys', { name: 'ips', scopes: ['campaigns:read'], allowed_ips: ['127.0.0.1'] });
    expectError(refused, 422, 'VALIDATION_FAILED', 'allowlist on the free plan');
    assert.equal(refused.json.error.details.errors[0].path, 'allowed_ips');
    assert.equal((await free('POST', '/v1/api-keys', { name: 'plain', scopes: ['campaigns:read'] })).status, 201, 'a plain key is fine on free');

    const invalid = await admin('POST', '/v1/api-keys', { name: 'bad ips', scopes: ['campaigns:read'], allowed_ips: ['not-an-ip'] });
    expectError(invalid, 422, 'VALIDATION_FAILED', 'not-an-ip');
    assert.deepEqual(
      invalid.json.error.details.errors.map((e: { path: string }) => e.path),
      ['allowed_ips[0]'],
    );
    const several = await admin('POST', '/v1/api-keys', { name: 'bad ips', scopes: ['campaigns:read'], allowed_ips: ['10.0.0.1', '300.1.1.1', '10.0.0.0/33'] });
    expectError(several, 422, 'VALIDATION_FAILED', 'several bad entries');
    assert.deepEqual(
      several.json.error.details.errors.map((e: { path: string }) => e.path),
      ['allowed_ips[1]', 'allowed_ips[2]'],
    );
    const patch = await admin('PATCH', `/v1/api-keys/${(await keyFor('org_default', ['campaigns:read'])).row.id}`, { allowed_ips: ['nope'] });
    expectError(patch, 422, 'VALIDATION_FAILED', 'PATCH with a bad entry');
    assert.equal(patch.json.error.details.errors[0].path, 'allowed_ips[0]');
  });
});

describe('JWT', () => {
  const SECRET = new TextEncoder().encode(TEST_SECRET);

  function claims(overrides: Record<string, unknown> = {}, omit: string[] = []): Record<string, unknown> {
    const now = Math.floor(Date.now() / 1000);
    const base: Record<string, unknown> = {
      iss: 'kiln',
      aud: 'kiln-api',
      sub: 'usr_forged',
      jti: randomUUID(),
      iat: now,
      exp: now + 3600,
      org: 'org_default',
      plan: 'enterprise',
      scopes: ['admin'],
      ...overrides,
    };
    for (const name of omit) delete base[name];
    return base;
  }

  const sign = (payload: Record<string, unknown>, alg = 'HS256', key: Uint8Array | CryptoKey = SECRET) =>
    new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);

  test('a token for the caller: 201, 30 days by default, custom expiry, and it works', async () => {
    const issued = await admin('POST', '/v1/auth/tokens');
    assert.equal(issued.status, 201, issued.text);
    const { token, expires_at } = issued.json.data;
    assert.equal(token.split('.').length, 3);
    assert.ok(Math.abs(Date.parse(expires_at) - (Date.now() + 30 * 86400_000)) < 60_000, expires_at);
    const viaToken = client(kiln.base, token);
    assert.equal((await viaToken('GET', '/v1/campaigns')).status, 200);
    assert.equal((await viaToken('GET', '/v1/api-keys')).status, 200, "the admin key's scopes travel with the token");

    const oneDay = await admin('POST', '/v1/auth/tokens', { expires_in_days: 1 });
    assert.equal(oneDay.status, 201, oneDay.text);
    assert.ok(Math.abs(Date.parse(oneDay.json.data.expires_at) - (Date.now() + 86400_000)) < 60_000);
    expectError(await admin('POST', '/v1/auth/tokens', { expires_in_days: 0 }), 422, 'VALIDATION_FAILED', 'zero days');
    expectError(await admin('POST', '/v1/auth/tokens', { expires_in_days: 400 }), 422, 'VALIDATION_FAILED', '400 days');

    // a narrower key's token carries its narrower scopes
    const reader = client(kiln.base, (await keyFor('org_default', ['campaigns:read'])).key);
    const readerToken = (await reader('POST', '/v1/auth/tokens')).json.data.token;
    assert.equal((await client(kiln.base, readerToken)('GET', '/v1/campaigns')).status, 200);
    expectError(await client(kiln.base, readerToken)('GET', '/v1/datasets'), 403, 'INSUFFICIENT_SCOPE', 'reader token on datasets');
    expectError(await client(kiln.base, null)('POST', '/v1/auth/tokens'), 401, 'UNAUTHENTICATED', 'guest asking for a token');
  });

  test('forged and defective tokens are all 401 UNAUTHENTICATED (each differs from a valid one in one defect)', async () => {
    // the control: a correctly signed token with these claims works, so each case below fails for its defect
    const valid = await sign(claims());
    assert.equal((await client(kiln.base, valid)('GET', '/v1/campaigns')).status, 200, 'control token');

    const { privateKey } = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const truncated = valid.slice(0, -4);
    const corpus: Record<string, string> = {
      'alg none': new UnsecuredJWT(claims()).encode(),
      'alg none with a signature part': `${new UnsecuredJWT(claims()).encode()}${valid.split('.')[2]}`,
      'HS512 with the same secret': await sign(claims(), 'HS512'),
      'RS256 with an RSA key': await sign(claims(), 'RS256', privateKey),
      'missing exp': await sign(claims({}, ['exp'])),
      'wrong issuer': await sign(claims({ iss: 'not-kiln' })),
      'wrong audience': await sign(claims({ aud: 'other-api' })),
      expired: await sign(claims({ iat: now - 7200, exp: now - 3600 })),
      'missing jti': await sign(claims({}, ['jti'])),
      'missing sub': await sign(claims({}, ['sub'])),
      'missing iat': await sign(claims({}, ['iat'])),
      'missing org': await sign(claims({}, ['org'])),
      'truncated signature': truncated,
      'empty signature': valid.replace(/[^.]+$/, ''),
      'signed with another secret': await sign(claims(), 'HS256', new TextEncoder().encode('another-secret-that-is-long-enough-0123456789')),
      'payload swapped under a valid signature': [
        valid.split('.')[0],
        Buffer.from(JSON.stringify(claims({ org: 'org_b' }))).toString('base64url'),
        valid.split('.')[2],
      ].join('.'),
    };
    for (const [what, token] of Object.entries(corpus)) {
      const res = await client(kiln.base, token)('GET', '/v1/campaigns');
      expectError(res, 401, 'UNAUTHENTICATED', what);
      assert.ok(!/at |\.js|jose|stack/i.test(res.json.error.message), `${what}: no internals in the message: ${res.json.error.message}`);
    }
  });

  test('refresh exchanges a valid token once; the old one stops working; API keys are not refreshed', async () => {
    const first = (await admin('POST', '/v1/auth/tokens')).json.data.token as string;
    const old = client(kiln.base, first);
    const refreshed = await old('POST', '/v1/auth/refresh');
    assert.equal(refreshed.status, 200, refreshed.text);
    const second = refreshed.json.data.token as string;
    assert.notEqual(second, first);
    assert.ok(Math.abs(Date.parse(refreshed.json.data.expires_at) - (Date.now() + 30 * 86400_000)) < 60_000);
    assert.equal((await client(kiln.base, second)('GET', '/v1/campaigns')).status, 200, 'the new token works');
    expectError(await old('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'the old token after refresh');
    expectError(await old('POST', '/v1/auth/refresh'), 401, 'UNAUTHENTICATED', 'refreshing the old token again');
    expectError(await admin('POST', '/v1/auth/refresh'), 401, 'UNAUTHENTICATED', 'refresh with an API key');
    expectError(await client(kiln.base, null)('POST', '/v1/auth/refresh'), 401, 'UNAUTHENTICATED', 'refresh without credentials');
    const expired = await sign(claims({ iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 60 }));
    expectError(await client(kiln.base, expired)('POST', '/v1/auth/refresh'), 401, 'UNAUTHENTICATED', 'refresh of an expired token');

    // the refreshed token refreshes in turn
    const third = await client(kiln.base, second)('POST', '/v1/auth/refresh');
    assert.equal(third.status, 200);
    assert.equal((await client(kiln.base, third.json.data.token)('GET', '/v1/campaigns')).status, 200);
  });
});

describe('credentials derived from a key', () => {
  // Not settled by the contract, but what a careful client expects from "revoke: the key fails with
  // 401 at once" and from key rotation: a token minted from a key must not outlive it.
  test('a token minted from an API key stops working when the key is revoked', async () => {
    const created = (await admin('POST', '/v1/api-keys', { name: 'leaky', scopes: ['campaigns:read'] })).json.data;
    const token = (await client(kiln.base, created.key)('POST', '/v1/auth/tokens')).json.data.token;
    assert.equal((await client(kiln.base, token)('GET', '/v1/campaigns')).status, 200);
    assert.equal((await admin('DELETE', `/v1/api-keys/${created.id}`)).status, 200);
    expectError(await client(kiln.base, created.key)('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'the revoked key');
    expectError(await client(kiln.base, token)('GET', '/v1/campaigns'), 401, 'UNAUTHENTICATED', 'a token minted from the revoked key');
  });

  test('a token minted from an expiring key expires no later than the key', async () => {
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const created = (await admin('POST', '/v1/api-keys', { name: 'short', scopes: ['campaigns:read'], expires_at: expiresAt })).json.data;
    const issued = (await client(kiln.base, created.key)('POST', '/v1/auth/tokens')).json.data;
    assert.ok(Date.parse(issued.expires_at) <= Date.parse(created.expires_at) + 1000, `token ${issued.expires_at} outlives key ${created.expires_at}`);
  });
});

describe('guests', () => {
  test('without credentials: templates and materials only; everything else 401; unknown routes 404', async () => {
    const guest = client(kiln.base, null);
    const templates = await guest('GET', '/v1/templates?per_page=100');
    assert.equal(templates.status, 200, templates.text);
    assert.ok(templates.json.data.length > 0);
    assert.ok(
      templates.json.data.every((t: { builtin: boolean; visibility: string }) => t.builtin && t.visibility === 'public'),
      'built-ins only',
    );
    assert.equal(templates.headers.get('x-ratelimit-limit'), '100');
    const builtin = templates.json.data[0];
    const detail = await guest('GET', `/v1/templates/${builtin.id}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.json.data.id, builtin.id);
    assert.ok(detail.json.data.mdl);
    assert.equal((await guest('GET', `/v1/templates/${encodeURIComponent(builtin.slug)}`)).status, 200);
    const materials = await guest('GET', '/v1/materials?formula=LiFePO4');
    assert.equal(materials.status, 200, materials.text);
    assert.ok(materials.json.data.length >= 1);

    // a custom (team) template of an organization stays hidden from guests
    const custom = await admin('POST', '/v1/templates', {
      name: 'Guests Never See',
      description: '',
      mdl: { ...zdt1Mdl(), domain: 'benchmark' },
      visibility: 'team',
    });
    assert.equal(custom.status, 201, custom.text);
    expectError(await guest('GET', `/v1/templates/${custom.json.data.id}`), 404, 'NOT_FOUND', 'guest on a team template');
    assert.ok(!(await guest('GET', '/v1/templates?per_page=100')).json.data.some((t: { id: string }) => t.id === custom.json.data.id));

    for (const [method, path, body] of [
      ['GET', '/v1/campaigns'],
      ['GET', '/v1/datasets'],
      ['GET', '/v1/jobs'],
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/templates', { name: 'x', description: '', mdl: { ...zdt1Mdl(), domain: 'benchmark' }, visibility: 'team' }],
      ['POST', '/v1/campaigns', { name: 'x', domain: 'benchmark', mdl: zdt1Mdl() }],
      ['GET', `/v1/templates/${builtin.id}/download`],
      ['DELETE', `/v1/templates/${custom.json.data.id}`],
    ] as [string, string, unknown?][]) {
      expectError(await guest(method, path, body), 401, 'UNAUTHENTICATED', `guest ${method} ${path}`);
    }
    expectError(await guest('GET', '/v1/no-such-route'), 404, 'NOT_FOUND', 'unknown route as a guest');
    expectError(await guest('GET', '/v2/templates'), 404, 'NOT_FOUND', 'unknown version as a guest');
    expectError(await admin('GET', '/v1/no-such-route'), 404, 'NOT_FOUND', 'unknown route with a key');
    // a known path with a method it does not have: an error in the envelope, not a plain-text body
    const wrongMethod = await guest('PUT', '/v1/campaigns');
    assert.ok(wrongMethod.status === 404 || wrongMethod.status === 405, `PUT /v1/campaigns → ${wrongMethod.status}`);
    // a header that is present but bad is not a guest
    expectError(
      await guest('GET', '/v1/templates', undefined, { Authorization: 'Bearer nonsense' }),
      401,
      'UNAUTHENTICATED',
      'bad credentials on a guest route',
    );
  });

  test('guests get 100 requests per hour per address, then 429 RATE_LIMITED', async () => {
    const dedicated = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
    try {
      const guest = client(dedicated.base, null);
      for (let i = 0; i < 100; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, () => guest('GET', '/v1/templates')));
        for (const res of batch) {
          assert.equal(res.status, 200, res.text);
          assert.equal(res.headers.get('x-ratelimit-limit'), '100');
          assert.equal(res.headers.get('retry-after'), null);
        }
      }
      const limited = await guest('GET', '/v1/materials?formula=LiFePO4');
      expectError(limited, 429, 'RATE_LIMITED', '101st guest request');
      assert.equal(limited.json.error.details.window, 'hour');
      assert.equal(limited.json.error.details.limit, 100);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600, `Retry-After ${limited.headers.get('retry-after')}`);
      assert.equal(limited.json.error.details.retry_after, retryAfter);
      assert.equal(limited.headers.get('x-ratelimit-limit'), '100');
      assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
      // a keyed caller from the same address is counted on its key, not as a guest
      assert.equal((await client(dedicated.base, dedicated.adminKey)('GET', '/v1/templates')).status, 200);
    } finally {
      await dedicated.stop();
    }
  });
});

describe('errors', () => {
  test('a wrong method on a known path answers in the error envelope', async () => {
    const res = await client(kiln.base, kiln.adminKey)('PUT', '/v1/campaigns', {});
    assert.ok(res.json?.error?.code, `body: ${res.text}`);
  });
});

describe('test mode', () => {
  test('a svc_test_ key sees only test-mode data and live keys never see it', async () => {
    const created = await admin('POST', '/v1/api-keys', { name: 'sandbox', scopes: ['admin'], prefix: 'svc_test_' });
    assert.equal(created.status, 201, created.text);
    assert.ok(created.json.data.key.startsWith('svc_test_'));
    const sandbox = client(kiln.base, created.json.data.key);

    const live = await admin('POST', '/v1/campaigns', { name: 'live one', domain: 'benchmark', mdl: zdt1Mdl() });
    assert.equal(live.status, 201, live.text);
    const testCampaign = await sandbox('POST', '/v1/campaigns', { name: 'sandbox one', domain: 'benchmark', mdl: zdt1Mdl() });
    assert.equal(testCampaign.status, 201, testCampaign.text);

    expectError(await admin('GET', `/v1/campaigns/${testCampaign.json.data.id}`), 404, 'NOT_FOUND', 'live key on a test campaign');
    assert.ok(!(await admin('GET', '/v1/campaigns?per_page=100')).json.data.some((c: { id: string }) => c.id === testCampaign.json.data.id));
    expectError(await sandbox('GET', `/v1/campaigns/${live.json.data.id}`), 404, 'NOT_FOUND', 'test key on a live campaign');
    const sandboxList = (await sandbox('GET', '/v1/campaigns?per_page=100')).json.data as { id: string }[];
    assert.deepEqual(
      sandboxList.map((c) => c.id),
      [testCampaign.json.data.id],
      'the test key lists its own campaign only',
    );
    expectError(await sandbox('DELETE', `/v1/campaigns/${live.json.data.id}`), 404, 'NOT_FOUND', 'test key deleting a live campaign');
    assert.equal((await admin('GET', `/v1/campaigns/${live.json.data.id}`)).status, 200);
    assert.equal((await sandbox('GET', `/v1/campaigns/${testCampaign.json.data.id}`)).status, 200);
  });
});
