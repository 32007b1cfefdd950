import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import { dashboard } from '../src/api/web.js';

/** The dashboard's file serving on its own: the SPA fallback, the compressed copies, and paths that try to leave the folder. */

const SCRIPT = 'console.log("kiln dashboard");'.repeat(50);
let dir: string;
let server: Server;
let base: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-web-'));
  mkdirSync(join(dir, 'web', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'web', 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(join(dir, 'web', 'assets', 'index-abc.js'), SCRIPT);
  writeFileSync(join(dir, 'web', 'assets', 'index-abc.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(join(dir, 'web', 'assets', 'index-abc.js.gz'), gzipSync(SCRIPT));
  writeFileSync(join(dir, 'secret.txt'), 'outside the dashboard');
  const app = new Koa();
  app.use(dashboard(join(dir, 'web')));
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = 'api';
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Raw bytes and headers: fetch would decode the body and hide the encoding. */
function get(path: string, acceptEncoding?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('assets go out as the brotli or gzip copy the client accepts, else as they are, cached for good', async () => {
  const br = await get('/assets/index-abc.js', 'gzip, deflate, br');
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.body).toString(), SCRIPT);
  assert.match(String(br.headers['content-type']), /text\/javascript/);
  assert.match(String(br.headers.vary), /Accept-Encoding/);
  assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok(br.body.length < SCRIPT.length / 5);

  const gz = await get('/assets/index-abc.js', 'gzip');
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.body).toString(), SCRIPT);

  const plain = await get('/assets/index-abc.js', 'identity');
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body.toString(), SCRIPT);
  const refused = await get('/assets/index-abc.js', 'br;q=0, gzip;q=0');
  assert.equal(refused.body.toString(), SCRIPT);
});

test('any other path is the app, never a file outside it, a raw compressed copy or an error', async () => {
  for (const path of ['/', '/campaigns/anything', '/%E0%A4%A', '/..%2Fsecret.txt', '/assets/../../secret.txt', '/assets/index-abc.js.br']) {
    const res = await get(path, 'br');
    assert.equal(res.status, 200, path);
    assert.equal(res.body.toString(), '<!doctype html><div id="app"></div>', path);
    assert.equal(res.headers['cache-control'], 'no-cache', path);
  }
  for (const path of ['/v1/campaigns', '/v2/anything', '/docs', '/auth/google']) {
    const res = await get(path);
    assert.equal(res.body.toString(), 'api', `${path} belongs to the server`);
  }
});
