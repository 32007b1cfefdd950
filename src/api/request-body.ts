import type { IncomingMessage } from 'node:http';
import { KilnError } from '../errors.js';

/**
 * Calls `listener` once if the request's body stops before it ended: the client closed or reset
 * the connection, or sent less than its Content-Length promised. Node emits an IncomingMessage's
 * `error` only to listeners it has, so the error listener here is what keeps a reset connection
 * from going unnoticed; `close` before the body was complete covers the rest.
 */
export function onBodyInterrupted(req: IncomingMessage, listener: () => void): void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    listener();
  };
  req.once('error', once);
  req.once('close', () => {
    if (!req.complete) once();
  });
}

/** The answer to a body that stopped before its end (the client may still read it after a half-close). */
export function bodyInterrupted(): KilnError {
  return new KilnError(
    'BAD_REQUEST',
    'The request body ended before it was complete (the connection was closed or reset, or fewer bytes arrived than Content-Length said); send the whole body again.',
  );
}
