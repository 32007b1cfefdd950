import { randomUUID } from 'node:crypto';

/**
 * JSON as real programs print it. Python's json.dump writes NaN, Infinity and -Infinity as bare
 * tokens by default, which strict JSON refuses; one such value must fail its own measurement,
 * not make a whole batch of results unreadable.
 */

const NON_FINITE = /^(-?Infinity|NaN)/;

/**
 * `text` with each bare NaN, Infinity and -Infinity token outside a string literal replaced by a
 * string literal holding `marker` and the token ("NaN" with the default empty marker), so that
 * JSON.parse reads it. Tokens inside strings are left alone.
 */
export function quoteNonFiniteTokens(text: string, marker = ''): string {
  if (!/NaN|Infinity/.test(text)) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      // copy the whole string literal, escapes included
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const token = NON_FINITE.exec(text.slice(i, i + 9));
    if (token) {
      out += `"${marker}${token[1]}"`;
      i += token[1].length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

/**
 * JSON.parse that also reads bare NaN, Infinity and -Infinity tokens, as the numbers they name.
 * A string "NaN" stays a string: the tokens are marked with a random marker no client sends.
 * Throws SyntaxError like JSON.parse.
 */
export function parseJsonWithNonFinite(text: string): unknown {
  const marker = `kiln-non-finite-${randomUUID()}:`;
  const quoted = quoteNonFiniteTokens(text, marker);
  if (quoted === text) return JSON.parse(text);
  const values: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };
  return JSON.parse(quoted, (_key, value: unknown) => (typeof value === 'string' && value.startsWith(marker) ? values[value.slice(marker.length)] : value));
}
