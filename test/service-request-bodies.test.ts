import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { rawRequest, type RawRequest } from './support/raw-http.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * No request body can end the process: truncated, malformed, cut and aborted bodies on every
 * route that reads one, against a real server on Postgres, each followed by a request that must
 * still be answered. Before the fix the reproduction ended this very process.
 */

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
const logged: { level: number; msg: string }[] = [];
/** Errors that escaped every handler: before the fix, what ended the process (the test runner keeps it alive to report them). */
const uncaught: Error[] = [];
process.on('uncaughtExceptionMonitor', (error) => uncaught.push(error));

before(async () => {
  postgres = await TestPostgres.start();
  const sink = new Writable({
    write(line: Buffer, _encoding, done) {
      logged.push(JSON.parse(line.toString('utf8')) as { level: number; msg: string });
      done();
    },
  });
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' }, { logger: pino({ level: 'warn' }, sink) });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

const BOUNDARY = 'zz';
/** The reproduction: a file part with no closing boundary. */
const TRUNCATED_FORM = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na\r\n`);
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

function part(name: string, filename: string, content: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n`;
}

function send(path: string, contentType: string, body: Buffer, extra: Partial<RawRequest> = {}) {
  return rawRequest(kiln.base, {
    method: 'POST',
    path,
    headers: { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': contentType },
    body,
    send: 'whole',
    ...extra,
  });
}

/** The server still serves: its health, and a query on Postgres; and nothing escaped meanwhile. */
async function stillServing(after: string): Promise<void> {
  const health = await api('GET', '/v1/health');
  assert.equal(health.status, 200, `health after ${after}`);
  const list = await api('GET', '/v1/campaigns');
  assert.equal(list.status, 200, `a list after ${after}`);
  assert.deepEqual(
    uncaught.map((e) => e.message),
    [],
    `no error escaped its request after ${after}`,
  );
}

const UPLOAD_ROUTES = ['/v1/campaigns', '/v1/campaigns/cmp_missing/evaluations', '/v1/datasets'];

test("the issue's reproduction, a form without its closing boundary, is a 400 on every multipart route, and the server goes on", async () => {
  for (const path of UPLOAD_ROUTES) {
    const res = await send(path, MULTIPART, TRUNCATED_FORM);
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    assert.equal(res.json.error.code, 'BAD_REQUEST');
    assert.match(res.json.error.message, /Unexpected end of form.*the form ends with --zz--/, path);
    await stillServing(`the truncated form on ${path}`);
  }
});

test('a truncated part after a complete one (a dataset part not named file, a text field) is a 400', async () => {
  const mdl = JSON.stringify({ parameters: [] });
  const cases: [string, string][] = [
    ['/v1/datasets', part('file', 'runs.csv', 'x1,f1\n0.5,1\n') + part('notes', 'notes.csv', 'cut short')],
    ['/v1/datasets', part('notes', 'notes.csv', 'cut short')],
    ['/v1/campaigns', part('mdl_file', 'm.json', mdl) + `--${BOUNDARY}\r\nContent-Disposition: form-data; name="name"\r\n\r\ncut short`],
    ['/v1/campaigns/cmp_missing/evaluations', part('file', 'w.csv', 'id,f1\n') + `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\ncut`],
  ];
  for (const [path, body] of cases) {
    const res = await send(path, MULTIPART, Buffer.from(body));
    assert.equal(res.status, 400, `${path}: ${res.text}`);
    assert.match(res.json.error.message, /multipart body cannot be read/);
    await stillServing(`a truncated extra part on ${path}`);
  }
});

test('a form over its limits is a 413 the moment the limit is crossed, and nothing escapes: the limit fires inside the parser', async () => {
  const big = Buffer.from(part('file', 'big.csv', 'x'.repeat(2 * 1024 * 1024 + 1)) + `--${BOUNDARY}--\r\n`);
  for (const path of ['/v1/campaigns', '/v1/campaigns/cmp_missing/evaluations']) {
    const res = await send(path, MULTIPART, big);
    assert.equal(res.status, 413, `${path}: ${res.text}`);
    assert.equal(res.json.error.code, 'PAYLOAD_TOO_LARGE');
    await stillServing(`an oversized form on ${path}`);
  }
});

/** Every route the OpenAPI document gives a request body, with each media type it takes. */
async function bodyRoutes(): Promise<{ method: string; path: string; media: string }[]> {
  const document = (await api('GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, { requestBody?: { content: object } }>> };
  const routes: { method: string; path: string; media: string }[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const media of Object.keys(operation.requestBody?.content ?? {})) {
        routes.push({ method: method.toUpperCase(), path: `${path.replace(/\{[a-z_]+\}/g, 'x_missing')}`, media });
      }
    }
  }
  return routes;
}

/** A complete, well-formed body of each media type, to send cut short or reset. */
const COMPLETE: Record<string, { type: string; body: Buffer }> = {
  'application/json': { type: 'application/json', body: Buffer.from(JSON.stringify({ name: 'x'.repeat(2000) })) },
  'text/csv': { type: 'text/csv', body: Buffer.from(`id,f1\n${'eval_x,1\n'.repeat(300)}`) },
  'multipart/form-data': { type: MULTIPART, body: Buffer.from(part('file', 'a.csv', 'x1,f1\n'.repeat(300)) + `--${BOUNDARY}--\r\n`) },
};

test('every route that reads a body: malformed and truncated-gzip bodies are a 400, a body cut mid-stream a 400, an aborted one nothing; the server answers after each', async () => {
  const routes = await bodyRoutes();
  const medias = new Set(routes.map((r) => r.media));
  assert.deepEqual([...medias].sort(), ['application/json', 'multipart/form-data', 'text/csv'], 'the body types the API takes');
  assert.ok(routes.length >= 14, `${routes.length} routes with a body`);
  for (const route of routes) {
    const what = `${route.method} ${route.path} (${route.media})`;
    const complete = COMPLETE[route.media];
    const broken: { label: string; body: Buffer; headers: Record<string, string>; message: RegExp }[] = [
      {
        label: 'gzip cut short',
        body: gzipSync(complete.body).subarray(0, 40),
        headers: { 'Content-Encoding': 'gzip' },
        message: route.media === 'multipart/form-data' ? /multipart body cannot be read/ : /not whole gzip data.*send the whole body/,
      },
      route.media === 'multipart/form-data'
        ? { label: 'form without its end', body: TRUNCATED_FORM, headers: {}, message: /Unexpected end of form/ }
        : route.media === 'application/json'
          ? { label: 'JSON cut short', body: Buffer.from('{"name": "x", "mdl": {"parameters": ['), headers: {}, message: /could not be parsed/ }
          : {
              label: 'deflate that is not deflate',
              body: Buffer.from('id,f1\n'),
              headers: { 'Content-Encoding': 'deflate' },
              message: /not whole deflate data/,
            },
    ];
    for (const b of broken) {
      const res = await rawRequest(kiln.base, {
        method: route.method,
        path: route.path,
        headers: { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': complete.type, ...b.headers },
        body: b.body,
        send: 'whole',
      });
      assert.equal(res.status, 400, `${what}, ${b.label}: ${res.text}`);
      assert.equal(res.json?.error?.code, 'BAD_REQUEST', `${what}, ${b.label}`);
      assert.match(res.json.error.message, b.message, `${what}, ${b.label}`);
    }
    const headers = { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': complete.type };
    const cut = await rawRequest(kiln.base, { method: route.method, path: route.path, headers, body: complete.body, send: 'cut' });
    assert.equal(cut.status, 400, `${what}, cut mid-stream: ${cut.text}`);
    assert.equal(cut.json?.error?.code, 'BAD_REQUEST', `${what}, cut mid-stream`);
    assert.match(cut.json.error.message, /ended before/, `${what}, cut mid-stream`);
    const aborted = await rawRequest(kiln.base, { method: route.method, path: route.path, headers, body: complete.body, send: 'abort' });
    assert.equal(aborted.status, null, `${what}, aborted: nobody left to answer`);
    await stillServing(what);
  }
});

test('none of it escaped, reached the guard or became a 500: every parser handled its own failure', () => {
  assert.deepEqual(uncaught, []);
  const unexpected = logged.filter((entry) => /unexpected error|unhandled error/.test(entry.msg));
  assert.deepEqual(unexpected, []);
});
