import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { MdlIssue } from './issues.js';
import { findJsonError } from './jsonSyntax.js';
import { validateMdl, type MdlResult, type ValidateOptions } from './validate.js';

export { formatIssue } from './issues.js';
export { validateMdl, type BuiltinEvaluators, type MdlResult, type ValidateOptions } from './validate.js';

/** Caps alias expansion so a "billion laughs" document fails fast instead of exhausting memory. */
const maxAliasCount = 100;

/**
 * Parses MDL text (JSON or YAML) and validates it. The format is guessed when absent: JSON when
 * the text starts with "{", YAML otherwise. Syntax errors and schema errors carry the 1-based
 * line and column of the offending member.
 */
export function parseMdl(text: string, format?: 'json' | 'yaml', options: ValidateOptions = {}): MdlResult {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const chosen = format ?? (source.trimStart().startsWith('{') ? 'json' : 'yaml');
  if (source.trim() === '') {
    return { ok: false, errors: [{ path: '', message: 'the document is empty', line: 1, column: 1 }] };
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };

  let data: unknown;
  if (chosen === 'json') {
    try {
      data = JSON.parse(source);
    } catch (e) {
      const found = findJsonError(source);
      const message = found?.message ?? (e as Error).message;
      const location = found ? at(found.offset) : {};
      return { ok: false, errors: [{ path: '', message: `invalid JSON: ${message}`, ...location }] };
    }
    // JSON.parse silently keeps the last of two equal keys; in a campaign that is always a slip.
    const duplicates = document.errors.filter((error) => error.code === 'DUPLICATE_KEY');
    if (duplicates.length > 0) {
      const errors = duplicates.map((error) => ({
        path: '',
        message: `invalid JSON: ${yamlMessage(error.code, error.message, source, error.pos[0])}`,
        ...at(error.pos[0]),
      }));
      return { ok: false, errors };
    }
  } else {
    if (document.errors.length > 0) return { ok: false, errors: sortByLocation(yamlErrors(document.errors, source, at)) };
    try {
      data = document.toJS({ maxAliasCount });
    } catch (e) {
      const message = `invalid YAML: ${(e as Error).message}`;
      return { ok: false, errors: [{ path: '', message, line: 1, column: 1 }] };
    }
    if (data === null || data === undefined) {
      return { ok: false, errors: [{ path: '', message: 'the document is empty', line: 1, column: 1 }] };
    }
  }

  const result = validateMdl(data, options);
  const locate = (issue: MdlIssue): MdlIssue => {
    const offset = offsetOf(document, issue.path);
    return offset === undefined ? issue : { ...issue, ...at(offset) };
  };
  if (!result.ok) return { ok: false, errors: sortByLocation(result.errors.map(locate)) };
  return { ok: true, mdl: result.mdl, warnings: sortByLocation(result.warnings.map(locate)) };
}

/** What the YAML library reports, in several codes, for one line indented off its neighbours. */
const indentationCodes = new Set(['BAD_INDENT', 'BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

const indentationMessage =
  'invalid YAML: this line is indented inconsistently with the lines above it; ' +
  'start it in the same column as the other members of its mapping (indent with spaces, not tabs)';

/**
 * The library's errors as problems. A mis-indented line yields two or three errors, some placed on
 * the line before it (whose value the library tries to continue); they become one problem at the
 * line itself.
 */
function yamlErrors(
  errors: readonly { code: string; message: string; pos: [number, number] }[],
  source: string,
  at: (offset: number) => { line: number; column: number },
): MdlIssue[] {
  const lines = source.split(/\r?\n/);
  const indented = new Set<number>();
  const issues: MdlIssue[] = [];
  for (const error of errors) {
    const where = at(error.pos[0]);
    if (!indentationCodes.has(error.code)) {
      issues.push({ path: '', message: `invalid YAML: ${yamlMessage(error.code, error.message, source, error.pos[0])}`, ...where });
      continue;
    }
    const line = error.code === 'BAD_INDENT' ? where.line : nextContentLine(lines, where.line);
    if (indented.has(line)) continue;
    indented.add(line);
    const column = (/^\s*/.exec(lines[line - 1] ?? '')?.[0].length ?? 0) + 1;
    issues.push({ path: '', message: indentationMessage, line, column });
  }
  return issues;
}

/** The first line after `line` (1-based) holding more than blanks or a comment; `line` itself when none does. */
function nextContentLine(lines: readonly string[], line: number): number {
  for (let next = line + 1; next <= lines.length; next++) {
    if (!/^\s*(#.*)?$/.test(lines[next - 1])) return next;
  }
  return line;
}

function yamlMessage(code: string, message: string, source: string, offset: number): string {
  if (code === 'DUPLICATE_KEY') {
    return `the key ${JSON.stringify(keyAt(source, offset))} appears twice in the same mapping`;
  }
  if (code === 'MULTIPLE_DOCS') return 'the file holds several YAML documents ("---"); an MDL file holds exactly one';
  return message.replace(/\s*at line \d+, column \d+.*$/s, '');
}

/** The mapping key written at `offset`: a quoted string or a plain scalar. */
function keyAt(source: string, offset: number): string {
  const quoted = /"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/y;
  quoted.lastIndex = offset;
  const q = quoted.exec(source);
  if (q && q[0].startsWith("'")) return q[0].slice(1, -1).replace(/''/g, "'");
  if (q) {
    try {
      return JSON.parse(q[0]) as string;
    } catch {
      return q[0].slice(1, -1);
    }
  }
  const plain = /[^:,{}[\]\n]*/y;
  plain.lastIndex = offset;
  return (plain.exec(source)?.[0] ?? '').trim();
}

function sortByLocation(issues: MdlIssue[]): MdlIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || (a.issue.column ?? 0) - (b.issue.column ?? 0) || a.index - b.index)
    .map((entry) => entry.issue);
}

/** Splits `parameters[1].bounds` or `headers["X-Key"]` back into segments. */
function pathSegments(path: string): (string | number)[] {
  const segments: (string | number)[] = [];
  const pattern = /([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;
  for (let match = pattern.exec(path); match; match = pattern.exec(path)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push(JSON.parse(match[3]) as string);
    if (path[pattern.lastIndex] === '.') pattern.lastIndex++;
  }
  return segments;
}

/**
 * Source offset for an issue path: the key of the deepest member that exists (so a missing
 * member points at its parent), or the start of a list item.
 */
function offsetOf(document: Document, path: string): number | undefined {
  let node: unknown = document.contents;
  let offset = rangeStart(node);
  for (const segment of pathSegments(path)) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
      if (!pair) break;
      offset = rangeStart(pair.key) ?? rangeStart(pair.value) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number' && segment < node.items.length) {
      node = node.items[segment];
      offset = rangeStart(node) ?? offset;
    } else {
      break;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : undefined;
}
