export * from './schema.js';
export { formatIssue, type MdlIssue } from './issues.js';
export { parseMdl } from './parse.js';
export { validateMdl, type BuiltinEvaluators, type MdlResult, type ValidateOptions } from './validate.js';
export { feasibleShare, preflight, type AttainableRange } from './preflight.js';
export {
  compileConstraint,
  defaultTolerance,
  functionNames,
  type CompiledConstraint,
  type Comparison,
  type CompileResult,
  type LinearForm,
} from './expression.js';
export { mdlJsonSchemaText } from './jsonSchema.js';
export { mdlLimits } from './limits.js';
