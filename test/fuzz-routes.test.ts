import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { messageText } from '../src/api/ws-text.js';
import { MAX_JSON_DEPTH } from '../src/text-rules.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/*
 * No input is a 500: a seeded property-based fuzz over every operation of the served OpenAPI
 * document (path ids, query parameters and body members set to NUL, lone surrogates, 100,000
 * characters, deep nesting, numbers out of range and wrong types), each refusal leaving the
 * database as it was; and the review's cases of text Postgres refuses, one by one.
 */

let postgres: TestPostgres;
let kiln: TestKiln;
let admin: ReturnType<typeof client>;
let openapi: { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
const ids: Record<string, string> = {};
let exportDocument: Record<string, unknown>;

interface Schema {
  $ref?: string;
  properties?: Record<string, Schema>;
}

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

before(async () => {
  postgres = await TestPostgres.start();
  // limits off: the fuzz sends far more than the per-endpoint limits allow in a minute
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '0' });
  admin = client(kiln.base, kiln.adminKey);
  openapi = (await admin('GET', '/v1/openapi.json')).json;
  const campaign = await admin('POST', '/v1/campaigns', { name: 'fuzz target', domain: 'battery', mdl: zdt1Mdl() });
  assert.equal(campaign.status, 201, campaign.text);
  ids.campaign_id = campaign.json.data.id;
  const key = await admin('POST', '/v1/api-keys', { name: 'fuzz key', scopes: ['campaigns:read'] });
  assert.equal(key.status, 201, key.text);
  ids.key_id = key.json.data.id;
  const upload = new FormData();
  upload.append('file', new Blob(['x1,x2,f1\n0.5,0.5,1\n'], { type: 'text/csv' }), 'd.csv');
  const dataset = await admin('POST', '/v1/datasets', upload);
  assert.equal(dataset.status, 201, dataset.text);
  ids.dataset_id = dataset.json.data.id;
  ids.template_id = (await admin('GET', '/v1/templates')).json.data[0].id;
  ids.job_id = 'job_00000000000000000000';
  ids.evaluation_id = 'eval_00000000000000000000';
  const exported = await admin('GET', `/v1/campaigns/${ids.campaign_id}/export`);
  assert.equal(exported.status, 200, exported.text);
  exportDocument = exported.json.data ?? exported.json;
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

/** Tables that change without any request's doing (counters, heartbeats) or by counting refusals. */
const VOLATILE_TABLES = new Set(['rate_limits', 'workers', 'knex_migrations', 'knex_migrations_lock']);
/** Columns every answered request may touch (a key's use is counted whatever the answer). */
const VOLATILE_COLUMNS = ['last_used_at', 'request_count'];

/** One checksum over every row of every table a refusal must leave alone. */
async function databaseChecksum(): Promise<string> {
  const tables = (
    await kiln.runtime.db.raw(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)
  ).rows as { table_name: string }[];
  const parts = tables
    .map((t) => t.table_name)
    .filter((name) => !VOLATILE_TABLES.has(name))
    .map(
      (name) =>
        `SELECT '${name}' AS t, count(*) AS n, md5(coalesce(string_agg((to_jsonb(r) ${VOLATILE_COLUMNS.map((c) => `- '${c}'`).join(' ')})::text, ',' ORDER BY (to_jsonb(r))::text), '')) AS h FROM "${name}" r`,
    );
  const rows = (await kiln.runtime.db.raw(parts.join(' UNION ALL ') + ' ORDER BY 1')).rows as { t: string; n: string; h: string }[];
  return rows.map((r) => `${r.t}:${r.n}:${r.h}`).join('\n');
}

/** mulberry32: a small seeded PRNG, so every run sends the same cases. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A hostile value as raw JSON text (some have no JavaScript value that prints as them) and as URL text. */
interface Hostile {
  kind: string;
  json: string;
  url: string;
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const HOSTILE: Hostile[] = [
  { kind: 'nul', json: JSON.stringify('a\u0000b'), url: 'a%00b' },
  { kind: 'surrogate', json: '"x\\ud800y"', url: 'x%ED%A0%80y' },
  { kind: 'low-surrogate', json: '"\\udc00"', url: '%ED%B0%80' },
  { kind: 'long', json: JSON.stringify('x'.repeat(100_000)), url: 'x'.repeat(100_000) },
  { kind: 'deep', json: deep(5000), url: '%5B'.repeat(500) },
  { kind: 'huge-number', json: '1e400', url: '1e400' },
  { kind: 'negative', json: '-1e308', url: '-1e308' },
  { kind: 'beyond-int', json: '18446744073709551617', url: '18446744073709551617' },
  { kind: 'fraction', json: '0.5', url: '0.5' },
  { kind: 'bool', json: 'true', url: 'true' },
  { kind: 'null', json: 'null', url: 'null' },
  { kind: 'array', json: '["a",1,{}]', url: 'a&x=b' },
  { kind: 'object', json: '{"a":{"b":[1]}}', url: '%7B%7D' },
  { kind: 'empty', json: '""', url: '' },
  { kind: 'control', json: JSON.stringify('\u0001\u001f\u007f\ufffe'), url: '%01%1F%7F' },
];

/** A body each operation would take, so that a mutation reaches past the first check. */
function baseBody(operationId: string): unknown {
  switch (operationId) {
    case 'createCampaign':
      return { name: 'fuzz', domain: 'battery', mdl: zdt1Mdl() };
    case 'importCampaign':
      return structuredClone(exportDocument);
    case 'createTemplate':
      return { name: 'fuzz template', domain: 'battery', description: 'd', mdl: zdt1Mdl() };
    case 'createApiKey':
      return { name: 'fuzz', scopes: ['campaigns:read'] };
    case 'updateApiKey':
      return { name: 'fuzz renamed' };
    case 'postEvaluations':
      return { evaluations: [{ id: ids.evaluation_id, objectives: { f1: 1, f2: 2 }, error: 'e' }] };
    case 'correctResult':
      return { objectives: { f1: 1, f2: 2 }, reason: 'r' };
    case 'refreshToken':
      return { token: 'x' };
    case 'exchangeLoginCode':
      return { provider: 'p', code: 'c', redirect_uri: 'http://localhost/' };
    default:
      return {};
  }
}

/** Every member path of a document (bounded), and the schema's top-level members. */
function memberPaths(value: unknown, schemaMembers: string[]): (string | number)[][] {
  const paths: (string | number)[][] = schemaMembers.map((m) => [m]);
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0 && paths.length < 400) {
    const { value: v, path } = stack.pop()!;
    if (path.length > 0) paths.push(path);
    if (path.length >= 6) continue;
    if (Array.isArray(v)) v.slice(0, 3).forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    else if (v !== null && typeof v === 'object') for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: [...path, k] });
  }
  return paths;
}

/** The body as JSON text with the member at `path` replaced by the hostile raw text. */
function mutatedBody(base: unknown, path: (string | number)[], hostile: Hostile): string {
  const marker = '"__kiln_fuzz_marker__"';
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object') at[key] = typeof key === 'number' ? [] : {};
    at = at[key] as Record<string | number, unknown>;
  }
  at[path[path.length - 1]] = '__kiln_fuzz_marker__';
  return JSON.stringify(copy).replace(marker, hostile.json);
}

function schemaMembers(operation: Operation): string[] {
  let schema = operation.requestBody?.content['application/json']?.schema;
  if (schema?.$ref) schema = openapi.components?.schemas?.[schema.$ref.split('/').pop()!];
  return Object.keys(schema?.properties ?? {});
}

interface Case {
  method: string;
  url: string;
  body?: string | FormData;
  contentType?: string;
  /** what the case makes hostile */
  target: 'path' | 'query' | 'json' | 'form' | 'csv';
  what: string;
}

/** The hostile value as the text a CSV cell or a form field would carry. */
function hostileText(hostile: Hostile): string {
  if (hostile.kind === 'deep') return deep(5000);
  const value: unknown = JSON.parse(hostile.json);
  return typeof value === 'string' ? value : hostile.json;
}

/** A multipart body: every member of the form's schema filled, `member` with the hostile text (a file part when it is one). */
function hostileForm(operation: Operation, member: string, hostile: Hostile): FormData {
  const properties = operation.requestBody?.content['multipart/form-data']?.schema?.properties ?? {};
  const form = new FormData();
  for (const name of Object.keys(properties)) {
    const isFile = /file/.test(name);
    const text = name === member ? hostileText(hostile) : isFile ? 'x1,x2,f1,f2\n0.5,0.5,1,2\n' : 'fuzz';
    if (isFile) form.append(name, new Blob([text], { type: 'text/csv' }), name === member && hostile.kind === 'nul' ? 'a\u0000b.csv' : 'f.csv');
    else form.append(name, text);
  }
  return form;
}

/** Per-request limit: an answer slower than this counts as a hang. */
const REQUEST_TIMEOUT_MS = 15_000;

async function send(c: Case): Promise<number> {
  const headers: Record<string, string> = { Authorization: `Bearer ${kiln.adminKey}` };
  if (typeof c.body === 'string') headers['Content-Type'] = c.contentType ?? 'application/json';
  try {
    const res = await fetch(`${kiln.base}${c.url}`, { method: c.method, headers, body: c.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    if (res.status >= 500) assert.fail(`${c.what}: ${res.status} ${text.slice(0, 500)}`);
    return res.status;
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') assert.fail(`${c.what}: no answer within ${REQUEST_TIMEOUT_MS} ms`);
    // Node's HTTP parser itself refuses a URL over its header limit by closing with 431; fetch may see a reset
    if (c.url.length > 16_000) return 431;
    throw error;
  }
}

function fillPath(path: string, hostile?: { param: string; value: string }): string {
  return (
    '/v1' + path.replace(/\{(\w+)\}/g, (_m, name: string) => (hostile && hostile.param === name ? hostile.value : encodeURIComponent(ids[name] ?? `${name}_x`)))
  );
}

/** The fuzz's cases for one operation: each path id, query parameter and body member, with seeded hostile values. */
function casesFor(method: string, path: string, operation: Operation, random: () => number, count: number): Case[] {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  const params = operation.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = params.filter((p) => p.in === 'query').map((p) => p.name);
  const takesJson = operation.requestBody?.content['application/json'] !== undefined;
  const base = takesJson ? baseBody(operation.operationId) : undefined;
  const members = takesJson ? memberPaths(base, schemaMembers(operation)) : [];
  const upper = method.toUpperCase();
  // a destructive operation on the fixtures would leave the rest nothing to reach: its ids are always hostile
  const destructive = method === 'delete' || /stop|cancel|revoke/i.test(operation.operationId);
  const content = operation.requestBody?.content ?? {};
  const formMembers = Object.keys(content['multipart/form-data']?.schema?.properties ?? {});
  const targets = [
    ...pathParams.map((p) => `path:${p}`),
    ...queryParams.map((q) => `query:${q}`),
    ...(takesJson ? ['body', 'body:whole'] : []),
    ...formMembers.map((m) => `form:${m}`),
    ...(content['text/csv'] ? ['csv'] : []),
  ];
  const cases: Case[] = [];
  for (let i = 0; i < count && targets.length > 0; i++) {
    const target = destructive && pathParams.length > 0 ? `path:${pick(pathParams)}` : pick(targets);
    const hostile = pick(HOSTILE);
    const body = takesJson ? JSON.stringify(base) : undefined;
    if (target.startsWith('path:')) {
      const param = target.slice(5);
      cases.push({
        method: upper,
        target: 'path',
        url: fillPath(path, { param, value: hostile.url }),
        body,
        what: `${upper} ${path} ${param}=${hostile.kind}`,
      });
    } else if (target.startsWith('query:')) {
      const name = target.slice(6);
      cases.push({ method: upper, target: 'query', url: `${fillPath(path)}?${name}=${hostile.url}`, body, what: `${upper} ${path} ?${name}=${hostile.kind}` });
    } else if (target === 'body:whole') {
      cases.push({ method: upper, target: 'json', url: fillPath(path), body: hostile.json, what: `${upper} ${path} body=${hostile.kind}` });
    } else if (target.startsWith('form:')) {
      const member = target.slice(5);
      cases.push({
        method: upper,
        target: 'form',
        url: fillPath(path),
        body: hostileForm(operation, member, hostile),
        what: `${upper} ${path} form ${member}=${hostile.kind}`,
      });
    } else if (target === 'csv') {
      const csv = `id,f1,f2\n${ids.evaluation_id},${hostileText(hostile)},1\n`;
      cases.push({ method: upper, target: 'csv', url: fillPath(path), body: csv, contentType: 'text/csv', what: `${upper} ${path} csv cell=${hostile.kind}` });
    } else if (members.length > 0) {
      const member = pick(members);
      cases.push({
        method: upper,
        target: 'json',
        url: fillPath(path),
        body: mutatedBody(base, member, hostile),
        what: `${upper} ${path} ${member.join('.')}=${hostile.kind}`,
      });
    }
  }
  return cases;
}

describe('fuzz over every route', () => {
  test('no 500, no hang, and no change to the database from any refusal (seeded, bounded)', async () => {
    const started = Date.now();
    const random = prng(0x6b696c6e);
    const statuses = new Map<number, number>();
    let routes = 0;
    let cases = 0;
    let refusals = 0;
    const kinds = { path: 0, query: 0, json: 0, form: 0, csv: 0 };
    let checksum = await databaseChecksum();
    for (const [path, item] of Object.entries(openapi.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        routes++;
        const open = path.slice(3);
        for (const c of casesFor(method, open, operation, random, 30)) {
          const status = await send(c);
          cases++;
          kinds[c.target]++;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          const now = await databaseChecksum();
          if (status >= 400) {
            refusals++;
            assert.equal(now, checksum, `${c.what}: answered ${status} but changed the database`);
          }
          checksum = now;
        }
      }
    }
    const fivehundreds = [...statuses].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
    const seen = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const targets = Object.entries(kinds)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    console.log(
      `fuzz: ${routes} routes, ${cases} cases (${targets}), ${refusals} refusals, statuses ${seen}, 500s = ${fivehundreds}, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    assert.ok(routes >= 35, `expected every route of the document, got ${routes}`);
    assert.ok(cases >= 300, `expected at least 300 cases, got ${cases}`);
    assert.equal(fivehundreds, 0);
    assert.ok(kinds.form > 0 && kinds.csv > 0, `multipart and CSV bodies are fuzzed too: ${targets}`);
  });
});

function expectRefusal(res: { status: number; json: any; text: string }, what: string, path?: string) {
  assert.ok(res.status === 400 || res.status === 422, `${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (path !== undefined) {
    const named = JSON.stringify(res.json?.error);
    assert.ok(named.includes(path), `${what}: the refusal does not name ${path}: ${named}`);
  }
}

describe('text Postgres refuses, refused where it enters', () => {
  test('a NUL in every id path segment is 422 naming the id, on every route with ids (DELETE and PATCH included)', async () => {
    let checked = 0;
    for (const [path, item] of Object.entries(openapi.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!HTTP_METHODS.includes(method)) continue;
        for (const param of (operation.parameters ?? []).filter((p) => p.in === 'path')) {
          const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === param.name ? 'x%00y' : (ids[name] ?? `${name}_x`)));
          const body = operation.requestBody?.content['application/json'] ? {} : undefined;
          const res = await admin(method.toUpperCase(), url, body);
          expectRefusal(res, `${method.toUpperCase()} ${path}`, param.name);
          checked++;
        }
      }
    }
    assert.ok(checked >= 20, `only ${checked} id segments`);
  });

  test('a NUL in the campaign_id, search and domain filters is 422 naming the filter', async () => {
    for (const [url, name] of [
      ['/v1/jobs?campaign_id=a%00b', 'campaign_id'],
      ['/v1/templates?search=a%00b', 'search'],
      ['/v1/templates?domain=a%00b', 'domain'],
      ['/v1/campaigns?domain=a%00b', 'domain'],
    ]) {
      expectRefusal(await admin('GET', url), url, name);
    }
  });

  test('NUL in names, descriptions, an evaluation error and the import name; lone surrogates in mdl.description and warm_start', async () => {
    const before = await databaseChecksum();
    expectRefusal(await admin('POST', '/v1/campaigns', { name: 'a\u0000b', domain: 'battery', mdl: zdt1Mdl() }), 'campaign name', 'name');
    expectRefusal(
      await admin('POST', '/v1/templates', { name: 't', domain: 'battery', description: 'a\u0000b', mdl: zdt1Mdl() }),
      'template description',
      'description',
    );
    expectRefusal(await admin('POST', '/v1/api-keys', { name: 'a\u0000b', scopes: ['campaigns:read'] }), 'key name', 'name');
    expectRefusal(
      await admin('POST', `/v1/campaigns/${ids.campaign_id}/evaluations`, { evaluations: [{ id: ids.evaluation_id, error: 'a\u0000b' }] }),
      'evaluation error',
      'evaluations[0].error',
    );
    expectRefusal(await admin('POST', '/v1/campaigns/import', { ...exportDocument, name: 'a\u0000b' }), 'import name', 'name');
    const surrogate = (json: unknown, at: string, value: string) => JSON.stringify(json).replace(`"${at}"`, `"${value}"`);
    const mdl = { ...zdt1Mdl(), description: '__here__' };
    const campaign = await admin('POST', '/v1/campaigns', surrogate({ name: 'c', domain: 'battery', mdl }, '__here__', 'x\\ud800'));
    expectRefusal(campaign, 'mdl.description', 'mdl.description');
    const imported = await admin('POST', '/v1/campaigns/import', surrogate({ ...exportDocument, warm_start: { source: '__here__' } }, '__here__', '\\ud800'));
    expectRefusal(imported, 'warm_start', 'warm_start.source');
    assert.equal(await databaseChecksum(), before, 'a refusal changed the database');
  });

  test('an MDL file whose YAML escapes spell a NUL is 422 at its path', async () => {
    const form = new FormData();
    const yaml = JSON.stringify({ ...zdt1Mdl(), description: 'a\u0000b' });
    form.append('mdl_file', new Blob([yaml], { type: 'application/json' }), 'm.json');
    form.append('name', 'c');
    form.append('domain', 'battery');
    expectRefusal(await admin('POST', '/v1/campaigns', form), 'mdl_file', 'description');
  });

  test('dataset cells and column names with a NUL or lone surrogate are DATASET_INVALID by row and column, nothing stored', async () => {
    const before = await databaseChecksum();
    const csv = new FormData();
    csv.append('file', new Blob(['x1,note\n0.5,ok\n0.7,a\u0000b\n'], { type: 'text/csv' }), 'd.csv');
    const res = await admin('POST', '/v1/datasets', csv);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.error.code, 'DATASET_INVALID');
    assert.deepEqual(
      res.json.error.details.errors.map((e: any) => [e.row, e.column]),
      [[2, 'note']],
    );
    const json = new FormData();
    json.append('file', new Blob(['[{"x1": 0.5, "note": "\\ud800"}]'], { type: 'application/json' }), 'd.json');
    const fromJson = await admin('POST', '/v1/datasets', json);
    assert.equal(fromJson.status, 422, fromJson.text);
    assert.equal(fromJson.json.error.details.errors[0].column, 'note');
    const named = new FormData();
    named.append('name', 'a\u0000b');
    named.append('file', new Blob(['x1\n1\n'], { type: 'text/csv' }), 'd.csv');
    expectRefusal(await admin('POST', '/v1/datasets', named), 'dataset name', 'name');
    assert.equal(await databaseChecksum(), before, 'a refused dataset left rows behind');
  });

  test(`JSON nested deeper than ${MAX_JSON_DEPTH} is 400 naming the limit: an import 5,000 deep, any body, a WebSocket message`, async () => {
    const deepImport = JSON.stringify({ ...exportDocument, warm_start: { rows: '__here__' } }).replace('"__here__"', deep(5000));
    const res = await admin('POST', '/v1/campaigns/import', deepImport);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.details.limit, MAX_JSON_DEPTH);
    assert.match(res.json.error.message, new RegExp(`${MAX_JSON_DEPTH}`));
    const justOver = await admin('POST', '/v1/api-keys', `{"name":"k","scopes":${deep(MAX_JSON_DEPTH)}}`);
    assert.equal(justOver.status, 400, justOver.text);
    const atLimit = await admin('POST', '/v1/api-keys', `{"name":"k","scopes":${deep(MAX_JSON_DEPTH - 1)}}`);
    assert.equal(atLimit.status, 422, `a document at the limit is parsed and judged: ${atLimit.text}`);
    const answer = await wsAsk(`{"type":"subscribe","campaign_id":${deep(5000)}}`);
    assert.equal(answer.error.code, 'BAD_REQUEST');
    assert.equal(answer.error.details.limit, MAX_JSON_DEPTH);
  });

  test('a WebSocket subscribe with a NUL or a lone surrogate in its id is BAD_REQUEST naming the member', async () => {
    for (const text of ['{"type":"subscribe","campaign_id":"a\\u0000b"}', '{"type":"subscribe","job_id":"\\ud800"}']) {
      const answer = await wsAsk(text);
      assert.equal(answer.type, 'error', JSON.stringify(answer));
      assert.equal(answer.error.code, 'BAD_REQUEST', JSON.stringify(answer));
      assert.match(answer.error.message, /campaign_id|job_id/);
    }
  });
});

async function wsAsk(text: string): Promise<any> {
  const ws = new WebSocket(`${kiln.base.replace(/^http/, 'ws')}/v1/ws`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } });
  try {
    await new Promise((opened, failed) => ws.once('open', opened).once('error', failed));
    const answer = new Promise<any>((got, failed) => {
      ws.once('message', (raw) => got(JSON.parse(messageText(raw))));
      ws.once('close', (code) => failed(new Error(`closed ${code} without an answer`)));
      setTimeout(() => failed(new Error('no WebSocket answer within 5 s')), 5000).unref();
    });
    ws.send(text);
    return await answer;
  } finally {
    ws.close();
  }
}
