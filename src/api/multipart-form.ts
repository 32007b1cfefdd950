import busboy from 'busboy';
import type { Context } from 'koa';
import { KilnError } from '../errors.js';

/** A small multipart/form-data body, read into memory: text fields and file parts by name. */
export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, { filename: string | undefined; content: Buffer }>;
}

export interface FormLimits {
  /** bytes of one file part */
  fileBytes: number;
  files: number;
  fields: number;
  /** bytes of all text fields together */
  fieldBytes: number;
}

/**
 * Reads a form such as the multipart campaign creation (one small MDL file and a few fields)
 * with busboy, the parser dataset uploads stream through (./upload.ts). A body over a limit is a
 * 413 as soon as the limit is crossed, an unreadable one a 400, both in the error envelope.
 */
export function readMultipartForm(ctx: Context, limits: FormLimits): Promise<MultipartForm> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limits.fileBytes, files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes },
      });
    } catch (error) {
      reject(unparseable(error as Error));
      return;
    }
    const form: MultipartForm = { fields: {}, files: {} };
    const parts: Promise<void>[] = [];
    let fieldBytes = 0;
    let settled = false;
    const fail = (error: KilnError) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    parser.on('field', (name, value, info) => {
      fieldBytes += Buffer.byteLength(value);
      if (info.valueTruncated || fieldBytes > limits.fieldBytes)
        fail(tooLarge(`The form's fields are larger than ${limits.fieldBytes / 1024} KiB together.`, limits.fieldBytes));
      else form.fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge(`The request body is larger than ${limits.fileBytes / 1024 / 1024}mb.`, limits.fileBytes)));
      parts.push(
        new Promise((done) =>
          stream.once('close', () => {
            if (!stream.truncated) form.files[name] = { filename: info.filename, content: Buffer.concat(chunks) };
            done();
          }),
        ),
      );
    });
    parser.on('filesLimit', () => fail(tooLarge(`The form carries more than ${limits.files} file part${limits.files === 1 ? '' : 's'}.`, limits.fileBytes)));
    parser.on('fieldsLimit', () => fail(tooLarge(`The form carries more than ${limits.fields} fields.`, limits.fieldBytes)));
    parser.on('error', (error: Error) => fail(unparseable(error)));
    parser.on('close', () => {
      void Promise.all(parts).then(() => {
        if (settled) return;
        settled = true;
        resolve(form);
      });
    });
    req.on('aborted', () => fail(new KilnError('BAD_REQUEST', 'The request body was interrupted by the client.')));
    req.pipe(parser);
  });
}

function tooLarge(message: string, limit: number): KilnError {
  return new KilnError('PAYLOAD_TOO_LARGE', message, { limit });
}

function unparseable(error: Error): KilnError {
  return new KilnError('BAD_REQUEST', `The request body could not be parsed: ${error.message}.`);
}
