import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /**
   * whole: the body as it is; cut: Content-Length says the whole body, half of it is sent and the
   * connection half-closed (the answer can still be read); abort: half of it, then a reset
   */
  send: 'whole' | 'cut' | 'abort';
}

export interface RawAnswer {
  /** null: the server answered nothing before the connection ended */
  status: number | null;
  json: any;
  text: string;
}

/**
 * One HTTP/1.1 request on a socket of its own, written byte for byte, for what fetch cannot send:
 * a body shorter than its Content-Length, a connection reset mid-body.
 */
export function rawRequest(base: string, request: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  const head =
    `${request.method} ${request.path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\nContent-Length: ${request.body.length}\r\n` +
    Object.entries(request.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => {
      if (request.send === 'whole') {
        socket.write(Buffer.concat([Buffer.from(head), request.body]));
        return;
      }
      socket.write(Buffer.concat([Buffer.from(head), request.body.subarray(0, Math.floor(request.body.length / 2))]));
      // let the server start reading the body before it stops
      setTimeout(() => (request.send === 'cut' ? socket.end() : socket.resetAndDestroy()), 100);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (request.send === 'whole') reject(error);
    });
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

function parseAnswer(raw: string): RawAnswer {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(raw);
  if (!match) return { status: null, json: null, text: raw };
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: Number(match[1]), json, text };
}
