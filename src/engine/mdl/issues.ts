/**
 * One problem found in an MDL document.
 *
 * `path` is dotted with array indices in brackets, e.g. `parameters[1].bounds`, and `""` for the
 * whole document; members whose names are not identifiers are quoted, e.g. `headers["X-Key"]`.
 * `message` is a plain sentence a scientist can act on. `line` and `column` (both 1-based) are set
 * when the document came from text.
 */
export interface MdlIssue {
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** A path segment as zod and the YAML node tree use it: member name or array index. */
export type PathSegment = string | number;

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `['parameters', 1, 'bounds']` → `parameters[1].bounds`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (identifierPattern.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** `parameters[1].bounds (line 7, column 5): lower bound 5 must be below upper bound 2`. */
export function formatIssue(issue: MdlIssue): string {
  const where = issue.path === '' ? 'document' : issue.path;
  const location = issue.line === undefined ? '' : issue.column === undefined ? ` (line ${issue.line})` : ` (line ${issue.line}, column ${issue.column})`;
  return `${where}${location}: ${issue.message}`;
}
