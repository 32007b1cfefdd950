import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { messageText } from '../src/api/ws-text.js';
import { kilnEvent } from '../src/events.js';
import { createApiKey } from '../src/service/api-keys.js';
import type { Scope } from '../src/service/principal.js';
import { publishEvent } from '../src/store/notify.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/*
 * The edges of what a credential reaches, end to end against a real server: the WebSocket's scope
 * and its credential checked again while open, test mode as a sandbox (docs/api.md's table, row by
 * row), scopes that carry over to what a request reads (a warm start reads a dataset), and who
 * owns what a token creates.
 */

let postgres: TestPostgres;
let kiln: TestKiln;
let admin: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  admin = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

async function keyFor(scopes: Scope[], extra: { expiresAt?: Date; prefix?: 'svc_test_' } = {}) {
  return (await createApiKey(kiln.runtime.db, { organizationId: 'org_default', name: scopes.join(' '), scopes, ...extra })).key;
}

/** Created through the API, so the test sees its id too. */
async function apiKey(api: ReturnType<typeof client>, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await api('POST', '/v1/api-keys', { name: 'k', scopes: ['campaigns:read'], ...body });
  assert.equal(res.status, 201, res.text);
  return res.json.data;
}

async function tokenOf(key: string): Promise<string> {
  const res = await client(kiln.base, key)('POST', '/v1/auth/tokens');
  assert.equal(res.status, 201, res.text);
  return res.json.data.token;
}

function expectError(res: { status: number; json: any; text: string }, status: number, code: string, what = '') {
  assert.equal(res.status, status, `${what}: ${res.text}`);
  assert.equal(res.json?.error?.code, code, `${what}: ${res.text}`);
}

async function campaign(api: ReturnType<typeof client>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/v1/campaigns', { name: 'c', domain: 'benchmark', mdl: zdt1Mdl(), ...extra });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id;
}

/** A dataset of ZDT1 rows (with `cell` in place of the first x1, when given; with `samples`, a sample column S-1…), uploaded without an MDL. */
async function dataset(api: ReturnType<typeof client>, options: { cell?: string; samples?: boolean } = {}): Promise<string> {
  const rows = [0.1, 0.3, 0.5, 0.7].map((x1, i) => {
    const { f1, f2 } = zdt1(x1, 0.2);
    return `${i === 0 && options.cell !== undefined ? options.cell : x1},0.2,${f1},${f2}${options.samples ? `,S-${i + 1}` : ''}`;
  });
  const body = new FormData();
  body.append('name', 'runs');
  const header = options.samples ? 'x1,x2,f1,f2,sample' : 'x1,x2,f1,f2';
  body.append('file', new Blob([[header, ...rows].join('\n') + '\n'], { type: 'text/csv' }), 'runs.csv');
  const res = await api('POST', '/v1/datasets', body);
  assert.equal(res.status, 201, res.text);
  return res.json.data.id;
}

interface Socket {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string; at: number }>;
  ask(message: unknown): Promise<any>;
}

async function socket(credential: string): Promise<Socket> {
  const ws = new WebSocket(`${kiln.base.replace(/^http/, 'ws')}/v1/ws`, { headers: { Authorization: `Bearer ${credential}` } });
  const messages: any[] = [];
  const waiting: ((message: any) => void)[] = [];
  ws.on('message', (raw) => {
    const message = JSON.parse(messageText(raw));
    messages.push(message);
    waiting.shift()?.(message);
  });
  const closed = new Promise<{ code: number; reason: string; at: number }>((done) =>
    ws.once('close', (code, reason) => done({ code, reason: reason.toString(), at: performance.now() })),
  );
  await new Promise((opened, failed) => ws.once('open', opened).once('error', failed));
  return {
    ws,
    messages,
    closed,
    ask: (message) =>
      new Promise((got, failed) => {
        waiting.push(got);
        ws.send(JSON.stringify(message));
        setTimeout(() => failed(new Error('no WebSocket answer within 5 s')), 5000).unref();
      }),
  };
}

/** An event of the campaign as a worker publishes it (pg_notify, through every node's listener). */
async function publish(campaignId: string, organizationId = 'org_default', message = 'an event'): Promise<void> {
  await publishEvent(
    kiln.runtime.db,
    kilnEvent('job.log', { id: null, organization_id: organizationId, campaign_id: campaignId }, { level: 'info', message } as never),
  );
}

const within = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WebSocket', { timeout: 20_000 }, () => {
  test('subscribing needs campaigns:read, like reading the campaign; a datasets:read key gets INSUFFICIENT_SCOPE and no events', async () => {
    const id = await campaign(admin);
    const job = (await admin('POST', `/v1/campaigns/${id}/start`, {})).json.data.job.id as string;
    const datasetsOnly = await keyFor(['datasets:read']);
    expectError(await client(kiln.base, datasetsOnly)('GET', `/v1/campaigns/${id}/results`), 403, 'INSUFFICIENT_SCOPE', 'the same key over HTTP');
    const ws = await socket(datasetsOnly);
    for (const target of [{ campaign_id: id }, { job_id: job }]) {
      const answer = await ws.ask({ type: 'subscribe', ...target });
      assert.equal(answer.type, 'error', JSON.stringify(answer));
      assert.equal(answer.error.code, 'INSUFFICIENT_SCOPE');
      assert.equal(answer.error.details.required_scope, 'campaigns:read');
    }
    await publish(id);
    await within(300);
    assert.deepEqual(
      ws.messages.map((m) => m.type),
      ['error', 'error'],
      'no event reached the socket',
    );
    ws.ws.close();

    const reader = await socket(await keyFor(['campaigns:read']));
    assert.equal((await reader.ask({ type: 'subscribe', campaign_id: id })).type, 'subscribed');
    reader.ws.close();
  });

  test('a key revoked after subscribing: its socket (and a token minted from it) closes with 4001 within 5 s and gets no later event', async () => {
    const id = await campaign(admin);
    const created = await apiKey(admin, { scopes: ['campaigns:read'] });
    const byKey = await socket(created.key);
    const byToken = await socket(await tokenOf(created.key));
    for (const ws of [byKey, byToken]) assert.equal((await ws.ask({ type: 'subscribe', campaign_id: id })).type, 'subscribed');
    await publish(id, 'org_default', 'before the revocation');
    await within(300);
    for (const ws of [byKey, byToken])
      assert.deepEqual(
        ws.messages.map((m) => m.type),
        ['subscribed', 'job.log'],
      );

    const revokedAt = performance.now();
    assert.equal((await admin('DELETE', `/v1/api-keys/${created.id}`)).status, 200);
    await publish(id, 'org_default', 'after the revocation');
    const closes = await Promise.all([byKey.closed, byToken.closed]);
    for (const close of closes) {
      assert.equal(close.code, 4001);
      assert.equal(close.reason, 'credential revoked');
      assert.ok(close.at - revokedAt < 5000, `closed ${Math.round(close.at - revokedAt)} ms after the revocation`);
    }
    console.log(`# websocket close after revocation: ${closes.map((c) => `${Math.round(c.at - revokedAt)} ms`).join(', ')} (key, token)`);
    for (const ws of [byKey, byToken]) {
      assert.ok(!ws.messages.some((m) => m.data?.message === 'after the revocation'), 'no event after the revocation');
    }
  });

  test('a key revoked directly in the database (no announcement) still closes its socket within 5 s', async () => {
    const id = await campaign(admin);
    const created = await apiKey(admin, { scopes: ['campaigns:read'] });
    const ws = await socket(created.key);
    assert.equal((await ws.ask({ type: 'subscribe', campaign_id: id })).type, 'subscribed');
    const revokedAt = performance.now();
    await kiln.runtime.db('api_keys').where({ id: created.id }).update({ revoked_at: new Date() });
    const close = await ws.closed;
    assert.equal(close.code, 4001);
    assert.ok(close.at - revokedAt < 5000, `closed ${Math.round(close.at - revokedAt)} ms after the revocation`);
    console.log(`# websocket close after a revocation found by the periodic check: ${Math.round(close.at - revokedAt)} ms`);
  });

  test('a key whose allowlist no longer includes the client closes its socket with 4003', async () => {
    const id = await campaign(admin);
    const created = await apiKey(admin, { scopes: ['campaigns:read'], allowed_ips: ['127.0.0.1'] });
    const ws = await socket(created.key);
    assert.equal((await ws.ask({ type: 'subscribe', campaign_id: id })).type, 'subscribed');
    const changedAt = performance.now();
    assert.equal((await admin('PATCH', `/v1/api-keys/${created.id}`, { allowed_ips: ['10.9.8.7'] })).status, 200);
    const close = await ws.closed;
    assert.equal(close.code, 4003);
    assert.equal(close.reason, 'address no longer allowed for this credential');
    assert.ok(close.at - changedAt < 5000);
  });

  test('a key that expires while subscribed closes its socket with 4002 within 5 s of its expiry', async () => {
    const id = await campaign(admin);
    const expiresAt = new Date(Date.now() + 1500);
    const ws = await socket(await keyFor(['campaigns:read'], { expiresAt }));
    assert.equal((await ws.ask({ type: 'subscribe', campaign_id: id })).type, 'subscribed');
    const close = await ws.closed;
    assert.equal(close.code, 4002);
    assert.equal(close.reason, 'credential expired');
    const late = Date.now() - expiresAt.getTime();
    assert.ok(late >= 0 && late < 5000, `closed ${late} ms after the expiry`);
  });
});

describe('test mode (docs/api.md, "What each mode can touch", row by row)', () => {
  test('API keys: a test key creates, lists, changes and revokes test keys only; a live admin manages both', async () => {
    const sandbox = client(kiln.base, (await apiKey(admin, { scopes: ['admin'], prefix: 'svc_test_' })).key);
    const liveKey = await apiKey(admin, { scopes: ['campaigns:read'] });
    // create: svc_test_ by default, never another prefix
    const made = await apiKey(sandbox, { scopes: ['campaigns:read'] });
    assert.ok(made.key.startsWith('svc_test_'), made.key);
    for (const prefix of ['svc_live_', 'svc_ci_']) {
      const refused = await sandbox('POST', '/v1/api-keys', { name: 'escape', scopes: ['admin'], prefix });
      expectError(refused, 422, 'VALIDATION_FAILED', `a test key creating a ${prefix} key`);
      assert.equal(refused.json.error.details.errors[0].path, 'prefix');
    }
    // list: test keys only
    const listed = (await sandbox('GET', '/v1/api-keys?per_page=100')).json.data as { id: string; key_prefix: string }[];
    assert.ok(listed.length >= 2);
    assert.ok(
      listed.every((k) => k.key_prefix.startsWith('svc_test_')),
      listed.map((k) => k.key_prefix).join(),
    );
    // change and revoke: a live key is not there for it
    expectError(await sandbox('PATCH', `/v1/api-keys/${liveKey.id}`, { allowed_ips: ['10.0.0.1'] }), 404, 'NOT_FOUND', 'test key changing a live key');
    expectError(await sandbox('DELETE', `/v1/api-keys/${liveKey.id}`), 404, 'NOT_FOUND', 'test key revoking a live key');
    assert.equal((await client(kiln.base, liveKey.key)('GET', '/v1/campaigns')).status, 200, 'the live key still works');
    assert.equal((await sandbox('PATCH', `/v1/api-keys/${made.id}`, { allowed_ips: [] })).status, 200);
    assert.equal((await sandbox('DELETE', `/v1/api-keys/${made.id}`)).status, 200);
    // a token minted from the test key is in test mode too
    const sandboxToken = client(kiln.base, await tokenOf((await apiKey(admin, { scopes: ['admin'], prefix: 'svc_test_' })).key));
    expectError(await sandboxToken('DELETE', `/v1/api-keys/${liveKey.id}`), 404, 'NOT_FOUND', 'test token revoking a live key');
    expectError(await sandboxToken('POST', '/v1/api-keys', { name: 'escape', scopes: ['admin'], prefix: 'svc_live_' }), 422, 'VALIDATION_FAILED');
    // a live admin sees and manages test keys (it makes them)
    const all = (await admin('GET', '/v1/api-keys?per_page=100')).json.data as { id: string }[];
    assert.ok(all.some((k) => k.id === liveKey.id) && all.some((k) => k.id === made.id));
    const another = await apiKey(sandbox, { scopes: ['campaigns:read'] });
    assert.equal((await admin('DELETE', `/v1/api-keys/${another.id}`)).status, 200);
  });

  test('campaigns, datasets, templates and the WebSocket: each mode sees only its own', async () => {
    const sandboxKey = (await apiKey(admin, { scopes: ['admin'], prefix: 'svc_test_' })).key;
    const sandbox = client(kiln.base, sandboxKey);
    const liveCampaign = await campaign(admin);
    const testCampaign = await campaign(sandbox);
    expectError(await admin('GET', `/v1/campaigns/${testCampaign}`), 404, 'NOT_FOUND', 'live key on a test campaign');
    expectError(await sandbox('GET', `/v1/campaigns/${liveCampaign}`), 404, 'NOT_FOUND', 'test key on a live campaign');

    const liveDataset = await dataset(admin);
    const testDataset = await dataset(sandbox);
    expectError(await admin('GET', `/v1/datasets/${testDataset}`), 404, 'NOT_FOUND', 'live key on a test dataset');
    expectError(await sandbox('GET', `/v1/datasets/${liveDataset}`), 404, 'NOT_FOUND', 'test key on a live dataset');
    assert.ok(!((await sandbox('GET', '/v1/datasets?per_page=100')).json.data as { id: string }[]).some((d) => d.id === liveDataset));
    // a warm start reaches only its own mode's datasets
    expectError(await sandbox('POST', '/v1/campaigns', { name: 'w', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: liveDataset }), 422, 'VALIDATION_FAILED');
    expectError(await admin('POST', '/v1/campaigns', { name: 'w', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: testDataset }), 422, 'VALIDATION_FAILED');
    assert.equal((await sandbox('POST', '/v1/campaigns', { name: 'w', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: testDataset })).status, 201);

    const template = (api: ReturnType<typeof client>, name: string) =>
      api('POST', '/v1/templates', { name, description: '', mdl: { ...zdt1Mdl(), domain: 'benchmark' }, visibility: 'team' });
    const liveTemplate = (await template(admin, 'Live Only')).json.data.id as string;
    const testTemplate = (await template(sandbox, 'Sandbox Only')).json.data.id as string;
    expectError(await admin('GET', `/v1/templates/${testTemplate}`), 404, 'NOT_FOUND', 'live key on a test template');
    expectError(await sandbox('GET', `/v1/templates/${liveTemplate}`), 404, 'NOT_FOUND', 'test key on a live template');
    const builtin = (await sandbox('GET', '/v1/templates')).json.data.find((t: { builtin: boolean }) => t.builtin);
    assert.equal((await sandbox('GET', `/v1/templates/${builtin.id}`)).status, 200, 'built-ins are everyone’s');

    const testSocket = await socket(sandboxKey);
    assert.equal((await testSocket.ask({ type: 'subscribe', campaign_id: liveCampaign })).error?.code, 'NOT_FOUND');
    assert.equal((await testSocket.ask({ type: 'subscribe', campaign_id: testCampaign })).type, 'subscribed');
    testSocket.ws.close();
    const liveSocket = await socket(kiln.adminKey);
    assert.equal((await liveSocket.ask({ type: 'subscribe', campaign_id: testCampaign })).error?.code, 'NOT_FOUND');
    liveSocket.ws.close();
  });
});

describe('scopes carry over to what a request reads', () => {
  test('a warm start from a dataset needs datasets:read; so do exporting and importing a warm-started campaign', async () => {
    const datasetId = await dataset(admin);
    const writer = client(kiln.base, await keyFor(['campaigns:write', 'campaigns:read']));
    const body = { name: 'warm', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: datasetId };
    const refused = await writer('POST', '/v1/campaigns', body);
    expectError(refused, 403, 'INSUFFICIENT_SCOPE', 'warm start without datasets:read');
    assert.equal(refused.json.error.details.required_scope, 'datasets:read');
    expectError(
      await writer('POST', '/v1/campaigns', { template_id: 'water/desalination-membrane', name: 'warm', dataset_id: datasetId }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    const campaigns = (await admin('GET', '/v1/campaigns?per_page=100')).json.data as { name: string }[];
    assert.ok(!campaigns.some((c) => c.name === 'warm'), 'nothing was created');

    const reader = client(kiln.base, await keyFor(['campaigns:write', 'campaigns:read', 'datasets:read']));
    const warm = await reader('POST', '/v1/campaigns', body);
    assert.equal(warm.status, 201, warm.text);
    const id = warm.json.data.id as string;

    const exportRefused = await writer('GET', `/v1/campaigns/${id}/export`);
    expectError(exportRefused, 403, 'INSUFFICIENT_SCOPE', 'export of warm-start rows without datasets:read');
    assert.ok(!/0\.3|0\.5|0\.7/.test(exportRefused.text), 'no row in the refusal');
    const exported = await reader('GET', `/v1/campaigns/${id}/export`);
    assert.equal(exported.status, 200);
    assert.equal(exported.json.evaluations.filter((e: { iteration: number }) => e.iteration === 0).length, 4);
    // a campaign without warm-start rows exports for campaigns:read alone
    assert.equal((await writer('GET', `/v1/campaigns/${await campaign(admin)}/export`)).status, 200);

    expectError(await writer('POST', '/v1/campaigns/import', exported.json), 403, 'INSUFFICIENT_SCOPE', 'import of warm-start rows without datasets:read');
    assert.equal((await reader('POST', '/v1/campaigns/import', exported.json)).status, 201);
  });

  test("a warm-started campaign's results (JSON and CSV, the front alone too) need datasets:read, like its export; without warm-start rows campaigns:read is enough", async () => {
    const datasetId = await dataset(admin, { samples: true });
    const reader = client(kiln.base, await keyFor(['campaigns:read', 'datasets:read']));
    const campaignsOnly = client(kiln.base, await keyFor(['campaigns:read']));
    const id = await campaign(admin, { dataset_id: datasetId, id_column: 'sample' });

    const full = await reader('GET', `/v1/campaigns/${id}/results`);
    assert.equal(full.status, 200, full.text);
    const warm = (full.json.data.evaluations as { iteration: number; external_id?: string }[]).filter((e) => e.iteration === 0);
    assert.deepEqual(warm.map((e) => e.external_id).sort(), ['S-1', 'S-2', 'S-3', 'S-4'], 'the rows are there for a datasets:read key');
    assert.equal((await reader('GET', `/v1/campaigns/${id}/results?format=csv`)).status, 200);

    for (const query of ['', '?format=csv', '?pareto_only=true', '?format=csv&pareto_only=true']) {
      const refused = await campaignsOnly('GET', `/v1/campaigns/${id}/results${query}`);
      expectError(refused, 403, 'INSUFFICIENT_SCOPE', `results${query} of warm-start rows without datasets:read`);
      assert.equal(refused.json.error.details.required_scope, 'datasets:read');
      assert.match(refused.json.error.message, /warm-started from a dataset, and its results list the dataset's rows/);
      assert.ok(!/S-\d|0\.3|0\.7/.test(refused.text), `no row in the refusal: ${refused.text}`);
    }
    expectError(await campaignsOnly('GET', `/v1/campaigns/${id}/export`), 403, 'INSUFFICIENT_SCOPE', 'the export: the same rule');

    const cold = await campaign(admin);
    assert.equal((await campaignsOnly('GET', `/v1/campaigns/${cold}/results`)).status, 200);
    assert.equal((await campaignsOnly('GET', `/v1/campaigns/${cold}/results?format=csv`)).status, 200);
  });

  test('a warm start that fails validation names the row and column, not what the cell holds', async () => {
    const datasetId = await dataset(admin, { cell: 'patient-4711' });
    const res = await admin('POST', '/v1/campaigns', { name: 'w', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: datasetId });
    expectError(res, 422, 'DATASET_INVALID');
    assert.deepEqual(res.json.error.details.errors, [{ row: 1, column: 'x1', message: 'is not a number' }]);
    assert.ok(!res.text.includes('patient-4711'), res.text);
  });
});

describe('ownership', () => {
  test("template slugs are per owner: another member's private template is neither revealed nor in the way", async () => {
    const alice = client(kiln.base, await keyFor(['templates:read', 'templates:write']));
    const bob = client(kiln.base, await keyFor(['templates:read', 'templates:write']));
    const create = (api: ReturnType<typeof client>, visibility: string, description = '') =>
      api('POST', '/v1/templates', { name: 'Secret Recipe', description, mdl: { ...zdt1Mdl(), domain: 'benchmark' }, visibility });
    const mine = await create(alice, 'private', 'alice');
    assert.equal(mine.status, 201, mine.text);
    const theirs = await create(bob, 'private', 'bob');
    assert.equal(theirs.status, 201, theirs.text);
    assert.equal(theirs.json.data.slug, mine.json.data.slug);
    // each owner's slug names its own template
    assert.equal((await alice('GET', `/v1/templates/${encodeURIComponent('benchmark/secret-recipe')}`)).json.data.description, 'alice');
    assert.equal((await bob('GET', `/v1/templates/${encodeURIComponent('benchmark/secret-recipe')}`)).json.data.description, 'bob');
    // taken within one owner: the message speaks of the caller's own or shared templates
    const again = await create(bob, 'private');
    expectError(again, 422, 'VALIDATION_FAILED');
    assert.match(again.json.error.message, /already used by a built-in, team or your own template/);
    // a team template of that slug is shared: the next private one collides with it
    const shared = await create(client(kiln.base, await keyFor(['templates:read', 'templates:write'])), 'team', 'team');
    assert.equal(shared.status, 201, shared.text);
    expectError(await create(client(kiln.base, await keyFor(['templates:read', 'templates:write'])), 'private'), 422, 'VALIDATION_FAILED');
    assert.equal(
      (await alice('GET', `/v1/templates/${encodeURIComponent('benchmark/secret-recipe')}`)).json.data.description,
      'alice',
      'own first, then the team’s',
    );
  });

  test("a token minted from a key acts as that key: it sees and deletes the key's private template", async () => {
    const key = await keyFor(['templates:read', 'templates:write']);
    const created = await client(kiln.base, key)('POST', '/v1/templates', {
      name: 'Keyed Private',
      description: '',
      mdl: { ...zdt1Mdl(), domain: 'benchmark' },
      visibility: 'private',
    });
    assert.equal(created.status, 201, created.text);
    const token = client(kiln.base, await tokenOf(key));
    const seen = await token('GET', `/v1/templates/${created.json.data.id}`);
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.json.data.can_delete, true);
    assert.ok(((await token('GET', '/v1/templates?per_page=100')).json.data as { id: string }[]).some((t) => t.id === created.json.data.id));
    // a template the token creates belongs to the key too
    const byToken = await token('POST', '/v1/templates', {
      name: 'Token Made',
      description: '',
      mdl: { ...zdt1Mdl(), domain: 'benchmark' },
      visibility: 'private',
    });
    assert.equal(byToken.status, 201, byToken.text);
    assert.equal((await client(kiln.base, key)('GET', `/v1/templates/${byToken.json.data.id}`)).status, 200);
    assert.equal((await token('DELETE', `/v1/templates/${created.json.data.id}`)).status, 200);
  });
});
