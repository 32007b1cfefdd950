import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { WebSocket, type ClientOptions } from 'ws';
import { attachEventHub, type EventHubDependencies, type EventSource, type KilnEvent, type KilnEventType } from '../src/api/event-hub.js';
import { KilnError } from '../src/errors.js';
import { messageText } from '../src/api/ws-text.js';

class MemoryEvents implements EventSource {
  private readonly listeners = new Set<(event: KilnEvent) => void>();

  subscribe(listener: (event: KilnEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: KilnEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

const tokens: Record<string, string> = { 'token-a': 'org_a', 'token-b': 'org_b' };
const campaigns: Record<string, string> = { camp_1: 'org_a', camp_2: 'org_a', camp_9: 'org_b' };
const jobs: Record<string, string> = { job_1: 'camp_1', job_2: 'camp_1', job_3: 'camp_2', job_9: 'camp_9' };

const fixtures: Pick<EventHubDependencies, 'authenticate' | 'resolve' | 'recheck'> = {
  authenticate: async (token) => (token && tokens[token] ? { organizationId: tokens[token], canRead: true, expiresAt: null } : null),
  recheck: async () => null,
  resolve: async (subscriber, target) => {
    if ('job_id' in target) {
      const campaign = jobs[target.job_id];
      return campaign && campaigns[campaign] === subscriber.organizationId ? { job_id: target.job_id, campaign_id: campaign } : null;
    }
    // Any camp_bulk_* exists for org_a, so the subscription limit can be reached.
    const owner = target.campaign_id.startsWith('camp_bulk_') ? 'org_a' : campaigns[target.campaign_id];
    return owner === subscriber.organizationId ? { job_id: null, campaign_id: target.campaign_id } : null;
  },
};

/** The hub routes without reading `data`, so a marker payload tells the events apart. */
function event(type: KilnEventType, job_id: string | null, campaign_id: string, organization_id = 'org_a'): KilnEvent {
  return {
    type,
    job_id,
    campaign_id,
    organization_id,
    data: { marker: `${type}:${job_id}:${campaign_id}` },
    timestamp: '2025-01-01T00:00:00.000Z',
  } as unknown as KilnEvent;
}

async function start(overrides: Partial<EventHubDependencies> = {}) {
  const server = createServer((_request, response) => response.writeHead(404).end());
  const events = new MemoryEvents();
  const hub = attachEventHub(server, { logger: pino({ level: 'silent' }), events, ...fixtures, ...overrides });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    events,
    hub,
    async stop() {
      await hub.close();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

interface Client {
  ws: WebSocket;
  next(): Promise<Record<string, unknown>>;
  request(message: unknown): Promise<Record<string, unknown>>;
}

async function connect(url: string, options?: ClientOptions): Promise<Client> {
  const ws = new WebSocket(url, options);
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  ws.on('message', (raw) => {
    const message = JSON.parse(messageText(raw)) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else inbox.push(message);
  });
  await new Promise((opened, failed) => ws.once('open', opened).once('error', failed));
  const next = () => (inbox.length > 0 ? Promise.resolve(inbox.shift()!) : new Promise<Record<string, unknown>>((got) => waiting.push(got)));
  return {
    ws,
    next,
    request(message) {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
      return next();
    },
  };
}

async function refused(url: string, headers?: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: { error: { code: string; message: string; details?: unknown } } }>(
    (resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => reject(new Error('the handshake was accepted')));
      ws.once('unexpected-response', (_request, response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) }));
      });
    },
  );
}

const options = { timeout: 2000 };

test('handshakes without a valid token are refused with 401 in the error envelope', options, async () => {
  const hub = await start();
  try {
    for (const attempt of [
      await refused(`${hub.base}/v1/ws`),
      await refused(`${hub.base}/v1/ws?token=nope`),
      await refused(`${hub.base}/v1/ws`, { Authorization: 'Bearer nope' }),
    ]) {
      assert.equal(attempt.status, 401);
      assert.match(attempt.headers['content-type'] ?? '', /^application\/json/);
      assert.equal(attempt.body.error.code, 'UNAUTHENTICATED');
      assert.ok(attempt.body.error.message);
    }
    assert.equal(hub.hub.connections(), 0);
  } finally {
    await hub.stop();
  }
});

test('a credential without campaigns:read is refused every subscription with INSUFFICIENT_SCOPE', options, async () => {
  const hub = await start({ authenticate: async () => ({ organizationId: 'org_a', canRead: false, expiresAt: null }) });
  try {
    const client = await connect(`${hub.base}/v1/ws?token=token-a`);
    for (const target of [{ campaign_id: 'camp_1' }, { job_id: 'job_1' }]) {
      const answer = (await client.request({ type: 'subscribe', ...target })) as { type: string; error: { code: string; details: unknown } };
      assert.equal(answer.type, 'error');
      assert.equal(answer.error.code, 'INSUFFICIENT_SCOPE');
      assert.deepEqual(answer.error.details, { required_scope: 'campaigns:read' });
    }
    hub.events.emit(event('job.progress', 'job_1', 'camp_1'));
    client.ws.send(JSON.stringify({ type: 'unsubscribe', campaign_id: 'camp_1' }));
    assert.equal((await client.next()).type, 'unsubscribed', 'no event came before the answer');
    client.ws.close();
  } finally {
    await hub.stop();
  }
});

test('a credential found revoked closes the socket with 4001, and an event waiting on that check is never sent', options, async () => {
  let revoked = false;
  let checks = 0;
  let answer: (why: 'revoked' | null) => void = () => {};
  const hub = await start({
    credentialCheckMs: 50,
    recheck: () => {
      checks++;
      // the check after the revocation hangs until the test answers it, with an event waiting
      return revoked ? new Promise((done) => (answer = done)) : Promise.resolve(null);
    },
  });
  try {
    const client = await connect(`${hub.base}/v1/ws?token=token-a`);
    assert.equal((await client.request({ type: 'subscribe', campaign_id: 'camp_1' })).type, 'subscribed');
    hub.events.emit(event('job.progress', 'job_1', 'camp_1'));
    assert.equal(((await client.next()).data as { marker: string }).marker, 'job.progress:job_1:camp_1');
    const seen = checks;
    revoked = true;
    const closed = new Promise<[number, string]>((done) => client.ws.once('close', (code, reason) => done([code, reason.toString()])));
    while (checks === seen) await new Promise((r) => setTimeout(r, 5));
    hub.events.emit(event('job.log', 'job_1', 'camp_1'));
    answer('revoked');
    assert.deepEqual(await closed, [4001, 'credential revoked']);
    assert.equal(await Promise.race([client.next().then(() => 'message'), new Promise((r) => setTimeout(() => r('none'), 50))]), 'none');
  } finally {
    await hub.stop();
  }
});

test('a credential past its expiry closes the socket with 4002 and gets no event', options, async () => {
  const expiresAt = Date.now() + 300;
  const hub = await start({ credentialCheckMs: 60_000, authenticate: async () => ({ organizationId: 'org_a', canRead: true, expiresAt }) });
  try {
    const client = await connect(`${hub.base}/v1/ws?token=token-a`);
    assert.equal((await client.request({ type: 'subscribe', campaign_id: 'camp_1' })).type, 'subscribed');
    const closed = new Promise<[number, string]>((done) => client.ws.once('close', (code, reason) => done([code, reason.toString()])));
    await new Promise((r) => setTimeout(r, expiresAt - Date.now() + 10));
    // no sweep runs in this test: the event itself finds the credential expired
    hub.events.emit(event('job.progress', 'job_1', 'camp_1'));
    assert.deepEqual(await closed, [4002, 'credential expired']);
  } finally {
    await hub.stop();
  }
});

test('the token is taken from the query or the Authorization header, and close() says goodbye with 1001', options, async () => {
  const hub = await start();
  const byQuery = await connect(`${hub.base}/v1/ws?token=token-a`);
  const byHeader = await connect(`${hub.base}/v1/ws`, { headers: { Authorization: 'Bearer token-b' } });
  assert.equal(hub.hub.connections(), 2);
  const codes = [byQuery, byHeader].map((client) => new Promise((done) => client.ws.once('close', done)));
  await hub.stop();
  assert.deepEqual(await Promise.all(codes), [1001, 1001]);
  assert.equal(hub.hub.connections(), 0);
  assert.equal(hub.events.listenerCount, 0);
});

test('other paths get 404 and a refused connection counts as the given error', options, async () => {
  const limited = await start({
    onConnection: async () => {
      throw new KilnError('RATE_LIMITED', 'Too many requests.', { retry_after: 7 });
    },
  });
  const broken = await start({
    onConnection: async () => {
      throw new Error('database down');
    },
  });
  try {
    const missing = await refused(`${limited.base}/v1/elsewhere?token=token-a`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'NOT_FOUND');

    const tooMany = await refused(`${limited.base}/v1/ws?token=token-a`);
    assert.equal(tooMany.status, 429);
    assert.equal(tooMany.headers['retry-after'], '7');
    assert.deepEqual(tooMany.body, { error: { code: 'RATE_LIMITED', message: 'Too many requests.', details: { retry_after: 7 } } });

    const failed = await refused(`${broken.base}/v1/ws?token=token-a`);
    assert.equal(failed.status, 500);
    assert.equal(failed.body.error.code, 'INTERNAL');
    assert.doesNotMatch(JSON.stringify(failed.body), /database down/);
  } finally {
    await limited.stop();
    await broken.stop();
  }
});

test('a job subscription receives that job only, without the organization', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    assert.deepEqual(await client.request({ type: 'subscribe', job_id: 'job_1' }), { type: 'subscribed', job_id: 'job_1', campaign_id: 'camp_1' });
    hub.events.emit(event('job.progress', 'job_2', 'camp_1'));
    hub.events.emit(event('campaign.status', null, 'camp_1'));
    hub.events.emit(event('job.progress', 'job_1', 'camp_1'));
    assert.deepEqual(await client.next(), {
      type: 'job.progress',
      job_id: 'job_1',
      campaign_id: 'camp_1',
      data: { marker: 'job.progress:job_1:camp_1' },
      timestamp: '2025-01-01T00:00:00.000Z',
    });
  } finally {
    await hub.stop();
  }
});

test('a campaign subscription receives its jobs’ events, once even when the job is subscribed too', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    assert.deepEqual(await client.request({ type: 'subscribe', campaign_id: 'camp_1' }), { type: 'subscribed', job_id: null, campaign_id: 'camp_1' });
    assert.equal((await client.request({ type: 'subscribe', job_id: 'job_2' })).type, 'subscribed');
    hub.events.emit(event('job.log', 'job_3', 'camp_2'));
    hub.events.emit(event('job.log', 'job_2', 'camp_1'));
    hub.events.emit(event('campaign.status', null, 'camp_1'));
    assert.deepEqual(((await client.next()).data as { marker: string }).marker, 'job.log:job_2:camp_1');
    assert.deepEqual(((await client.next()).data as { marker: string }).marker, 'campaign.status:null:camp_1');
  } finally {
    await hub.stop();
  }
});

test('another organization’s resources are neither subscribable nor delivered', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    for (const request of [
      { type: 'subscribe', job_id: 'job_9' },
      { type: 'subscribe', campaign_id: 'camp_9' },
      { type: 'subscribe', job_id: 'job_unknown' },
    ]) {
      const reply = await client.request(request);
      assert.equal(reply.type, 'error');
      assert.equal((reply.error as { code: string }).code, 'NOT_FOUND');
      assert.deepEqual(reply.request, request);
    }
    await client.request({ type: 'subscribe', campaign_id: 'camp_1' });
    hub.events.emit(event('job.status', 'job_9', 'camp_9', 'org_b'));
    // Same ids, foreign organization: the organization decides, not the ids.
    hub.events.emit(event('job.status', 'job_1', 'camp_1', 'org_b'));
    hub.events.emit(event('job.status', 'job_1', 'camp_1', 'org_a'));
    const delivered = await client.next();
    assert.equal((delivered.data as { marker: string }).marker, 'job.status:job_1:camp_1');
    assert.equal('organization_id' in delivered, false);
  } finally {
    await hub.stop();
  }
});

test('malformed messages get BAD_REQUEST and the connection stays usable', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    for (const bad of [
      '{"type": ',
      { type: 'dance' },
      { type: 'subscribe' },
      { type: 'subscribe', job_id: 'job_1', campaign_id: 'camp_1' },
      { type: 'subscribe', job_id: 7 },
    ]) {
      const reply = await client.request(bad);
      assert.equal(reply.type, 'error');
      assert.equal((reply.error as { code: string }).code, 'BAD_REQUEST');
    }
    assert.equal((await client.request({ type: 'subscribe', job_id: 'job_1' })).type, 'subscribed');
  } finally {
    await hub.stop();
  }
});

test('unsubscribe stops delivery', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    await client.request({ type: 'subscribe', job_id: 'job_1' });
    await client.request({ type: 'subscribe', job_id: 'job_2' });
    assert.deepEqual(await client.request({ type: 'unsubscribe', job_id: 'job_1' }), { type: 'unsubscribed', job_id: 'job_1', campaign_id: 'camp_1' });
    hub.events.emit(event('job.progress', 'job_1', 'camp_1'));
    hub.events.emit(event('job.progress', 'job_2', 'camp_1'));
    assert.equal((await client.next()).job_id, 'job_2');
  } finally {
    await hub.stop();
  }
});

test('a connection holds at most 100 subscriptions', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    for (let i = 0; i < 100; i++) client.ws.send(JSON.stringify({ type: 'subscribe', campaign_id: `camp_bulk_${i}` }));
    for (let i = 0; i < 100; i++) assert.equal((await client.next()).type, 'subscribed');
    const beyond = await client.request({ type: 'subscribe', campaign_id: 'camp_1' });
    assert.equal((beyond.error as { code: string }).code, 'TOO_MANY_SUBSCRIPTIONS');
    assert.equal((await client.request({ type: 'subscribe', campaign_id: 'camp_bulk_0' })).type, 'subscribed');
  } finally {
    await hub.stop();
  }
});

test('sockets that stop answering pings are dropped', options, async () => {
  const hub = await start({ pingIntervalMs: 40 });
  const silent = await connect(`${hub.base}/v1/ws?token=token-a`, { autoPong: false });
  const healthy = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    assert.equal(await new Promise((done) => silent.ws.once('close', done)), 1006);
    // The server notices its own terminate a moment after the client does.
    while (hub.hub.connections() !== 1) await new Promise((tick) => setTimeout(tick, 5));
    assert.equal(healthy.ws.readyState, WebSocket.OPEN);
  } finally {
    await hub.stop();
  }
});

test('a consumer that does not read is closed with 1013 instead of buffered forever', options, async () => {
  const hub = await start();
  const client = await connect(`${hub.base}/v1/ws?token=token-a`);
  try {
    await client.request({ type: 'subscribe', job_id: 'job_1' });
    client.ws.pause();
    const big: KilnEvent = {
      ...event('job.log', 'job_1', 'camp_1'),
      type: 'job.log',
      data: { timestamp: '2025-01-01T00:00:00.000Z', level: 'info', message: 'x'.repeat(1024 * 1024) },
    };
    for (let i = 0; i < 48; i++) hub.events.emit(big);
    const closed = new Promise((done) => client.ws.once('close', (code, reason) => done([code, String(reason)])));
    client.ws.resume();
    assert.deepEqual(await closed, [1013, 'slow consumer']);
  } finally {
    await hub.stop();
  }
});
