/**
 * Text every store and parser of Kiln can keep. Postgres refuses the NUL character in text and in
 * jsonb, and a lone UTF-16 surrogate (half of a pair, which JSON's `\ud800` escape can spell) is
 * no character at all: either one reaching a query would fail it. So they are refused where the
 * text enters, with the path of the member that holds them, and documents are refused past a
 * nesting depth, checked without recursion, before anything recursive walks them.
 */

/** The deepest nesting of arrays and objects a JSON document (body, import, WebSocket message) may have. */
export const MAX_JSON_DEPTH = 64;

/** At most this many bad strings are listed; a document full of them stays cheap to refuse. */
const MAX_LISTED = 20;

/** String.prototype.isWellFormed (ES2024; Node 20 has it, the compiler's ES2023 library does not name it): false for a lone surrogate. */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Why `text` cannot be stored, as the end of a sentence naming it, or null when it can. */
export function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored; remove it';
  if (!isWellFormed(text)) return 'contains a lone UTF-16 surrogate (half of a character pair, e.g. \\ud800), which is not text; send valid Unicode';
  return null;
}

export interface TextProblem {
  path: string;
  message: string;
}

/**
 * Every string and member name in `value` that cannot be stored (up to a bound), with its path
 * (`prefix.member[2].name`). Walks with an explicit stack, so no nesting overflows it.
 */
export function unstorableMembers(value: unknown, prefix = ''): TextProblem[] {
  const problems: TextProblem[] = [];
  const stack: { value: unknown; path: string }[] = [{ value, path: prefix }];
  while (stack.length > 0 && problems.length < MAX_LISTED) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      const why = unstorableText(current);
      if (why) problems.push({ path: path || '(body)', message: why });
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}[${i}]` });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i];
        const memberPath = path ? `${path}.${key}` : key;
        const why = unstorableText(key);
        if (why) problems.push({ path: memberPath, message: `the member name ${why}` });
        else stack.push({ value: member, path: memberPath });
      }
    }
  }
  return problems;
}

/**
 * The nesting depth of the JSON text `text` (0 for a scalar), counted over the brackets outside
 * string literals in one pass, stopping as soon as it passes `limit` (the returned depth is then
 * `limit + 1`). Malformed text is counted as far as it goes; the parser reports it afterwards.
 */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
    } else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) {
      depth--;
    }
  }
  return deepest;
}

/** The line (1-based) of `text` that holds the character at `index`. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 0x0a) line++;
  return line;
}
