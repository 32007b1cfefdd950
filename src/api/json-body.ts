import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Context } from 'koa';
import { KilnError } from '../errors.js';
import { parseJsonWithNonFinite } from '../json-text.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../text-rules.js';
import { bodyInterrupted, onBodyInterrupted } from './request-body.js';

/**
 * A JSON body, read with a byte limit (413 the moment it is crossed) in any of the encodings
 * below. Strict by default: the document must be an object or an array. With `nonFinite`, bare
 * NaN, Infinity and -Infinity tokens (Python's json.dump default) are read as non-finite numbers,
 * for routes where a measured value can be one: the route then fails that measurement instead of
 * refusing the whole request. A document nested deeper than MAX_JSON_DEPTH is refused before it is
 * parsed, so nothing that walks it afterwards (validation, hashing, storage) can overflow the stack.
 */
export async function readJsonBody(ctx: Context, limitBytes: number, options: { nonFinite?: boolean } = {}): Promise<unknown> {
  const text = await readTextBody(ctx, limitBytes);
  refuseDeepJson(text, 'The request body');
  try {
    if (options.nonFinite) return parseJsonWithNonFinite(text);
    if (text.trim() === '') return {};
    if (!/^\s*[[{]/.test(text)) throw new Error('only an object or an array is accepted');
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new KilnError('BAD_REQUEST', `The request body could not be parsed: ${(error as Error).message}.`);
  }
}

/** A text body (UTF-8), read with the same byte limit and encodings as a JSON one. */
export async function readTextBody(ctx: Context, limitBytes: number): Promise<string> {
  const encoding = (ctx.get('Content-Encoding') || 'identity').toLowerCase();
  const decoders: Record<string, (() => Transform) | undefined> = {
    gzip: createGunzip,
    deflate: createInflate,
    br: createBrotliDecompress,
  };
  const decoder = decoders[encoding];
  if (!decoder && encoding !== 'identity') {
    throw new KilnError('BAD_REQUEST', `Content-Encoding ${encoding} is not supported; send gzip, deflate, br or none.`);
  }
  if (Number(ctx.get('Content-Length') || 0) > limitBytes) {
    ctx.req.resume();
    throw tooLarge(limitBytes);
  }
  const stream = decoder ? ctx.req.pipe(decoder()) : ctx.req;
  // a piped decoder does not hear of a connection closed mid-body: end it, or the read never would
  let interrupted = false;
  onBodyInterrupted(ctx.req, () => {
    interrupted = true;
    if (stream !== ctx.req) stream.destroy(new Error('interrupted'));
  });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) {
        ctx.req.unpipe();
        ctx.req.resume();
        throw tooLarge(limitBytes);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof KilnError) throw error;
    if (interrupted) throw bodyInterrupted();
    throw new KilnError(
      'BAD_REQUEST',
      decoder
        ? `The request body is not whole ${encoding} data (${(error as Error).message}); send the whole body compressed with ${encoding}, or send it uncompressed without Content-Encoding.`
        : `The request body could not be read: ${(error as Error).message}.`,
    );
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(limitBytes: number): KilnError {
  return new KilnError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes / 1024 / 1024}mb.`, { limit: limitBytes });
}

/** 400 for JSON text nested deeper than MAX_JSON_DEPTH (`what` names it in the message), checked without recursion. */
export function refuseDeepJson(text: string, what: string): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new KilnError('BAD_REQUEST', `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} deep (limit: JSON depth ${MAX_JSON_DEPTH}).`, {
      limit: MAX_JSON_DEPTH,
    });
  }
}
