import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { parseJsonWithNonFinite } from '../json-text.js';

/**
 * A JSON body that may carry bare NaN, Infinity and -Infinity tokens (Python's json.dump
 * default), read as non-finite numbers, for routes where a measured value can be one: the route
 * then fails that measurement instead of refusing the whole request. Same limit and encodings
 * as the other JSON bodies.
 */
export async function readJsonAllowingNonFinite(ctx: Context, limitBytes: number): Promise<unknown> {
  const encoding = (ctx.get('Content-Encoding') || 'identity').toLowerCase();
  const decoders: Record<string, (() => NodeJS.ReadWriteStream) | undefined> = {
    gzip: createGunzip,
    deflate: createInflate,
    br: createBrotliDecompress,
  };
  const decoder = decoders[encoding];
  if (!decoder && encoding !== 'identity') {
    throw new KilnError(400, 'BAD_REQUEST', `Content-Encoding ${encoding} is not supported; send gzip, deflate, br or none.`);
  }
  const stream = decoder ? ctx.req.pipe(decoder()) : ctx.req;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) {
        ctx.req.unpipe();
        ctx.req.resume();
        throw new KilnError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes / 1024 / 1024}mb.`, { limit: limitBytes });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof KilnError) throw error;
    throw new KilnError(400, 'BAD_REQUEST', `The request body could not be read: ${(error as Error).message}.`);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return parseJsonWithNonFinite(text);
  } catch (error) {
    throw new KilnError(400, 'BAD_REQUEST', `The request body could not be parsed: ${(error as Error).message}.`);
  }
}
