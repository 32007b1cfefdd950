import test from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { renderDocsPage } from '../src/api/docs-page.js';
import { extraPaths, openApiDocument } from '../src/api/openapi.js';
import { RouteTable } from '../src/api/route.js';
import { campaignRoutes } from '../src/api/routes/campaigns.js';
import { jobRoutes } from '../src/api/routes/jobs.js';

type Json = Record<string, any>;

// Handlers are never invoked, so the routes need no database.
function apiTable(): RouteTable {
  const table = new RouteTable();
  campaignRoutes(table, {} as never, {} as never);
  jobRoutes(table, {} as never);
  return table;
}

const table = apiTable();
const doc: Json = openApiDocument(table, { version: '1.2.3' });
const operation = (id: string): Json => {
  for (const item of Object.values(doc.paths as Json)) {
    for (const op of Object.values(item as Json)) if ((op as Json).operationId === id) return op as Json;
  }
  assert.fail(`no operation ${id}`);
};

const escaped = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

test('every route is documented under /v1 with its scope and path parameters', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.2.3');
  assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
  for (const route of table.routes) {
    const op = doc.paths[`/v1${route.path}`]?.[route.method] as Json;
    assert.ok(op, `${route.method} ${route.path} is documented`);
    assert.equal(op.operationId, route.operationId);
    assert.equal(op['x-required-scope'], route.scope);
    assert.deepEqual(op.security, [{ bearerAuth: [] }]);
    assert.deepEqual(op.tags, [route.tag]);
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const pathParams = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
    assert.deepEqual(
      pathParams.map((p) => p.name),
      names,
    );
    for (const p of pathParams) assert.equal(p.required, true);
    for (const status of ['400', '401', '403', '404', '422', '429', '500']) assert.ok(op.responses[status], `${route.operationId} documents ${status}`);
    assert.equal(Boolean(op.responses['409']), route.method === 'post' || route.method === 'delete');
  }
  const ids = [...Object.values(doc.paths as Json)].flatMap((item) => Object.values(item as Json).map((op) => (op as Json).operationId));
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('list query parameters carry their schema and description', () => {
  const params = operation('listCampaigns').parameters as Json[];
  const byName: Record<string, Json> = Object.fromEntries(params.map((p) => [p.name, p]));
  for (const name of ['status', 'domain', 'sort', 'page', 'per_page']) {
    const p = byName[name];
    assert.ok(p, `query parameter ${name}`);
    assert.equal(p.in, 'query');
    assert.equal(p.required, false);
    assert.ok(p.schema);
  }
  assert.match(byName.per_page.description, /100/);
  assert.ok(byName.sort.description);
  assert.deepEqual(byName.status.schema.enum, ['created', 'running', 'completed', 'converged', 'failed', 'stopped']);
  const list = operation('listCampaigns').responses['200'].content['application/json'].schema;
  assert.equal(list.properties.data.type, 'array');
  assert.equal(list.properties.meta.$ref, '#/components/schemas/PageMeta');
});

test('bodies, media types and error responses', () => {
  const create = operation('createCampaign').requestBody.content;
  assert.ok(create['multipart/form-data'].schema.properties.mdl_file);
  assert.ok(create['application/json'].schema.properties.mdl.properties.parameters, 'the JSON body documents the MDL');
  assert.equal(create['application/json'].schema.$schema, undefined);
  assert.ok(operation('getResults').responses['200'].content['text/csv']);
  assert.ok(operation('getResults').responses['200'].content['application/json'].schema.properties.data);

  const rateLimited = doc.components.responses.RateLimited;
  assert.ok(rateLimited.headers['Retry-After']);
  assert.ok(rateLimited.headers['X-Request-Id']);
  assert.equal(rateLimited.content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
  assert.ok(doc.components.schemas.ErrorEnvelope.properties.error);
  assert.equal(operation('getCampaign').responses['404'].$ref, '#/components/responses/NotFound');
  assert.ok(operation('getCampaign').responses['200'].headers['X-Request-Id']);
});

test('health, the document itself and the event socket are documented', () => {
  for (const path of Object.keys(extraPaths())) assert.ok(doc.paths[path], path);
  assert.deepEqual(doc.paths['/v1/health'].get.security, []);
  assert.deepEqual(doc.paths['/v1/openapi.json'].get.security, []);
  const ws = doc.paths['/v1/ws'].get;
  assert.ok(ws.responses['101']);
  assert.match(ws.description, /subscribe/);
  assert.match(ws.description, /job\.progress/);
});

test('the document is plain, self-contained and deterministic JSON', () => {
  const text = JSON.stringify(doc);
  assert.deepEqual(JSON.parse(text), doc);
  assert.equal(JSON.stringify(openApiDocument(apiTable(), { version: '1.2.3' })), text);
  assert.doesNotMatch(text, /"\$schema"|#\/\$defs|"\$defs"/, 'no schema dialect markers or local definitions that would break when embedded');
  for (const ref of text.match(/"\$ref":"[^"]+"/g) ?? []) {
    const [, section, name] = /#\/components\/(\w+)\/(\w+)/.exec(ref) ?? [];
    assert.ok(section && doc.components[section][name], `${ref} resolves`);
  }
  assert.deepEqual(openApiDocument(table, { version: '1', serverUrl: 'https://kiln.example' }).servers, [{ url: 'https://kiln.example' }]);
});

test('the docs page lists every operation, loads nothing external and escapes text', () => {
  const html = renderDocsPage(doc);
  assert.match(html, /^<!doctype html>\s*<html lang="en">/);
  for (const route of table.routes) {
    assert.ok(html.includes(`/v1${route.path}`), route.path);
    assert.ok(html.includes(escaped(route.summary)), route.summary);
  }
  assert.ok(html.includes('/v1/ws'));
  assert.doesNotMatch(html, /<script\b[^>]*\bsrc=|<link\b|@import|url\(|(src|href)\s*=\s*["']?(https?:)?\/\//i);

  const hostile = new RouteTable();
  hostile.add({
    method: 'get',
    path: '/things/{thing_id}',
    operationId: 'getThing',
    tag: 'Things <i>',
    summary: 'A <b>bold</b> "claim"',
    description: '<script>alert(1)</script>',
    scope: 'campaigns:read',
    query: z.object({ q: z.string().optional().describe('<img src=x onerror=alert(1)>') }),
    responses: { 200: { description: 'the <thing>', data: z.object({ id: z.string() }) } },
    handle: async () => undefined,
  });
  const page = renderDocsPage(openApiDocument(hostile, { version: '0' }));
  assert.ok(page.includes('A &#60;b&#62;bold&#60;/b&#62; &#34;claim&#34;'));
  for (const raw of ['<b>', '<i>', '<script>', '<img', '<thing>']) assert.ok(!page.includes(raw), `${raw} is escaped`);
});
