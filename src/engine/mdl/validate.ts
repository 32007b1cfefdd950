import type { MdlIssue } from './issues.js';
import { preflight, type AttainableRange } from './preflight.js';
import { mdlSchema, type Mdl } from './schema.js';
import { checkSemantics } from './semantics.js';
import { fromZodIssues } from './zodIssues.js';

export { formatIssue } from './issues.js';

export type MdlResult = { ok: true; mdl: Mdl; warnings: MdlIssue[] } | { ok: false; errors: MdlIssue[] };

/**
 * What the validator needs to know about the builtin evaluators. The caller hands it in (the
 * problem registry provides one) so that the MDL layer does not depend on the problems built on it.
 */
export interface BuiltinEvaluators {
  /** every name `evaluator.name` may take */
  readonly names: readonly string[];
  /** the named builtin's own requirements (objective count, named inputs) on a valid document */
  issues(mdl: Mdl): MdlIssue[];
  /** per objective of `mdl`, the values its builtin evaluator can produce, where known */
  attainable(mdl: Mdl): (AttainableRange | undefined)[];
}

export interface ValidateOptions {
  /** Without it, a builtin evaluator's name and requirements go unchecked (the engine checks them again when it runs). */
  builtins?: BuiltinEvaluators;
  /** a dataset replaces the initial design, so pre-flight does not weigh the design against the budget */
  warmStart?: boolean;
  /** a budget set outside the document (`kiln run --budget`) replaces `optimizer.budget`, so pre-flight weighs the design against the budget that will run */
  budget?: number;
}

/**
 * Validates an already-parsed document (for example an API JSON body) against the MDL schema and
 * the semantic rules, returning every problem found rather than the first. A valid document also
 * gets the pre-flight warnings: things that waste the budget without being wrong.
 */
export function validateMdl(document: unknown, options: ValidateOptions = {}): MdlResult {
  const { builtins, warmStart, budget } = options;
  const parsed = mdlSchema.safeParse(document);
  const structural = parsed.success ? [] : fromZodIssues(parsed.error.issues, document, mdlSchema);
  const { errors: semantic, warnings } = checkSemantics(document, builtins?.names);
  const errors = dedupe([...structural, ...semantic]);
  if (errors.length > 0 || !parsed.success) return { ok: false, errors };
  // A builtin evaluator's own requirements (objective count, named inputs) need a valid document.
  const evaluator = builtins?.issues(parsed.data) ?? [];
  if (evaluator.length > 0) return { ok: false, errors: evaluator };
  const mdl = budget === undefined ? parsed.data : { ...parsed.data, optimizer: { ...parsed.data.optimizer, budget } };
  const attainable = builtins?.attainable(mdl) ?? [];
  return { ok: true, mdl, warnings: [...warnings, ...preflight(mdl, { attainable, warmStart })] };
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
