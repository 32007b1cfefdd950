import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ErrorBody } from '../errors.js';

/** The connection a piece of code runs for, and the request it serves now (HTTP/1.1 serves one at a time). */
interface ConnectionScope {
  socket: Socket;
  logger: Logger;
  requestId: string | null;
  /**
   * the connection has ended: resources first made while it was open (a pooled database
   * connection) keep the scope, but their errors are no longer this connection's
   */
  closed: boolean;
}

/**
 * Entered when a connection is accepted, before Node creates the connection's HTTP parser, so
 * everything that runs for the connection inherits it: the request handler and, what a per-request
 * scope would miss, the parser's own callbacks, where a request body's stream events (and the
 * errors of streams fed by them) are emitted.
 */
const connections = new AsyncLocalStorage<ConnectionScope | undefined>();
/** The guarded servers' loggers, one entry per server (two servers may share a logger). */
const guards = new Set<{ logger: Logger }>();

/** Names the request the current connection serves, for the guard's log line. */
export function noteRequest(requestId: string): void {
  const scope = connections.getStore();
  if (scope) scope.requestId = requestId;
}

/**
 * Keeps one connection's failures to that connection:
 * - an error thrown in code running for a connection (an `error` event nobody listens to on a
 *   stream of its request, a rejection nobody handles) is logged with the request id, the
 *   connection is closed, and the server goes on serving everyone else; an uncaught error outside
 *   any connection is still fatal (logged, exit 1, which stops an embedded Postgres with the process);
 * - a request Node's HTTP parser refuses (a body cut short by a half-closed connection, a malformed
 *   request line, headers over the limit) is answered in the error envelope instead of Node's bare 400.
 * Returns the function that removes the guard (at the server's stop).
 */
export function guardConnections(server: Server, logger: Logger): () => void {
  server.prependListener('connection', (socket: Socket) => {
    const scope: ConnectionScope = { socket, logger, requestId: null, closed: false };
    socket.once('close', () => (scope.closed = true));
    connections.enterWith(scope);
  });
  // runs after Node's own connection listener made the parser: what runs next on the server's handle belongs to no connection
  server.on('connection', () => connections.enterWith(undefined));
  server.on('clientError', answerClientError);
  if (guards.size === 0) process.on('uncaughtException', confine);
  const guard = { logger };
  guards.add(guard);
  return () => {
    guards.delete(guard);
    if (guards.size === 0) process.removeListener('uncaughtException', confine);
  };
}

function confine(error: Error, origin: NodeJS.UncaughtExceptionOrigin): void {
  const scope = connections.getStore();
  if (scope && !scope.closed) {
    scope.logger.error(
      { err: error, origin, requestId: scope.requestId },
      'unexpected error while serving a request: its connection is closed, the server goes on',
    );
    scope.socket.destroy();
    return;
  }
  // another handler (a test runner's) decides what becomes of an error that is not a request's
  if (process.listenerCount('uncaughtException') > 1) return;
  for (const { logger } of guards) logger.fatal({ err: error, origin }, 'uncaught error outside any request: exiting');
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}

/** What each refusal of Node's HTTP parser means for the client; all are answered 400 BAD_REQUEST. */
const CLIENT_ERRORS: Record<string, string> = {
  HPE_INVALID_EOF_STATE:
    'The connection ended before the request did (fewer body bytes than Content-Length, or a chunked body without its last chunk); send the whole request again.',
  HPE_HEADER_OVERFLOW: 'The request headers are larger than the server accepts (16 KiB); send fewer or shorter headers.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request did not arrive in time; send it again.',
};

/** Node's answer to a request its parser refuses, in the API's envelope; nothing when a response is already under way. */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Node's own rule: answer only if the socket can take it and no response has begun on it
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const message =
    CLIENT_ERRORS[error.code ?? ''] ??
    `The request is not valid HTTP/1.1 (${error.code ?? error.message}); check the request line, the headers and the body's framing.`;
  const body = JSON.stringify({ error: { code: 'BAD_REQUEST', message } satisfies ErrorBody });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
