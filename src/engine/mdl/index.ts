export * from './schema.js';
export { formatIssue, type MdlIssue } from './issues.js';
export { parseMdl } from './parse.js';
export { validateMdl, type MdlResult } from './validate.js';
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
