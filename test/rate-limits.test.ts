import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;

before(async () => {
  postgres = await TestPostgres.start();
});

after(async () => {
  await postgres?.stop();
});

/** Kiln without a worker; by default with the plans' limits (empty API_RATE_LIMIT_* = unset). */
function planLimitedKiln(env: Record<string, string> = {}): Promise<TestKiln> {
  return postgres.database().then((url) => startTestKiln(url, { WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '', API_RATE_LIMIT_PER_HOUR: '', ...env }));
}

test('2,000 concurrent requests against a limit of 100 admit exactly 100; the rest get the 429 body', async () => {
  const kiln = await planLimitedKiln({ API_RATE_LIMIT_PER_MINUTE: '100', API_RATE_LIMIT_PER_HOUR: '0' });
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: 200 });
    const url = new URL(`${kiln.base}/v1/campaigns`);
    const one = () =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = request(url, { agent, headers: { Authorization: `Bearer ${kiln.adminKey}` } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const answers = await Promise.all(Array.from({ length: 2000 }, one));
    agent.destroy();
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    assert.equal(ok.length, 100);
    assert.equal(limited.length, 1900);
    const body = JSON.parse(limited[0].body);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'details', 'message']);
    assert.equal(body.error.code, 'RATE_LIMITED');
    assert.equal(body.error.details.limit, 100);
    assert.equal(body.error.details.window, 'minute');
    assert.ok(Number.isInteger(body.error.details.retry_after) && body.error.details.retry_after >= 1 && body.error.details.retry_after <= 60);
    assert.match(body.error.message, new RegExp(`${body.error.details.retry_after} seconds`));
    assert.equal(limited[0].headers['retry-after'], String(body.error.details.retry_after));
    assert.equal(limited[0].headers['x-ratelimit-remaining'], '0');
    assert.equal(ok[0].headers['retry-after'], undefined, 'Retry-After only on 429');
    const remaining = ok.map((a) => Number(a.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    assert.deepEqual(
      remaining,
      Array.from({ length: 100 }, (_, i) => i),
      'each admitted request saw its own count',
    );
    const reset = Number(ok[0].headers['x-ratelimit-reset']);
    assert.ok(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61);
    assert.equal(ok[0].headers['x-ratelimit-limit'], '100');

    // a WebSocket connection counts as one request: refused with 429 now
    const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws?token=${kiln.adminKey}`);
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    assert.equal(status, 429);
  } finally {
    await kiln.stop();
  }
});

test('plan limits: per-endpoint minute windows, headers for the binding window, and 0 disables limiting', async () => {
  const kiln = await planLimitedKiln();
  try {
    await ensureOrganization(kiln.runtime.db, { id: 'org_free', name: 'Free lab', plan: 'free' });
    const { key } = await createApiKey(kiln.runtime.db, { organizationId: 'org_free', name: 'free', scopes: ['admin'] });
    const api = client(kiln.base, key);
    const first = await api('GET', '/v1/campaigns');
    assert.equal(first.headers.get('x-ratelimit-limit'), '60', 'the free plan: 60 per minute binds before 1,000 per hour');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '59');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof api>> | null = null;
    for (let i = 0; i < 11; i++) {
      last = await api('POST', '/v1/campaigns', { name: `c${i}`, domain: 'water', mdl: zdt1Mdl() });
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [...Array(10).fill(201), 429]);
    assert.equal(last!.json.error.details.limit, 10);
    assert.equal(last!.json.error.details.window, 'minute');
    assert.match(last!.json.error.message, /10 requests per minute on createCampaign/);
    // other routes still answer; the plan's minute window counted every request
    const list = await api('GET', '/v1/campaigns');
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('x-ratelimit-remaining'), String(60 - 13));
    // the enterprise bootstrap admin has its own counters
    const admin = await client(kiln.base, kiln.adminKey)('GET', '/v1/campaigns');
    assert.equal(admin.headers.get('x-ratelimit-limit'), '1000');
  } finally {
    await kiln.stop();
  }
  const open = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '0' });
  try {
    const res = await client(open.base, open.adminKey)('GET', '/v1/campaigns');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-ratelimit-limit'), null, 'no headers when limiting is disabled');
  } finally {
    await open.stop();
  }
});

test('fair counting: a credential pays for its own requests, valid or refused; guests pay only for what guests are served; headers everywhere', async () => {
  const kiln = await planLimitedKiln();
  try {
    await ensureOrganization(kiln.runtime.db, { id: 'org_free', name: 'Free lab', plan: 'free' });
    const { key, row } = await createApiKey(kiln.runtime.db, { organizationId: 'org_free', name: 'free', scopes: ['admin'] });
    const api = client(kiln.base, key);
    const guest = client(kiln.base, null);
    const window = (res: { headers: Headers }) => [Number(res.headers.get('x-ratelimit-limit')), Number(res.headers.get('x-ratelimit-remaining'))];

    assert.deepEqual(window(await api('GET', '/v1/campaigns')), [60, 59]);
    // a valid key on a path or method no route serves: counted against the key, not as a guest
    const unknown = await api('GET', '/v1/no-such-route');
    assert.equal(unknown.status, 404);
    assert.deepEqual(window(unknown), [60, 58]);
    const wrongMethod = await api('PUT', '/v1/campaigns');
    assert.ok(wrongMethod.status === 404 || wrongMethod.status === 405, String(wrongMethod.status));
    assert.deepEqual(window(wrongMethod), [60, 57]);

    // a token minted from the key shares the key's counter
    assert.deepEqual(window(await api('POST', '/v1/auth/tokens')), [60, 56]);
    const token = client(kiln.base, (await api('POST', '/v1/auth/tokens')).json.data.token);
    assert.deepEqual(window(await token('GET', '/v1/campaigns')), [60, 54]);
    assert.deepEqual(window(await api('GET', '/v1/campaigns')), [60, 53]);

    // refused credentials: each one its own window of 100 per hour, whatever it is
    const mistyped = client(kiln.base, 'svc_live_not_a_real_key_at_all_000000');
    const first = await mistyped('GET', '/v1/campaigns');
    assert.equal(first.status, 401);
    assert.deepEqual(window(first), [100, 99]);
    assert.equal(first.headers.get('retry-after'), null, 'Retry-After only on 429');
    assert.deepEqual(window(await mistyped('GET', '/v1/no-such-route')), [100, 98]);
    assert.deepEqual(window(await client(kiln.base, 'Bearer-less nonsense')('GET', '/v1/campaigns')), [100, 99]);
    const { key: revokedKey, row: revokedRow } = await createApiKey(kiln.runtime.db, { organizationId: 'org_free', name: 'gone', scopes: ['admin'] });
    await kiln.runtime.db('api_keys').where({ id: revokedRow.id }).update({ revoked_at: new Date() });
    const revoked = await client(kiln.base, revokedKey)('GET', '/v1/campaigns');
    assert.equal(revoked.status, 401);
    assert.deepEqual(window(revoked), [100, 99], "a revoked key: its own window, not its address's or its former counter");
    assert.ok(row.id !== revokedRow.id);

    // none of that touched the address's guest allowance
    assert.deepEqual(window(await guest('GET', '/v1/templates')), [100, 99]);
    // a guest's refusals (401: needs credentials; 404: no such route) count apart from its allowance
    const refusals: number[] = [];
    for (let i = 0; i < 120; i++) refusals.push((await guest('GET', i % 2 === 0 ? '/v1/campaigns' : '/v1/nothing-here')).status);
    assert.deepEqual(
      refusals.slice(0, 100),
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 401 : 404)),
    );
    assert.deepEqual(refusals.slice(100), Array(20).fill(429), 'past 100 refusals an hour, refusals are 429');
    const served = await guest('GET', '/v1/templates');
    assert.equal(served.status, 200, 'the guest is still served');
    assert.deepEqual(window(served), [100, 98]);

    // routes that count nothing still report the caller's window, and leave it as it was
    for (const path of ['/v1/health', '/v1/openapi.json', '/v1/auth/providers']) {
      const asGuest = [await guest('GET', path), await guest('GET', path)];
      for (const res of asGuest) assert.deepEqual(window(res), [100, 98], `${path} as a guest`);
      const asKey = [await api('GET', path), await api('GET', path)];
      for (const res of asKey) assert.deepEqual(window(res), [60, 53], `${path} with a key`);
      assert.ok(Number(asKey[0].headers.get('x-ratelimit-reset')) > Date.now() / 1000);
    }
  } finally {
    await kiln.stop();
  }
});

test('while the database is unreachable each node keeps counting in memory instead of failing or admitting everything', async () => {
  const { RateLimits } = await import('../src/api/rate-limit.js');
  const { createDb } = await import('../src/store/db.js');
  const pino = (await import('pino')).default;
  // nothing listens on port 1: every counter query fails at once
  const unreachable = createDb({ url: 'postgres://kiln:x@127.0.0.1:1/kiln' });
  try {
    const limits = new RateLimits(unreachable, { perMinute: 3, perHour: 0 }, pino({ level: 'silent' }));
    const states = [];
    for (let i = 0; i < 3; i++) states.push(await limits.consume('key_offline', 'free'));
    assert.deepEqual(
      states.map((s) => s.remaining),
      [2, 1, 0],
    );
    await assert.rejects(
      limits.consume('key_offline', 'free'),
      (error: { status?: number; code?: string }) => error.status === 429 && error.code === 'RATE_LIMITED',
    );
  } finally {
    await unreachable.destroy();
  }
});
