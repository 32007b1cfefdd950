import type { z } from 'zod';
import { formatPath, type MdlIssue, type PathSegment } from './issues.js';

/**
 * Rewrites zod's issues into sentences a scientist can act on ("budget is required (a whole
 * number)" instead of "Invalid input: expected int, received undefined"), reading the offending
 * values back from the document and the allowed members from the schema.
 */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], document: unknown, schema: z.ZodType): MdlIssue[] {
  const out: MdlIssue[] = [];
  for (const issue of issues) translate(issue, [], document, schema, out);
  return out;
}

/** The slice of zod's internal definition this module reads to find members and options. */
interface SchemaDef {
  type: string;
  shape?: Record<string, SchemaLike>;
  element?: SchemaLike;
  items?: SchemaLike[];
  innerType?: SchemaLike;
  in?: SchemaLike;
  valueType?: SchemaLike;
  options?: SchemaLike[];
  discriminator?: string;
  values?: unknown[];
  format?: string;
}

interface SchemaLike {
  _zod: { def: SchemaDef };
}

function translate(issue: z.core.$ZodIssue, prefix: PathSegment[], document: unknown, schema: z.ZodType, out: MdlIssue[]): void {
  const segments = [...prefix, ...(issue.path as PathSegment[])];
  const value = valueAt(document, segments);
  const path = formatPath(segments);
  const key = segments.length > 0 ? String(segments[segments.length - 1]) : 'document';
  switch (issue.code) {
    case 'invalid_type': {
      // zod reports a missing whole number as an expected "number"; the schema knows better.
      const format = schemaAt(schema, document, segments)?._zod.def.format;
      const expected = expectedType(issue.expected === 'number' && format?.includes('int') ? 'int' : issue.expected);
      if (value === undefined) {
        out.push({ path, message: `${key} is required (${expected})` });
      } else if (typeof value === 'number' && issue.expected === 'number') {
        out.push({ path, message: `expected a finite number, got ${describeValue(value)}` });
      } else {
        out.push({ path, message: `expected ${expected}, got ${describeValue(value)}` });
      }
      return;
    }
    case 'invalid_value': {
      const options = issue.values.map((v) => String(v));
      const got = value === undefined ? 'is required' : `got ${describeValue(value)}`;
      const message =
        options.length === 1
          ? `must be ${options[0]} (${got})`
          : `${value === undefined ? `${key} is required: one of` : 'must be one of'} ${options.join(', ')}` + (value === undefined ? '' : ` (${got})`);
      out.push({ path, message });
      return;
    }
    case 'unrecognized_keys': {
      const allowed = membersAt(schema, document, segments);
      for (const unknownKey of issue.keys) {
        const suggestion = closest(unknownKey, allowed);
        const hint = [suggestion ? `did you mean "${suggestion}"?` : '', allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : '']
          .filter((s) => s !== '')
          .join(' ');
        out.push({
          path: formatPath([...segments, unknownKey]),
          message: `unknown member "${unknownKey}"${hint ? ` (${hint})` : ''}`,
        });
      }
      return;
    }
    case 'invalid_union':
      translateUnion(issue, segments, value, document, schema, out);
      return;
    case 'too_small':
    case 'too_big':
      out.push({ path, message: sizeMessage(issue, key, value) });
      return;
    case 'invalid_format': {
      const text = typeof value === 'string' ? JSON.stringify(value) : describeValue(value);
      if (issue.format === 'url') {
        out.push({ path, message: `must be an http:// or https:// URL (got ${text})` });
      } else if (issue.format === 'regex') {
        out.push({ path, message: `${text} is not a valid ${key}: it ${issue.message}` });
      } else {
        out.push({ path, message: `must be a valid ${issue.format} (got ${text})` });
      }
      return;
    }
    case 'not_multiple_of':
      out.push({ path, message: `must be a multiple of ${issue.divisor} (got ${describeValue(value)})` });
      return;
    default:
      out.push({ path, message: issue.message });
  }
}

function translateUnion(
  issue: z.core.$ZodIssueInvalidUnion,
  segments: PathSegment[],
  value: unknown,
  document: unknown,
  schema: z.ZodType,
  out: MdlIssue[],
): void {
  const path = formatPath(segments);
  const key = segments.length > 0 ? String(segments[segments.length - 1]) : 'document';
  const discriminated = issue as { discriminator?: string; options?: unknown[] };
  if (discriminated.options && discriminated.options.length > 0) {
    const options = discriminated.options.map(String).join(', ');
    out.push({
      path,
      message: value === undefined ? `${key} is required: one of ${options}` : `${key} must be one of ${options} (got ${describeValue(value)})`,
    });
    return;
  }
  // An option that failed for a reason other than the value's type is the one the author meant.
  const meant = issue.errors.filter((branch) => !branch.some((i) => i.code === 'invalid_type' && i.path.length === 0));
  if (meant.length === 1) {
    for (const inner of meant[0]) translate(inner, segments, document, schema, out);
    return;
  }
  const expected = issue.errors
    .flatMap((branch) => branch.filter((i) => i.code === 'invalid_type' && i.path.length === 0))
    .map((i) => expectedType((i as z.core.$ZodIssueInvalidType).expected));
  const message = expected.length > 0 ? `expected ${[...new Set(expected)].join(' or ')}, got ${describeValue(value)}` : issue.message;
  out.push({ path, message });
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig, key: string, value: unknown): string {
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'array' || issue.origin === 'set') {
    if (key === 'bounds') return 'bounds must be a list of two numbers [lower, upper]';
    const count = Array.isArray(value) ? value.length : 0;
    if (small) return limit === 1 ? 'needs at least one item' : `needs at least ${limit} items (got ${count})`;
    return `allows at most ${limit} items (got ${count})`;
  }
  if (issue.origin === 'string') {
    const length = typeof value === 'string' ? value.length : 0;
    if (small) return limit === 1 ? 'must not be empty' : `must be at least ${limit} characters long`;
    return `must be at most ${limit} characters long (got ${length})`;
  }
  const got = describeValue(value);
  if (small) {
    return issue.inclusive ? `must be at least ${limit} (got ${got})` : `must be greater than ${limit} (got ${got})`;
  }
  return issue.inclusive ? `must be at most ${limit} (got ${got})` : `must be below ${limit} (got ${got})`;
}

function expectedType(expected: string): string {
  switch (expected) {
    case 'number':
      return 'a number';
    case 'int':
      return 'a whole number';
    case 'string':
      return 'text';
    case 'array':
    case 'tuple':
      return 'a list';
    case 'object':
    case 'record':
      return 'an object with named members';
    case 'boolean':
      return 'true or false';
    default:
      return expected;
  }
}

/** A short description of a value for messages: `the text "abc"`, `a list`, `3.5`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null (an empty value)';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}...` : JSON.stringify(value);
    return `the text ${shown}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** The value at `path` in a plain JSON-like document, or undefined. */
export function valueAt(document: unknown, path: readonly PathSegment[]): unknown {
  let current = document;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

function unwrap(schema: SchemaLike | undefined): SchemaLike | undefined {
  let current = schema;
  for (let guard = 0; current && guard < 20; guard++) {
    const def = current._zod.def;
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** Follows `path` through the schema, picking union options by the document's discriminator. */
function schemaAt(root: SchemaLike, document: unknown, path: readonly PathSegment[]): SchemaLike | undefined {
  let schema = unwrap(root);
  for (let i = 0; schema && i <= path.length; i++) {
    const def = schema._zod.def;
    if (def.type === 'union' && def.options) {
      schema = unwrap(pickOption(def, valueAt(document, path.slice(0, i))));
      continue;
    }
    if (i === path.length) break;
    const segment = path[i];
    if (def.type === 'object' && def.shape) schema = unwrap(def.shape[String(segment)]);
    else if (def.type === 'array') schema = unwrap(def.element);
    else if (def.type === 'tuple' && def.items) schema = unwrap(def.items[Number(segment)]);
    else if (def.type === 'record') schema = unwrap(def.valueType);
    else return undefined;
  }
  return schema;
}

function pickOption(def: SchemaDef, value: unknown): SchemaLike | undefined {
  const options = def.options ?? [];
  const discriminator = def.discriminator;
  if (discriminator && value !== null && typeof value === 'object') {
    const tag = (value as Record<string, unknown>)[discriminator];
    for (const option of options) {
      const field = unwrap(option)?._zod.def.shape?.[discriminator];
      if (field?._zod.def.values?.includes(tag)) return option;
    }
  }
  return options.find((o) => unwrap(o)?._zod.def.type === 'object');
}

function membersAt(schema: z.ZodType, document: unknown, path: readonly PathSegment[]): string[] {
  const target = schemaAt(schema, document, path);
  const shape = target?._zod.def.type === 'object' ? target._zod.def.shape : undefined;
  return shape ? Object.keys(shape) : [];
}

/** The allowed name within edit distance 2 of `name` (a likely typo), if any. */
function closest(name: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance && 2 * d < Math.max(name.length, candidate.length)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}
