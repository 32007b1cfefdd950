import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp, type HealthReport } from '../src/api/app.js';
import { ConfigError, loadConfig } from '../src/config.js';

async function serve(health: () => Promise<HealthReport>): Promise<{ base: string; server: Server }> {
  // Only routes that fail before touching the database are exercised here; the service tests
  // run the real thing on Postgres.
  const { app } = createApp({
    logger: pino({ level: 'silent' }),
    health,
    db: {} as never,
    datasets: {} as never,
    templates: {} as never,
    tokens: {} as never,
    socialLogin: {} as never,
    version: 'test',
    authenticate: async () => ({ organizationId: 'org_test', plan: 'free', keyId: 'key_test', scopes: ['admin'] }),
  });
  const handle = app.callback(); // settles every request itself, errors included
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const healthy = async (): Promise<HealthReport> => ({ status: 'ok', database: 'ok', tensor_backend: 'wasm', tensor_device: null, workers: [] });

test('health answers with the data envelope and a request id', async () => {
  const { base, server } = await serve(healthy);
  try {
    const res = await fetch(`${base}/v1/health`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(await res.json(), { data: { status: 'ok', database: 'ok', tensor_backend: 'wasm', tensor_device: null, workers: [] } });
    const echoed = await fetch(`${base}/v1/health`, { headers: { 'X-Request-Id': 'trace-123' } });
    assert.equal(echoed.headers.get('x-request-id'), 'trace-123');
  } finally {
    server.close();
  }
});

test('unknown routes, unparseable and oversized bodies get the error envelope', async () => {
  const { base, server } = await serve(healthy);
  try {
    const missing = await fetch(`${base}/v1/nothing-here`);
    assert.equal(missing.status, 404);
    const body = (await missing.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'NOT_FOUND');
    assert.match(body.error.message, /GET \/v1\/nothing-here/);
    assert.ok(missing.headers.get('x-request-id'));

    const malformed = await fetch(`${base}/v1/campaigns`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": ',
    });
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { error: { code: string } }).error.code, 'BAD_REQUEST');

    const huge = await fetch(`${base}/v1/campaigns`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(3 * 1024 * 1024) }),
    });
    assert.equal(huge.status, 413);
    assert.equal(((await huge.json()) as { error: { code: string } }).error.code, 'PAYLOAD_TOO_LARGE');
  } finally {
    server.close();
  }
});

test('the multipart campaign form keeps its limits: one mdl_file part up to 2 MiB, a few small fields', async () => {
  const { base, server } = await serve(healthy);
  const post = async (body: FormData | string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}/v1/campaigns`, { method: 'POST', body, headers });
    return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string; details?: any } }).error };
  };
  const file = (bytes: number) => new Blob(['#'.repeat(bytes)], { type: 'application/yaml' });
  try {
    const huge = new FormData();
    huge.append('mdl_file', file(2 * 1024 * 1024 + 1), 'huge.yaml');
    const tooBig = await post(huge);
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(tooBig.error.message, 'The request body is larger than 2mb.');

    const two = new FormData();
    two.append('mdl_file', file(10), 'a.yaml');
    two.append('other', file(10), 'b.yaml');
    assert.equal((await post(two)).status, 413);

    const fields = new FormData();
    for (let i = 0; i < 21; i++) fields.append(`f${i}`, 'x');
    assert.equal((await post(fields)).status, 413);
    const long = new FormData();
    long.append('name', 'x'.repeat(65 * 1024));
    assert.equal((await post(long)).status, 413);

    const noFile = new FormData();
    noFile.append('name', 'no file');
    const missing = await post(noFile);
    assert.equal(missing.status, 422);
    assert.equal(missing.error.details.errors[0].path, 'mdl_file');

    const broken = await post('--nope\r\nnot a part', { 'Content-Type': 'multipart/form-data' });
    assert.equal(broken.status, 400);
    assert.equal(broken.error.code, 'BAD_REQUEST');

    const scalar = await post('42', { 'Content-Type': 'application/json' });
    assert.equal(scalar.status, 400);
    assert.match(scalar.error.message, /could not be parsed: only an object or an array/);
  } finally {
    server.close();
  }
});

test('an unexpected error is a 500 INTERNAL carrying only the request id', async () => {
  const { base, server } = await serve(async () => {
    throw new Error('secret detail: SELECT * FROM keys at /srv/kiln/src/store.ts:12');
  });
  try {
    const res = await fetch(`${base}/v1/health`);
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.doesNotMatch(text, /secret|SELECT|\/srv\//);
    const body = JSON.parse(text) as { error: { code: string; details: { request_id: string } } };
    assert.equal(body.error.code, 'INTERNAL');
    assert.equal(body.error.details.request_id, res.headers.get('x-request-id'));
  } finally {
    server.close();
  }
});

test('configuration comes from the environment with defaults, and lists every bad variable', () => {
  const config = loadConfig({});
  assert.equal(config.PORT, 8080);
  assert.equal(config.WORKER_CONCURRENCY, 1);
  assert.equal(config.DATABASE_URL, undefined);
  assert.equal(loadConfig({ PORT: '9090', API_RATE_LIMIT_PER_MINUTE: '0' }).API_RATE_LIMIT_PER_MINUTE, 0);
  assert.throws(
    () => loadConfig({ PORT: 'eighty', WORKER_CONCURRENCY: '-1', DATABASE_URL: 'mysql://x' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.problems.length === 3 &&
      /PORT/.test(error.message) &&
      /WORKER_CONCURRENCY/.test(error.message) &&
      /DATABASE_URL/.test(error.message),
  );
});
