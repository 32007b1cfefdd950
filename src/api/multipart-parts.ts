import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { KilnError } from '../errors.js';
import { bodyInterrupted, onBodyInterrupted } from './request-body.js';

/** What a multipart reader does with the parts; every failure of the body reaches `failed` once. */
export interface PartHandlers {
  field?(name: string, value: string, info: busboy.FieldInfo): void;
  /** a file part, read or resumed by the handler; its stream's errors are already handled here */
  file(name: string, stream: Readable & { truncated?: boolean }, info: busboy.FileInfo): void;
  filesLimit?(): void;
  fieldsLimit?(): void;
  /** the form's closing boundary was read (never after a failure) */
  close(): void;
  /** the body failed: the first error, once */
  failed(error: KilnError): void;
}

export interface MultipartBody {
  /** fails the body (only the first failure counts), stops parsing and drains the rest of the request */
  fail(error: KilnError): void;
  readonly settled: boolean;
}

/**
 * Runs busboy over a request, for both multipart readers (the dataset upload streaming to a file,
 * ./upload.ts, and the small in-memory form, ./multipart-form.ts). Busboy reports a body cut short
 * or malformed as an `error` event on the parser AND on the file part being read, ignored parts
 * included; an `error` event without a listener ends the process, so every stream it hands out
 * gets one here before any handler sees it. A connection closed mid-body fails the body too.
 */
export function streamParts(req: IncomingMessage, limits: busboy.Limits, handlers: PartHandlers): MultipartBody {
  let parser: busboy.Busboy | null = null;
  const body = {
    settled: false,
    fail(error: KilnError) {
      if (body.settled) return;
      body.settled = true;
      if (parser) {
        const stopped = parser;
        req.unpipe(stopped);
        // destroying the parser ends the part being read, so a file being written is closed too; not
        // at once: a failure can come from inside busboy's write (a part's 'limit'), which goes on
        // with the part after its listeners return
        process.nextTick(() => stopped.destroy());
      }
      req.resume();
      handlers.failed(error);
    },
  };
  try {
    parser = busboy({ headers: req.headers, limits });
  } catch (error) {
    body.fail(new KilnError('BAD_REQUEST', `The multipart body cannot be read: ${(error as Error).message}.`));
    return body;
  }
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(req.headers['content-type'] ?? '');
  const unreadable = (error: Error) => body.fail(malformed(error, boundary?.[1] ?? boundary?.[2] ?? 'BOUNDARY'));
  parser.on('error', unreadable);
  parser.on('field', (name, value, info) => {
    if (!body.settled) handlers.field?.(name, value, info);
  });
  parser.on('file', (name, stream, info) => {
    stream.on('error', unreadable);
    if (body.settled) stream.resume();
    else handlers.file(name, stream, info);
  });
  parser.on('filesLimit', () => handlers.filesLimit?.());
  parser.on('fieldsLimit', () => handlers.fieldsLimit?.());
  parser.on('close', () => {
    if (!body.settled) handlers.close();
  });
  onBodyInterrupted(req, () => body.fail(bodyInterrupted()));
  req.pipe(parser);
  return body;
}

/** A form without its closing boundary, a part header cut short, or another break in the multipart syntax. */
function malformed(error: Error, boundary: string): KilnError {
  return new KilnError(
    'BAD_REQUEST',
    `The multipart body cannot be read: ${error.message}. Send the whole form: each part begins with --${boundary} and the form ends with --${boundary}-- (the boundary the Content-Type header names).`,
  );
}
