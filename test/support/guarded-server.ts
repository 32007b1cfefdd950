import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { guardConnections, noteRequest } from '../../src/api/connection-guard.js';

/**
 * A bare HTTP server behind the connection guard, run as a child process by
 * test/connection-guard.test.ts (the guard's exits and log lines belong to a process of their own):
 * `/stream-error` feeds its body into a stream nobody listens to for errors and breaks that stream
 * when the body ends, as busboy's parts did; `/ok` answers 200; a line on stdin throws outside
 * any request. Logs go to stdout as JSON lines after the first line, `listening <port>`.
 */
const logger = pino({ level: 'info' });
const server = createServer((req, res) => {
  noteRequest(String(req.headers['x-request-id'] ?? ''));
  if (req.url === '/stream-error') {
    const unlistened = new PassThrough();
    req.pipe(unlistened);
    req.on('end', () => unlistened.destroy(new Error('boom in a request stream')));
    return;
  }
  res.end('ok');
});
guardConnections(server, logger);
process.stdin.on('data', () => {
  throw new Error('thrown outside any request');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
