import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { streamParts } from './multipart-parts.js';

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
  return new Promise((resolve, reject) => {
    const form: MultipartForm = { fields: {}, files: {} };
    const parts: Promise<void>[] = [];
    let fieldBytes = 0;
    const body = streamParts(
      ctx.req,
      { fileSize: limits.fileBytes, files: limits.files, fields: limits.fields, fieldSize: limits.fieldBytes },
      {
        field: (name, value, info) => {
          fieldBytes += Buffer.byteLength(value);
          if (info.valueTruncated || fieldBytes > limits.fieldBytes)
            body.fail(tooLarge(`The form's fields are larger than ${limits.fieldBytes / 1024} KiB together.`, limits.fieldBytes));
          else form.fields[name] = value;
        },
        file: (name, stream, info) => {
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('limit', () => body.fail(tooLarge(`The request body is larger than ${limits.fileBytes / 1024 / 1024}mb.`, limits.fileBytes)));
          parts.push(
            new Promise((done) =>
              stream.once('close', () => {
                // a part cut short fails the whole body (streamParts); its bytes are never kept
                if (!stream.truncated && !stream.errored) form.files[name] = { filename: info.filename, content: Buffer.concat(chunks) };
                done();
              }),
            ),
          );
        },
        filesLimit: () => body.fail(tooLarge(`The form carries more than ${limits.files} file part${limits.files === 1 ? '' : 's'}.`, limits.fileBytes)),
        fieldsLimit: () => body.fail(tooLarge(`The form carries more than ${limits.fields} fields.`, limits.fieldBytes)),
        close: () => {
          void Promise.all(parts).then(() => {
            if (!body.settled) resolve(form);
          });
        },
        failed: reject,
      },
    );
  });
}

function tooLarge(message: string, limit: number): KilnError {
  return new KilnError('PAYLOAD_TOO_LARGE', message, { limit });
}
