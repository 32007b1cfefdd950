/**
 * Limits that bound what validating one MDL document can cost. Each expression is parsed and
 * sampled (pre-flight's feasible share), so the cost grows with the constraint text; the document
 * as a whole bounds everything else (parameters, names, notes).
 */
export const mdlLimits = {
  /** a document's size: its text for an MDL file, its JSON for an `mdl` object */
  documentBytes: 512 * 1024,
  /** one constraint or outcome-constraint expression */
  expressionCharacters: 2000,
  /** all constraint and outcome-constraint expressions of a document together */
  constraintCharacters: 50_000,
} as const;
