import { builtinEvaluatorIssues } from '../problems/registry.js';
import type { MdlIssue } from './issues.js';
import { mdlSchema, type Mdl } from './schema.js';
import { checkSemantics } from './semantics.js';
import { fromZodIssues } from './zodIssues.js';

export { formatIssue } from './issues.js';

export type MdlResult = { ok: true; mdl: Mdl; warnings: MdlIssue[] } | { ok: false; errors: MdlIssue[] };

/**
 * Validates an already-parsed document (for example an API JSON body) against the MDL schema and
 * the semantic rules, returning every problem found rather than the first.
 */
export function validateMdl(document: unknown): MdlResult {
  const parsed = mdlSchema.safeParse(document);
  const structural = parsed.success ? [] : fromZodIssues(parsed.error.issues, document, mdlSchema);
  const { errors: semantic, warnings } = checkSemantics(document);
  const errors = dedupe([...structural, ...semantic]);
  if (errors.length > 0 || !parsed.success) return { ok: false, errors };
  // A builtin evaluator's own requirements (objective count, named inputs) need a valid document.
  const evaluator = builtinEvaluatorIssues(parsed.data);
  if (evaluator.length > 0) return { ok: false, errors: evaluator };
  return { ok: true, mdl: parsed.data, warnings };
}

function dedupe(issues: MdlIssue[]): MdlIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
