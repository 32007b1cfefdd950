import type { RawData } from 'ws';

/**
 * The text of a WebSocket message as `ws` hands it over: one Buffer (the default binary type), an
 * ArrayBuffer, or the Buffers of a fragmented message. `String(raw)` would be wrong for the last
 * two (it joins fragments with commas, and names an ArrayBuffer instead of decoding it).
 */
export function messageText(raw: RawData): string {
  if (Array.isArray(raw)) return Buffer.concat(raw).toString('utf8');
  return Buffer.isBuffer(raw) ? raw.toString('utf8') : Buffer.from(raw).toString('utf8');
}
