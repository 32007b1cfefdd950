import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { messageText } from './ws-text.js';
import { jsonDepth, MAX_JSON_DEPTH, unstorableMembers } from '../text-rules.js';
import { eventMessage, type KilnEvent, type KilnEventType, type ServerMessage } from '../events.js';
import type { ErrorBody } from '../errors.js';

export type { KilnEvent, KilnEventType };

export interface EventSource {
  subscribe(listener: (event: KilnEvent) => void): () => void;
}

export interface Subscriber {
  organizationId: string;
  /** whether the credential may read campaigns and jobs (campaigns:read), as subscribing reads them */
  canRead: boolean;
  /** when the credential stops working by itself (ms since the epoch); null when it does not */
  expiresAt: number | null;
}

/** Why a credential stopped working while its socket was open. */
export type CredentialEnd = 'revoked' | 'expired' | 'ip_not_allowed';

/**
 * The close codes of a socket whose credential stopped working (4000-4999 is the range RFC 6455
 * leaves to applications); a client should sign in again rather than reconnect with the same one.
 */
export const CREDENTIAL_CLOSE: Record<CredentialEnd, { code: number; reason: string }> = {
  revoked: { code: 4001, reason: 'credential revoked' },
  expired: { code: 4002, reason: 'credential expired' },
  ip_not_allowed: { code: 4003, reason: 'address no longer allowed for this credential' },
};

export interface EventHubDependencies {
  logger: Logger;
  events: EventSource;
  /** resolves the credentials of the handshake (already extracted token, or null when none); null → refused */
  authenticate(token: string | null, request: IncomingMessage): Promise<Subscriber | null>;
  /** whether the subscriber may see that job/campaign; returns its ids, or null when unknown or of another organization */
  resolve(subscriber: Subscriber, target: { job_id: string } | { campaign_id: string }): Promise<{ job_id: string | null; campaign_id: string } | null>;
  /**
   * Checks the subscriber's credential again as it stands now (revoked, expired, its key's
   * allowlist); null while it holds. Must not count as a request or as key usage.
   */
  recheck(subscriber: Subscriber): Promise<CredentialEnd | null>;
  /** how often every open socket's credential is checked again (default 2 s, so a revoked one closes within 5 s) */
  credentialCheckMs?: number;
  /** called once per accepted connection (a connection counts as one request for rate limiting); may throw a KilnError-like object with status 429 to refuse */
  onConnection?(subscriber: Subscriber, request: IncomingMessage): Promise<void>;
  /** how often sockets are pinged; one that has not answered the previous ping by then is dropped */
  pingIntervalMs?: number;
}

export interface EventHub {
  close(): Promise<void>;
  connections(): number;
  /** checks every open socket's credential now (a key was revoked or changed somewhere) */
  recheckCredentials(): void;
}

const PATH = '/v1/ws';
const MAX_PAYLOAD = 64 * 1024;
/** Past this much unsent data a client is not keeping up; dropping it beats growing without bound. */
const MAX_BUFFERED = 4 * 1024 * 1024;
const MAX_SUBSCRIPTIONS = 100;

type Envelope = ErrorBody;

interface Connection {
  subscriber: Subscriber;
  /** job id → its campaign, so that an unsubscribe can name both like the subscribe did */
  jobs: Map<string, string>;
  campaigns: Set<string>;
  alive: boolean;
  /** messages are handled one at a time so that a subscribe and the unsubscribe after it cannot swap */
  queue: Promise<void>;
  pending: number;
  /** a credential check under way: events wait for it, so none is sent on a credential found revoked */
  checking: Promise<boolean> | null;
  /** the credential stopped working; the socket is closing */
  ended: boolean;
}

type Target = { job_id: string } | { campaign_id: string };

/**
 * The API node's WebSocket endpoint: authenticates the handshake like an HTTP request, lets a client
 * subscribe to the jobs and campaigns of its own organization, and fans the event source out to
 * the sockets that asked for each event.
 */
export function attachEventHub(server: Server, deps: EventHubDependencies): EventHub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const sockets = new Map<WebSocket, Connection>();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    void accept(request, socket, head);
  };

  async function accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Until ws takes the socket over nobody listens for its errors, and a reset would crash the process.
    const ignore = (): void => {};
    socket.on('error', ignore);
    const url = parseUrl(request.url);
    if (url?.pathname !== PATH) {
      refuse(socket, 404, { code: 'NOT_FOUND', message: `No WebSocket endpoint at ${url?.pathname ?? request.url}.` });
      return;
    }
    const subscriber = await admit(request, socket, url);
    if (!subscriber) return;
    socket.off('error', ignore);
    wss.handleUpgrade(request, socket, head, (ws) => register(ws, subscriber));
  }

  /** The subscriber behind the handshake, or null once the handshake has been answered with a refusal. */
  async function admit(request: IncomingMessage, socket: Duplex, url: URL): Promise<Subscriber | null> {
    try {
      const subscriber = await deps.authenticate(bearer(request) ?? url.searchParams.get('token'), request);
      if (!subscriber) {
        refuse(socket, 401, { code: 'UNAUTHENTICATED', message: 'A valid API token is required.' });
        return null;
      }
      await deps.onConnection?.(subscriber, request);
      return subscriber;
    } catch (error) {
      refuseWithError(socket, error);
      return null;
    }
  }

  function refuseWithError(socket: Duplex, error: unknown): void {
    const { status, code, message, details } = (error ?? {}) as Record<string, unknown>;
    if (typeof status === 'number' && STATUS_CODES[status] && typeof code === 'string') {
      const envelope: Envelope = { code: code as Envelope['code'], message: typeof message === 'string' ? message : code };
      const headers: Record<string, string> = {};
      if (details && typeof details === 'object') {
        envelope.details = details as Record<string, unknown>;
        const retryAfter = (details as { retry_after?: unknown }).retry_after;
        if (typeof retryAfter === 'number') headers['Retry-After'] = String(Math.ceil(retryAfter));
      }
      refuse(socket, status, envelope, headers);
      return;
    }
    const requestId = randomUUID();
    deps.logger.error({ err: error, requestId }, 'websocket handshake failed');
    refuse(socket, 500, {
      code: 'INTERNAL',
      message: 'Kiln hit an unexpected error; it has been logged with this request id.',
      details: { request_id: requestId },
    });
  }

  function register(ws: WebSocket, subscriber: Subscriber): void {
    const connection: Connection = {
      subscriber,
      jobs: new Map(),
      campaigns: new Set(),
      alive: true,
      queue: Promise.resolve(),
      pending: 0,
      checking: null,
      ended: false,
    };
    sockets.set(ws, connection);
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('close', () => sockets.delete(ws));
    // Oversized frames and protocol violations: ws already closes the socket, nothing else to do.
    ws.on('error', (error) => deps.logger.debug({ err: error }, 'websocket error'));
    ws.on('message', (raw) => {
      // Reading stops while messages wait, so a client cannot queue unbounded work on the node.
      ws.pause();
      connection.pending++;
      connection.queue = connection.queue
        .then(() => handle(ws, connection, raw))
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, 'websocket message failed');
          send(ws, { type: 'error', error: { code: 'INTERNAL', message: 'Kiln hit an unexpected error.' } });
        })
        .finally(() => {
          if (--connection.pending === 0) ws.resume();
        });
    });
  }

  async function handle(ws: WebSocket, connection: Connection, raw: RawData): Promise<void> {
    let request: unknown;
    const text = messageText(raw);
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      const message = `Messages may nest arrays and objects at most ${MAX_JSON_DEPTH} deep (limit: JSON depth ${MAX_JSON_DEPTH}).`;
      send(ws, { type: 'error', error: { code: 'BAD_REQUEST', message, details: { limit: MAX_JSON_DEPTH } } });
      return;
    }
    try {
      request = JSON.parse(text);
    } catch {
      send(ws, { type: 'error', error: { code: 'BAD_REQUEST', message: 'Messages must be JSON.' } });
      return;
    }
    // an id no store can hold (a NUL, a lone surrogate) names no campaign: refused before any lookup
    const unstorable = unstorableMembers(request);
    if (unstorable.length > 0) {
      const message = `The message is not valid: ${unstorable[0].path}: ${unstorable[0].message}.`;
      send(ws, { type: 'error', error: { code: 'BAD_REQUEST', message, details: { errors: unstorable } } });
      return;
    }
    const type = (request as { type?: unknown } | null)?.type;
    const target = parseTarget(request);
    if ((type !== 'subscribe' && type !== 'unsubscribe') || !target) {
      const message = 'Expected {"type":"subscribe"|"unsubscribe"} with exactly one of job_id or campaign_id.';
      send(ws, { type: 'error', error: { code: 'BAD_REQUEST', message }, request });
      return;
    }
    if (type === 'unsubscribe') {
      send(ws, { type: 'unsubscribed', ...unsubscribe(connection, target) });
      return;
    }
    if (!connection.subscriber.canRead) {
      const message = 'Subscribing reads the campaign and its jobs: that needs the campaigns:read scope, which this key does not have.';
      send(ws, { type: 'error', error: { code: 'INSUFFICIENT_SCOPE', message, details: { required_scope: 'campaigns:read' } }, request });
      return;
    }
    const ids = await deps.resolve(connection.subscriber, target);
    if (!ids) {
      const message = 'job_id' in target ? `No job ${target.job_id}.` : `No campaign ${target.campaign_id}.`;
      send(ws, { type: 'error', error: { code: 'NOT_FOUND', message }, request });
      return;
    }
    const already = ids.job_id !== null ? connection.jobs.has(ids.job_id) : connection.campaigns.has(ids.campaign_id);
    if (!already && connection.jobs.size + connection.campaigns.size >= MAX_SUBSCRIPTIONS) {
      const message = `A connection may hold at most ${MAX_SUBSCRIPTIONS} subscriptions.`;
      send(ws, { type: 'error', error: { code: 'TOO_MANY_SUBSCRIPTIONS', message }, request });
      return;
    }
    if (ids.job_id !== null) connection.jobs.set(ids.job_id, ids.campaign_id);
    else connection.campaigns.add(ids.campaign_id);
    send(ws, { type: 'subscribed', job_id: ids.job_id, campaign_id: ids.campaign_id });
  }

  function send(ws: WebSocket, message: ServerMessage): void {
    sendRaw(ws, JSON.stringify(message));
  }

  function sendRaw(ws: WebSocket, text: string): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED) {
      ws.close(1013, 'slow consumer');
      return;
    }
    ws.send(text);
  }

  /** Closes a socket whose credential stopped working, with the code that says why. */
  function end(ws: WebSocket, connection: Connection, why: CredentialEnd): void {
    if (connection.ended) return;
    connection.ended = true;
    const { code, reason } = CREDENTIAL_CLOSE[why];
    ws.close(code, reason);
  }

  /** Whether the connection's credential still holds by what is known without asking (its expiry). */
  function current(ws: WebSocket, connection: Connection): boolean {
    if (connection.ended) return false;
    const expiresAt = connection.subscriber.expiresAt;
    if (expiresAt !== null && Date.now() >= expiresAt) {
      end(ws, connection, 'expired');
      return false;
    }
    return true;
  }

  /** Asks again whether the connection's credential holds; one check at a time per connection. */
  function recheck(ws: WebSocket, connection: Connection): void {
    if (connection.checking || !current(ws, connection)) return;
    connection.checking = deps
      .recheck(connection.subscriber)
      .then(
        (why) => {
          if (why) end(ws, connection, why);
          return why === null;
        },
        (error: unknown) => {
          // the check itself failed (the database is away): the credential is not known to be bad
          deps.logger.warn({ err: error }, 'could not check a websocket credential again');
          return true;
        },
      )
      .finally(() => {
        connection.checking = null;
      });
  }

  const stopListening = deps.events.subscribe((event) => {
    let text: string | undefined;
    for (const [ws, connection] of sockets) {
      if (connection.subscriber.organizationId !== event.organization_id) continue;
      const wanted = (event.job_id !== null && connection.jobs.has(event.job_id)) || connection.campaigns.has(event.campaign_id);
      if (!wanted || !current(ws, connection)) continue;
      // The organization stays on the node: clients only ever see what they subscribed by.
      const message = (text ??= JSON.stringify(eventMessage(event)));
      // While the credential is being checked, the event waits for the answer.
      if (connection.checking) void connection.checking.then((holds) => holds && !connection.ended && sendRaw(ws, message));
      else sendRaw(ws, message);
    }
  });

  const recheckAll = (): void => {
    for (const [ws, connection] of sockets) recheck(ws, connection);
  };
  const credentialSweep = setInterval(recheckAll, deps.credentialCheckMs ?? 2_000);
  credentialSweep.unref();

  const keepalive = setInterval(() => {
    for (const [ws, connection] of sockets) {
      if (!connection.alive) {
        ws.terminate();
        continue;
      }
      connection.alive = false;
      ws.ping();
    }
  }, deps.pingIntervalMs ?? 30_000);
  keepalive.unref();

  server.on('upgrade', onUpgrade);

  return {
    connections: () => sockets.size,
    recheckCredentials: recheckAll,
    async close() {
      server.off('upgrade', onUpgrade);
      stopListening();
      clearInterval(keepalive);
      clearInterval(credentialSweep);
      const closed = [...sockets.keys()].map(
        (ws) =>
          new Promise<void>((done) => {
            ws.once('close', () => done());
            ws.close(1001, 'server shutting down');
          }),
      );
      await Promise.all(closed);
      await new Promise<void>((done) => wss.close(() => done()));
    },
  };
}

function parseUrl(raw: string | undefined): URL | null {
  try {
    return new URL(raw ?? '/', 'http://localhost');
  } catch {
    return null;
  }
}

function bearer(request: IncomingMessage): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

/** Exactly one of job_id/campaign_id as a non-empty string; null counts as absent, as in the server's messages. */
function parseTarget(request: unknown): Target | null {
  const { job_id: job, campaign_id: campaign } = (request ?? {}) as { job_id?: unknown; campaign_id?: unknown };
  const jobGiven = job !== undefined && job !== null;
  const campaignGiven = campaign !== undefined && campaign !== null;
  if (jobGiven === campaignGiven) return null;
  if (jobGiven) return typeof job === 'string' && job !== '' ? { job_id: job } : null;
  return typeof campaign === 'string' && campaign !== '' ? { campaign_id: campaign } : null;
}

function unsubscribe(connection: Connection, target: Target): { job_id: string | null; campaign_id: string | null } {
  if ('job_id' in target) {
    const campaign = connection.jobs.get(target.job_id) ?? null;
    connection.jobs.delete(target.job_id);
    return { job_id: target.job_id, campaign_id: campaign };
  }
  connection.campaigns.delete(target.campaign_id);
  return { job_id: null, campaign_id: target.campaign_id };
}

/** The HTTP answer to a refused handshake, in the API's error envelope. */
function refuse(socket: Duplex, status: number, error: Envelope, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
