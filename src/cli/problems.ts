import type { MdlIssue } from '../engine/mdl/issues.js';

/**
 * One MDL problem as the CLI prints it, in the form editors and terminals link to:
 * `file:line:column: path: message`, with `warning:` before the path for a warning; without a
 * known line, `file: path: message`. `kiln validate` and `kiln run` both print through it.
 */
export function formatProblem(file: string, issue: MdlIssue, severity: 'error' | 'warning' = 'error'): string {
  const where = issue.line === undefined ? file : `${file}:${issue.line}:${issue.column ?? 1}`;
  const parts = [`${where}:`, severity === 'warning' ? 'warning:' : '', issue.path ? `${issue.path}:` : '', issue.message];
  return parts.filter((part) => part !== '').join(' ');
}
