import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { after, before } from 'node:test';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { createEvaluator } from '../src/evaluators/create.js';
import ipaddr from 'ipaddr.js';
import { embeddedIpv4 } from '../src/evaluators/http-host-policy.js';
import { HttpEvaluator, type HttpEvaluatorSettings } from '../src/evaluators/http.js';
import { EvaluatorError } from '../src/evaluators/types.js';

interface Received {
  request: IncomingMessage;
  body: { candidates: { id: string; parameters: Record<string, unknown> }[]; objectives: string[] };
}
type Handler = (received: Received, response: ServerResponse) => void;

let handler: Handler = (_received, response) => response.end();
let hits = 0;
const server = createServer((request, response) => {
  hits++;
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => handler({ request, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }, response));
});
let port = 0;

before(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function serve(next: Handler): void {
  hits = 0;
  handler = next;
}

function reply(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(typeof value === 'string' ? value : JSON.stringify(value));
}

function evaluator(settings: Partial<HttpEvaluatorSettings> = {}): HttpEvaluator {
  return new HttpEvaluator({
    url: `http://127.0.0.1:${port}/evaluate`,
    timeoutSeconds: 2,
    names: { objectives: ['f1', 'f2'], outcomes: [] },
    allowHosts: ['127.0.0.1'],
    backoffMs: 5,
    ...settings,
  });
}

const batch = [{ parameters: { x: 1, solvent: 'water' } }, { parameters: { x: 2, solvent: 'toluene' } }];

function rejectsWith(code: EvaluatorError['code'], message?: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof EvaluatorError, `expected an EvaluatorError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  };
}

test('posts the batch with ids, objectives and headers, and reads one result per candidate in order', async () => {
  let seen: Received | undefined;
  serve((received, response) => {
    seen = received;
    reply(response, 200, { results: [{ objectives: { f1: 1.5, f2: -2, extra: 'ignored' } }, { error: 'mesh did not converge' }] });
  });
  // ids are not part of EvaluationRequest; callers that have them pass them along
  const withIds = [
    { id: 'c-7', parameters: { x: 1 } },
    { id: 'c-9', parameters: { x: 2 } },
  ];
  const outcomes = await evaluator({ headers: { 'X-Lab': 'north' } }).evaluate(withIds);
  assert.deepEqual(outcomes, [
    { ok: true, objectives: { f1: 1.5, f2: -2 } },
    { ok: false, error: 'the service reported: mesh did not converge' },
  ]);
  assert.ok(seen);
  assert.equal(seen.request.method, 'POST');
  assert.equal(seen.request.url, '/evaluate');
  assert.equal(seen.request.headers['content-type'], 'application/json');
  assert.equal(seen.request.headers['user-agent'], 'kiln');
  assert.equal(seen.request.headers['x-lab'], 'north');
  assert.equal(seen.request.headers.host, `127.0.0.1:${port}`);
  assert.deepEqual(seen.body, {
    candidates: [
      { id: 'c-7', parameters: { x: 1 } },
      { id: 'c-9', parameters: { x: 2 } },
    ],
    objectives: ['f1', 'f2'],
  });

  await evaluator().evaluate(batch);
  assert.deepEqual(
    seen.body.candidates.map((c) => c.id),
    ['0', '1'],
    'requests without ids are sent their index',
  );
  assert.deepEqual(await evaluator().evaluate([]), []);
  assert.equal(hits, 2, 'an empty batch is not posted');
});

test('results carrying ids are matched by id, whatever their order', async () => {
  serve(({ body }, response) =>
    reply(response, 200, { results: body.candidates.map((c) => ({ id: c.id, objectives: { f1: Number(c.parameters.x), f2: 0 } })).reverse() }),
  );
  const outcomes = await evaluator().evaluate([{ parameters: { x: 10 } }, { parameters: { x: 20 } }, { parameters: { x: 30 } }]);
  assert.deepEqual(
    outcomes.map((o) => (o.ok ? o.objectives.f1 : NaN)),
    [10, 20, 30],
  );

  serve((_received, response) =>
    reply(response, 200, {
      results: [
        { id: '0', objectives: { f1: 1, f2: 1 } },
        { id: '7', objectives: { f1: 1, f2: 1 } },
      ],
    }),
  );
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('protocol', /result 1 .* has id "7", which was not sent/));
  serve((_received, response) => reply(response, 200, { results: [{ id: '0', objectives: { f1: 1, f2: 1 } }, { objectives: { f1: 1, f2: 1 } }] }));
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('protocol', /has no string id while others do/));
});

test('a result lacking an objective, or with a non-finite one, fails that candidate only', async () => {
  serve((_received, response) =>
    reply(response, 200, { results: [{ objectives: { f1: 1 } }, { objectives: { f1: 1, f2: 'NaN' } }, { objectives: { f1: 3, f2: 4 } }, 7] }),
  );
  const outcomes = await evaluator().evaluate([...batch, ...batch]);
  assert.deepEqual(outcomes[0], { ok: false, error: `the result for candidate "0" lacks objective 'f2' (expected f1, f2).` });
  assert.equal(outcomes[1].ok, false);
  assert.match(!outcomes[1].ok ? outcomes[1].error : '', /objective 'f2' of the result for candidate "1" is "NaN", not a finite number/);
  assert.deepEqual(outcomes[2], { ok: true, objectives: { f1: 3, f2: 4 } });
  assert.match(!outcomes[3].ok ? outcomes[3].error : '', /candidate "3" is 7, not \{"objectives"/);
});

test('a service printing Python\'s NaN or "error": null is read as it meant; outcomes are read beside the objectives', async () => {
  serve((_received, response) =>
    reply(
      response,
      200,
      '{"results": [{"objectives": {"f1": NaN, "f2": 1}, "outcomes": {"purity": 91}}, {"objectives": {"f1": 2, "f2": 3}, "outcomes": {"purity": 88}, "error": null}]}',
    ),
  );
  const outcomes = await evaluator({ names: { objectives: ['f1', 'f2'], outcomes: ['purity'] } }).evaluate(batch);
  assert.match(!outcomes[0].ok ? outcomes[0].error : '', /objective 'f1' of the result for candidate "0" is "NaN", not a finite number/);
  assert.deepEqual(outcomes[1], { ok: true, objectives: { f1: 2, f2: 3 }, outcomes: { purity: 88 } });
});

test('a response of the wrong shape rejects the batch with a protocol error', async () => {
  serve((_received, response) => reply(response, 200, '<html>busy</html>'));
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('protocol', /is not valid JSON .* begins "<html>busy<\/html>"/));
  serve((_received, response) => reply(response, 200, [{ f1: 1, f2: 2 }]));
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('protocol', /has no "results" array/));
  serve((_received, response) => reply(response, 200, { results: [{ objectives: { f1: 1, f2: 2 } }] }));
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('protocol', /has 1 result for 2 candidates/));
  assert.equal(hits, 1, 'protocol errors are not retried');
});

test('a 5xx is retried and a later 200 counts', async () => {
  serve((_received, response) =>
    hits === 1 ? reply(response, 500, 'database down') : reply(response, 200, { results: batch.map(() => ({ objectives: { f1: 0, f2: 0 } })) }),
  );
  const outcomes = await evaluator().evaluate(batch);
  assert.equal(hits, 2);
  assert.ok(outcomes.every((o) => o.ok));

  serve((_received, response) => reply(response, 503, 'overloaded'));
  await assert.rejects(
    evaluator({ retries: 2 }).evaluate(batch),
    rejectsWith(
      'failed',
      new RegExp(
        `POST to http://127\\.0\\.0\\.1:${port}/evaluate failed after 3 attempts; the last: the service answered 503 Service Unavailable: "overloaded"`,
      ),
    ),
  );
  assert.equal(hits, 3);
});

test('a 4xx other than 408 and 429 is not retried', async () => {
  serve((_received, response) => reply(response, 400, { error: 'unknown parameter x' }));
  await assert.rejects(
    evaluator({ retries: 3 }).evaluate(batch),
    rejectsWith('failed', /after 1 attempt; .*400 Bad Request: .*unknown parameter x.*not retried/),
  );
  assert.equal(hits, 1);

  serve((_received, response) => (hits === 1 ? reply(response, 429, 'slow down') : reply(response, 200, { results: [{ objectives: { f1: 0, f2: 0 } }] })));
  assert.equal((await evaluator().evaluate(batch.slice(0, 1)))[0].ok, true);
  assert.equal(hits, 2, '429 is retried');
});

test('a redirect is not followed', async () => {
  serve((received, response) => {
    if (received.request.url === '/evaluate') reply(response, 302, '', { location: '/elsewhere' });
    else reply(response, 200, { results: batch.map(() => ({ objectives: { f1: 0, f2: 0 } })) });
  });
  await assert.rejects(evaluator().evaluate(batch), rejectsWith('failed', /302 Found \(to "\/elsewhere"\); redirects are not followed/));
  assert.equal(hits, 1);
});

test('a service that does not answer in time fails with code timeout after the retries', async () => {
  serve(() => {});
  const started = Date.now();
  await assert.rejects(
    evaluator({ timeoutSeconds: 0.1, retries: 1 }).evaluate(batch),
    rejectsWith('timeout', /after 2 attempts; the last: no complete response within 0.1 s/),
  );
  assert.equal(hits, 2);
  assert.ok(Date.now() - started < 1000);
  server.closeAllConnections();
});

test('a response over the size cap is cut off and rejected', async () => {
  let finished: boolean | undefined;
  const closed = new Promise<void>((resolve) =>
    serve((_received, response) => {
      response.on('close', () => {
        finished = response.writableFinished;
        resolve();
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      // never ended: only the client closing the connection ends this response
      response.write(`{"results": ["${'x'.repeat(2048)}`);
    }),
  );
  await assert.rejects(evaluator({ maxResponseBytes: 1024 }).evaluate(batch), rejectsWith('protocol', /larger than 1 KiB and was not read to the end/));
  await closed;
  assert.equal(finished, false, 'the server saw the connection closed before the response ended');

  serve((_received, response) => reply(response, 200, { results: [`${'y'.repeat(4096)}`] }));
  await assert.rejects(evaluator({ maxResponseBytes: 1024 }).evaluate(batch), rejectsWith('protocol', /larger than 1 KiB/));
  assert.equal(hits, 1);
});

test('network errors are retried and reported with the attempts made', async () => {
  const closedServer = createServer();
  closedServer.listen(0, '127.0.0.1');
  await once(closedServer, 'listening');
  const freePort = (closedServer.address() as AddressInfo).port;
  closedServer.close();
  await once(closedServer, 'close');
  await assert.rejects(
    evaluator({ url: `http://127.0.0.1:${freePort}/`, retries: 2 }).evaluate(batch),
    rejectsWith('failed', /after 3 attempts; the last: connect ECONNREFUSED/),
  );
});

test('hosts not in the allowlist are refused when the evaluator is created', () => {
  const refused = (allowHosts: string[], url = 'https://lab.example.com/eval') => assert.throws(() => evaluator({ url, allowHosts }), rejectsWith('refused'));
  assert.throws(
    () => evaluator({ url: 'https://other.test/eval', allowHosts: ['lab.example.com'] }),
    rejectsWith(
      'refused',
      /posts to https:\/\/other\.test\/eval, and other\.test:443 is not among the allowed hosts.*add other\.test .*KILN_HTTP_EVALUATOR_HOSTS/,
    ),
  );
  assert.throws(() => evaluator({ allowHosts: [] }), rejectsWith('refused', /no hosts are allowed for http evaluators.*KILN_HTTP_EVALUATOR_HOSTS/));
  refused(['example.com']);
  refused(['*.example.com'], 'https://example.com/eval');
  refused(['lab.example.com:8443']);
  refused(['*.example.com:443'], 'http://lab.example.com/eval');
  assert.equal(evaluator({ url: 'https://lab.example.com/eval', allowHosts: ['*.example.com'] }).kind, 'http');
  assert.equal(evaluator({ url: 'https://a.b.example.com/eval', allowHosts: ['*.example.com:443'] }).kind, 'http');
  assert.equal(evaluator({ url: 'https://LAB.Example.com./eval', allowHosts: ['lab.example.com'] }).kind, 'http');
  assert.equal(evaluator({ url: 'http://[::1]:9000/', allowHosts: ['[::1]:9000'] }).kind, 'http');
  assert.equal(evaluator({ url: 'http://[::1]:9000/', allowHosts: ['::1'] }).kind, 'http');
  assert.throws(() => evaluator({ allowHosts: ['lab.example.com:http'] }), rejectsWith('invalid', /KILN_HTTP_EVALUATOR_HOSTS entry "lab.example.com:http"/));
});

test('internal addresses are refused under wildcards and allowed when listed exactly', async () => {
  serve((_received, response) => reply(response, 200, { results: [{ objectives: { f1: 1, f2: 2 } }] }));
  const one = batch.slice(0, 1);
  const internal = rejectsWith('refused', /an internal address .*must add .* itself to KILN_HTTP_EVALUATOR_HOSTS/);
  await assert.rejects(evaluator({ allowHosts: ['*'] }).evaluate(one), internal);
  await assert.rejects(evaluator({ url: `http://localhost:${port}/evaluate`, allowHosts: ['*'] }).evaluate(one), internal);
  await assert.rejects(evaluator({ url: 'http://169.254.169.254/latest/meta-data/', allowHosts: ['*'] }).evaluate(one), /resolves to 169\.254\.169\.254/);
  await assert.rejects(evaluator({ url: `http://[::ffff:127.0.0.1]:${port}/evaluate`, allowHosts: ['*'] }).evaluate(one), internal);
  await assert.rejects(evaluator({ url: `http://[::ffff:10.1.2.3]:${port}/`, allowHosts: ['*'] }).evaluate(one), internal);
  await assert.rejects(evaluator({ url: 'http://100.64.0.1/', allowHosts: ['*'] }).evaluate(one), internal);
  await assert.rejects(evaluator({ url: 'http://[fd00::1]/', allowHosts: ['*'] }).evaluate(one), internal);
  // ranges a hand-written list missed: NAT64, 6to4, benchmarking, multicast, reserved, broadcast
  for (const url of [
    'http://[64:ff9b::a01:203]/',
    'http://[2002:a01:203::1]/',
    'http://198.18.0.1/',
    'http://198.19.255.1/',
    'http://224.0.0.1/',
    'http://239.1.2.3/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://[ff02::1]/',
  ]) {
    await assert.rejects(evaluator({ url, allowHosts: ['*'] }).evaluate(one), internal, url);
  }
  assert.equal(hits, 0);

  assert.equal((await evaluator({ allowHosts: ['127.0.0.1'] }).evaluate(one))[0].ok, true);
  assert.equal((await evaluator({ allowHosts: [`127.0.0.1:${port}`, '*'] }).evaluate(one))[0].ok, true);
  let host: string | undefined;
  serve((received, response) => {
    host = received.request.headers.host;
    reply(response, 200, { results: [{ objectives: { f1: 1, f2: 2 } }] });
  });
  assert.equal((await evaluator({ url: `http://localhost:${port}/evaluate`, allowHosts: ['localhost'] }).evaluate(one))[0].ok, true);
  assert.equal(host, `localhost:${port}`, 'the request goes to the checked address under the original host name');
});

test('every IPv6 form that carries an IPv4 address is refused under wildcards, naming the address it carries', async () => {
  serve((_received, response) => reply(response, 200, { results: [{ objectives: { f1: 1, f2: 2 } }] }));
  const one = batch.slice(0, 1);
  // each form written around 127.0.0.1 (or 10.1.2.3), with the address the refusal must name
  const forms: [string, string, string][] = [
    ['IPv4-compatible', `http://[::127.0.0.1]:${port}/evaluate`, '127.0.0.1'],
    ['IPv4-compatible, hex', `http://[::7f00:1]:${port}/evaluate`, '127.0.0.1'],
    ['IPv4-compatible, private', 'http://[::10.1.2.3]/', '10.1.2.3'],
    ['IPv4-mapped', `http://[::ffff:127.0.0.1]:${port}/`, '127.0.0.1'],
    ['SIIT ::ffff:0:0:0/96', 'http://[::ffff:0:7f00:1]/', '127.0.0.1'],
    ['NAT64 well-known', 'http://[64:ff9b::7f00:1]/', '127.0.0.1'],
    ['NAT64 local-use /48', 'http://[64:ff9b:1:7f00:0:100::]/', '127.0.0.1'],
    ['6to4', 'http://[2002:7f00:1::1]/', '127.0.0.1'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '127.0.0.1'],
    ['ISATAP', 'http://[2001:470:1f0b::5efe:a01:203]/', '10.1.2.3'],
  ];
  for (const [form, url, carried] of forms) {
    await assert.rejects(
      evaluator({ url, allowHosts: ['*'] }).evaluate(one),
      rejectsWith('refused', new RegExp(`an IPv6 form of the IPv4 address ${carried.replace(/\./g, '\\.')}\\), an internal address`)),
      form,
    );
  }
  assert.equal(hits, 0, 'no form reached the server');
  // listed exactly, an administrator's choice stands
  await assert.rejects(evaluator({ url: `http://[::127.0.0.1]:${port}/evaluate`, allowHosts: ['[::7f00:1]'] }).evaluate(one), (error: unknown) => {
    return error instanceof EvaluatorError && error.code !== 'refused';
  });
});

test('embeddedIpv4 reads the carried address of each form, and none from ordinary addresses', () => {
  const carried = (text: string) => embeddedIpv4(ipaddr.IPv6.parse(text))?.toString() ?? null;
  assert.equal(carried('::7f00:1'), '127.0.0.1');
  assert.equal(carried('::808:808'), '8.8.8.8');
  assert.equal(carried('::ffff:a01:203'), '10.1.2.3');
  assert.equal(carried('::ffff:0:c0a8:101'), '192.168.1.1');
  assert.equal(carried('64:ff9b::c0a8:101'), '192.168.1.1');
  // RFC 6052 /48: octets 1-2 in bits 48-63, the u octet 64-71 zero, octets 3-4 in bits 72-87
  assert.equal(carried('64:ff9b:1:c000:2:2100::'), '192.0.2.33');
  assert.equal(carried('2002:c000:221::1'), '192.0.2.33');
  // RFC 4380's example: client 192.0.2.45 obfuscated as 3fff:fdd2
  assert.equal(carried('2001:0:4136:e378:8000:63bf:3fff:fdd2'), '192.0.2.45');
  assert.equal(carried('fe80::200:5efe:c000:221'), '192.0.2.33');
  for (const plain of ['::', '::1', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', 'fd00::1']) assert.equal(carried(plain), null, plain);
});

test('aborting rejects with code cancelled, also during a backoff', async () => {
  serve((_received, response) => reply(response, 503, 'overloaded'));
  const controller = new AbortController();
  const started = Date.now();
  const pending = evaluator({ retries: 2, backoffMs: 5000 }).evaluate(batch, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(pending, rejectsWith('cancelled', /cancelled; stopped posting to http:\/\/127\.0\.0\.1/));
  assert.ok(Date.now() - started < 1000, 'the backoff is not waited out');
  assert.equal(hits, 1);

  serve(() => {});
  const hanging = new AbortController();
  setTimeout(() => hanging.abort(), 50);
  await assert.rejects(evaluator().evaluate(batch, { signal: hanging.signal }), rejectsWith('cancelled'));
  server.closeAllConnections();
  await assert.rejects(evaluator().evaluate(batch, { signal: AbortSignal.abort() }), rejectsWith('cancelled'));
});

test('header values, URL credentials and the query never appear in error messages', async () => {
  const token = 'Bearer s3cret-token-value';
  let authorization: string | undefined;
  serve(({ request }, response) => {
    authorization = request.headers.authorization;
    reply(response, hits === 1 ? 401 : 200, hits === 1 ? { echo: request.headers } : { results: [{ error: `bad key ${request.headers['x-api-key']}` }] });
  });
  const settings = {
    url: `http://lab:pw-secret@127.0.0.1:${port}/evaluate?api_key=q-secret`,
    headers: { 'X-Auth': token, 'X-Api-Key': 'k3y-123456' },
  };
  const error: EvaluatorError = await evaluator(settings)
    .evaluate(batch)
    .then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e as EvaluatorError,
    );
  assert.match(error.message, /401 Unauthorized: .*\[redacted\]/);
  assert.match(error.message, new RegExp(`POST to http://127\\.0\\.0\\.1:${port}/evaluate failed`));
  const basic = Buffer.from('lab:pw-secret').toString('base64');
  for (const secret of ['s3cret-token-value', 'k3y-123456', 'pw-secret', basic, 'q-secret']) assert.ok(!error.message.includes(secret), error.message);

  assert.equal(authorization, `Basic ${basic}`, 'credentials in the URL are sent as basic authentication');

  const [outcome] = await evaluator(settings).evaluate(batch.slice(0, 1));
  assert.deepEqual(outcome, { ok: false, error: 'the service reported: bad key [redacted]' });

  assert.throws(
    () => evaluator({ headers: { 'X-Bad': 'line\nbreak-secret' } }),
    (e: unknown) => {
      rejectsWith('invalid', /header 'X-Bad' is not valid/)(e);
      assert.ok(!(e as Error).message.includes('break-secret'));
      return true;
    },
  );
  assert.throws(() => evaluator({ headers: { Host: 'internal.test' } }), rejectsWith('invalid', /'Host' is set by Kiln itself/));
});

test('createEvaluator makes http evaluators only when the service passes its allowlist', () => {
  const mdl = mdlSchema.parse({
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [{ name: 'f1', direction: 'minimize' }],
    optimizer: { budget: 5 },
    evaluator: { type: 'http', url: 'https://lab.example.com/eval', headers: { authorization: 'Bearer t' } },
  });
  assert.equal(createEvaluator(mdl, { allowCommand: false, httpAllowHosts: ['lab.example.com'] }).kind, 'http');
  assert.throws(() => createEvaluator(mdl, { allowCommand: false, httpAllowHosts: [] }), rejectsWith('refused', /KILN_HTTP_EVALUATOR_HOSTS/));
  assert.throws(() => createEvaluator(mdl, { allowCommand: false }), rejectsWith('unsupported', /run inside the Kiln service/));
});
