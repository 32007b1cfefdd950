import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { detectFormat, type DatasetFormat } from '../datasets/formats.js';
import { KilnError } from '../errors.js';
import { streamParts } from './multipart-parts.js';

export interface ReceivedFile {
  path: string;
  filename: string;
  format: DatasetFormat;
  size: number;
  fields: Record<string, string>;
  /** removes the temporary file; call it whatever happens next */
  discard(): Promise<void>;
}

const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * Streams a multipart upload's `file` part to a temporary file, counting bytes as they arrive:
 * the upload is refused (413) the moment it crosses `maxBytes`, an unsupported format (415) as
 * soon as the part's headers arrive, and on any failure the temporary file is gone.
 */
export async function receiveUpload(req: IncomingMessage, maxBytes: number): Promise<ReceivedFile> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    throw new KilnError('BAD_REQUEST', 'Upload a dataset as multipart/form-data with a file part named "file".');
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes + MAX_FIELD_BYTES) throw tooLarge(maxBytes);
  const dir = await mkdtemp(join(tmpdir(), 'kiln-upload-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  try {
    return { ...(await receive(req, dir, maxBytes)), discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

function receive(req: IncomingMessage, dir: string, maxBytes: number): Promise<Omit<ReceivedFile, 'discard'>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Promise<{ filename: string; format: DatasetFormat; size: number }> | null = null;
    const body = streamParts(
      req,
      { fileSize: maxBytes, files: 1, fields: 20, fieldSize: MAX_FIELD_BYTES },
      {
        field: (name, value) => {
          fields[name] = value;
        },
        file: (name, stream, info) => {
          if (name !== 'file' || file) {
            stream.resume();
            return;
          }
          const format = detectFormat(info.mimeType, info.filename);
          if (!format) {
            stream.resume();
            body.fail(
              new KilnError(
                'UNSUPPORTED_MEDIA_TYPE',
                `The file ${info.filename ?? ''} (${info.mimeType}) is not CSV, JSON or Parquet; send it with Content-Type text/csv, application/json or application/parquet, or a .csv, .json or .parquet name.`,
              ),
            );
            return;
          }
          let size = 0;
          stream.on('data', (chunk: Buffer) => (size += chunk.length));
          stream.on('limit', () => body.fail(tooLarge(maxBytes)));
          file = pipeline(stream, createWriteStream(join(dir, 'upload'))).then(() => ({ filename: info.filename ?? 'upload', format, size }));
          file.catch(() => undefined);
        },
        close: () => {
          if (!file) {
            body.fail(
              new KilnError('VALIDATION_FAILED', 'The request is not valid: file: a dataset upload needs a file part named "file".', {
                errors: [{ path: 'file', message: 'is required' }],
              }),
            );
            return;
          }
          file.then(
            (received) => {
              if (!body.settled) resolve({ ...received, path: join(dir, 'upload'), fields });
            },
            (error: Error) => body.fail(new KilnError('BAD_REQUEST', `The upload was interrupted: ${error.message}.`)),
          );
        },
        failed: reject,
      },
    );
  });
}

function tooLarge(limit: number): KilnError {
  return new KilnError('PAYLOAD_TOO_LARGE', `The file is larger than your plan allows (${Math.round(limit / 1024 / 1024)} MB).`, { limit });
}
