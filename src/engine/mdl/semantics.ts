import { decimals } from './decimals.js';
import { compileConstraint, functionNames } from './expression.js';
import { parseConstraint } from './expressionParser.js';
import { formatPath, type MdlIssue, type PathSegment } from './issues.js';
import { mdlLimits } from './limits.js';

/**
 * Rules that need more than one member at a time (unique names, bounds, budget arithmetic,
 * constraint expressions). They read the raw document and check whatever is well-formed enough
 * to check, so one pass reports these problems alongside the structural ones from zod.
 */
export function checkSemantics(document: unknown, builtinNames?: readonly string[]): { errors: MdlIssue[]; warnings: MdlIssue[] } {
  const errors: MdlIssue[] = [];
  const warnings: MdlIssue[] = [];
  if (!isRecord(document)) return { errors, warnings };
  const parameters = Array.isArray(document.parameters) ? document.parameters : [];
  const objectives: unknown[] = Array.isArray(document.objectives) ? document.objectives : [];

  const parameterNames = checkNames(parameters, 'parameters', 'parameter', errors);
  const objectiveNames = checkNames(objectives, 'objectives', 'objective', errors);
  for (const [name, index] of objectiveNames) {
    if (parameterNames.has(name)) {
      errors.push({
        path: formatPath(['objectives', index, 'name']),
        message: `"${name}" is already the name of a parameter; objectives and parameters need different names`,
      });
    }
  }
  const outcomes: unknown[] = Array.isArray(document.outcomes) ? document.outcomes : [];
  const outcomeNames = checkNames(outcomes, 'outcomes', 'outcome', errors);
  for (const [name, index] of outcomeNames) {
    if (parameterNames.has(name) || objectiveNames.has(name)) {
      errors.push({
        path: formatPath(['outcomes', index, 'name']),
        message: `"${name}" is already the name of ${parameterNames.has(name) ? 'a parameter' : 'an objective'}; outcomes need names of their own`,
      });
    }
  }
  parameters.forEach((parameter, index) => checkParameter(parameter, index, errors));
  // Compiling and sampling constraints costs in proportion to their text: over the limit, say so and stop there.
  const constraintText = expressionCharacters(document.constraints) + expressionCharacters(document.outcome_constraints);
  if (constraintText > mdlLimits.constraintCharacters) {
    errors.push({
      path: 'constraints',
      message: `the constraint and outcome-constraint expressions total ${constraintText.toLocaleString('en')} characters; at most ${mdlLimits.constraintCharacters.toLocaleString('en')} are allowed in one document (limit: constraint text)`,
    });
  } else {
    checkConstraints(document.constraints, parameters, errors, warnings);
    checkOutcomeConstraints(document.outcome_constraints, [...objectives, ...outcomes], errors);
  }
  checkOptimizer(document.optimizer, errors);
  if (builtinNames) checkBuiltinName(document.evaluator, builtinNames, errors);
  if (isRecord(document.evaluator) && document.evaluator.type === 'command') {
    warnings.push({
      path: 'evaluator.type',
      message: 'command evaluators run only from the local command line unless an administrator enables them on the server',
    });
  }
  return { errors, warnings };
}

const reservedNames = new Set<string>(['__proto__', ...functionNames]);

/** Reports duplicate and reserved names; returns the first index of each valid name. */
function checkNames(items: unknown[], member: string, noun: string, errors: MdlIssue[]): Map<string, number> {
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    if (!isRecord(item) || typeof item.name !== 'string') return;
    const path = formatPath([member, index, 'name']);
    const name = item.name;
    if (name === '__proto__' || (member === 'parameters' && reservedNames.has(name))) {
      const why = name === '__proto__' ? 'is reserved' : `is reserved for the function ${name}() in constraint expressions`;
      errors.push({ path, message: `${noun} name "${name}" ${why}; choose another name` });
    }
    const first = seen.get(name);
    if (first === undefined) seen.set(name, index);
    else {
      const also = formatPath([member, first, 'name']);
      errors.push({ path, message: `duplicate ${noun} name "${name}" (also ${also})` });
    }
  });
  return seen;
}

function checkParameter(parameter: unknown, index: number, errors: MdlIssue[]): void {
  if (!isRecord(parameter)) return;
  const at = (...rest: PathSegment[]) => formatPath(['parameters', index, ...rest]);
  if (parameter.type === 'continuous' || parameter.type === 'integer') {
    const bounds = parameter.bounds;
    if (!Array.isArray(bounds) || bounds.length !== 2 || !bounds.every(isFiniteNumber)) return;
    const [lower, upper] = bounds as [number, number];
    // Equal bounds fix the parameter: allowed, and pre-flight warns about it.
    if (lower > upper) {
      errors.push({ path: at('bounds'), message: `lower bound ${lower} must be below upper bound ${upper}` });
    }
    if (parameter.type === 'integer') {
      const fractional = bounds.filter((b) => !Number.isInteger(b));
      if (fractional.length > 0) {
        errors.push({
          path: at('bounds'),
          message: `integer bounds must be whole numbers (got ${fractional.join(' and ')})`,
        });
      }
    }
    if (parameter.scale === 'log' && !(lower > 0)) {
      errors.push({ path: at('bounds'), message: `log scale needs a positive lower bound (got ${lower})` });
    }
    // every encoding divides by the span: an infinite one makes every proposal NaN
    if (!Number.isFinite(upper - lower)) {
      errors.push({
        path: at('bounds'),
        message: `the range [${lower}, ${upper}] is wider than a number can hold (upper − lower overflows past ${Number.MAX_VALUE.toPrecision(3)}); narrow the bounds, or measure the parameter in a larger unit`,
      });
      return;
    }
    if (lower <= upper) checkResolution(parameter, lower, upper, at, errors);
  } else if (parameter.type === 'categorical' && Array.isArray(parameter.values)) {
    const seen = new Map<string, number>();
    parameter.values.forEach((value, i) => {
      if (typeof value !== 'string' && typeof value !== 'number') return;
      const key = String(value);
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else {
        errors.push({
          path: at('values', i),
          message: `duplicate value ${JSON.stringify(value)} (same as values[${first}]); values must be distinct`,
        });
      }
    });
  }
}

/**
 * A numeric parameter's `step` must divide its range a whole number of times (so both bounds are
 * on the grid), and its `values` must be distinct, within the bounds (whole numbers for an
 * integer); the two do not go together.
 */
function checkResolution(parameter: Record<string, unknown>, lower: number, upper: number, at: (...rest: PathSegment[]) => string, errors: MdlIssue[]): void {
  const { step, values } = parameter;
  if (step !== undefined && values !== undefined) {
    errors.push({ path: at('values'), message: 'give either step or values, not both' });
    return;
  }
  if (typeof step === 'number' && step > 0) {
    const finest = finestStep(lower, upper);
    if (step < finest) {
      errors.push({
        path: at('step'),
        message: `step ${step} is finer than numbers can count across [${lower}, ${upper}] (the smallest step that works here is ${Number(finest.toPrecision(2))}); choose a coarser step, or leave step out to search the range continuously`,
      });
      return;
    }
    const steps = (upper - lower) / step;
    if (Math.abs(steps - Math.round(steps)) > 1e-9 * Math.max(1, steps)) {
      const places = Math.max(decimals(step), decimals(lower));
      const fitted = Number((lower + Math.floor(steps) * step).toFixed(Math.min(places, 15)));
      const instead = Math.floor(steps) >= 1 ? ` or bounds [${lower}, ${fitted}]` : '';
      errors.push({
        path: at('step'),
        message: `step ${step} does not divide the range [${lower}, ${upper}]: ${upper} − ${lower} is ${Number(steps.toPrecision(6))} steps, not a whole number; choose a step that fits a whole number of times${instead}`,
      });
    }
  }
  if (!Array.isArray(values)) return;
  const seen = new Map<number, number>();
  values.forEach((value, i) => {
    if (!isFiniteNumber(value)) return;
    if (value < lower || value > upper) errors.push({ path: at('values', i), message: `value ${value} is outside the bounds [${lower}, ${upper}]` });
    if (parameter.type === 'integer' && !Number.isInteger(value))
      errors.push({ path: at('values', i), message: `an integer parameter takes whole numbers (got ${value})` });
    if (parameter.scale === 'log' && !(value > 0)) errors.push({ path: at('values', i), message: `log scale needs positive values (got ${value})` });
    const first = seen.get(value);
    if (first === undefined) seen.set(value, i);
    else errors.push({ path: at('values', i), message: `duplicate value ${value} (same as values[${first}]); values must be distinct` });
  });
}

/**
 * The smallest step a grid over [lower, upper] can have: its steps counted exactly (at most 2^53,
 * the whole numbers a double holds exactly; a step of 5e-324 made the count infinite and every
 * value the upper bound), and each step larger than the spacing of doubles at the bounds, so
 * `lower + k step` are distinct numbers. Rounded up to two significant digits for the message.
 */
function finestStep(lower: number, upper: number): number {
  const finest = Math.max((upper - lower) / 2 ** 53, 4 * Number.EPSILON * Math.max(Math.abs(lower), Math.abs(upper)), Number.MIN_VALUE);
  const magnitude = 10 ** (Math.floor(Math.log10(finest)) - 1);
  return Number.isFinite(magnitude) && magnitude > 0 ? Math.ceil(finest / magnitude) * magnitude : finest;
}

function expressionCharacters(constraints: unknown): number {
  if (!Array.isArray(constraints)) return 0;
  let total = 0;
  for (const constraint of constraints) if (isRecord(constraint) && typeof constraint.expression === 'string') total += constraint.expression.length;
  return total;
}

function checkConstraints(constraints: unknown, parameters: unknown[], errors: MdlIssue[], warnings: MdlIssue[]): void {
  if (!Array.isArray(constraints)) return;
  // Unknown names can only be told apart from typos in other members when every parameter has a name.
  const named = parameters.every((p) => isRecord(p) && typeof p.name === 'string');
  const names = parameters.map((p) => (isRecord(p) ? String(p.name) : ''));
  const categoricalNames = new Set(parameters.flatMap((p) => (isRecord(p) && p.type === 'categorical' ? [String(p.name)] : [])));
  constraints.forEach((constraint, index) => {
    if (!isRecord(constraint) || typeof constraint.expression !== 'string' || constraint.expression === '') return;
    const path = formatPath(['constraints', index, 'expression']);
    const expression = constraint.expression;
    const parsed = parseConstraint(expression);
    if (!parsed.ok) {
      errors.push({ path, message: parsed.error.message });
      return;
    }
    if (constraint.tolerance !== undefined && parsed.constraint.comparison !== '==') {
      warnings.push({
        path: formatPath(['constraints', index, 'tolerance']),
        message: `tolerance only applies to == constraints; it is ignored for "${parsed.constraint.comparison}"`,
      });
    }
    if (!named) return;
    const compiled = compileConstraint(expression, names);
    if (!compiled.ok) {
      for (const error of compiled.errors) errors.push({ path, message: error.message });
      return;
    }
    for (const name of compiled.constraint.names) {
      if (categoricalNames.has(name)) {
        const position = new RegExp(`\\b${name}\\b`).exec(expression)!.index + 1;
        errors.push({
          path,
          message:
            `parameter "${name}" at position ${position} is categorical and cannot appear in a constraint; ` + 'only continuous and integer parameters can',
        });
      }
    }
  });
}

/**
 * Outcome constraints name objectives and outcomes (measured values), never parameters, and are
 * inequalities: a measured value never lands exactly on a number.
 */
function checkOutcomeConstraints(constraints: unknown, measured: unknown[], errors: MdlIssue[]): void {
  if (!Array.isArray(constraints)) return;
  const named = measured.every((p) => isRecord(p) && typeof p.name === 'string');
  const names = measured.map((p) => (isRecord(p) ? String(p.name) : ''));
  constraints.forEach((constraint, index) => {
    if (!isRecord(constraint) || typeof constraint.expression !== 'string' || constraint.expression === '') return;
    const path = formatPath(['outcome_constraints', index, 'expression']);
    const parsed = parseConstraint(constraint.expression);
    if (!parsed.ok) {
      errors.push({ path, message: parsed.error.message });
      return;
    }
    if (parsed.constraint.comparison === '==') {
      errors.push({ path, message: 'an outcome constraint must be an inequality (<=, >=, < or >): a measured value never lands exactly on a number' });
      return;
    }
    if (!named) return;
    const compiled = compileConstraint(constraint.expression, names, undefined, 'outcome or objective');
    if (!compiled.ok) for (const error of compiled.errors) errors.push({ path, message: error.message });
  });
}

function checkOptimizer(optimizer: unknown, errors: MdlIssue[]): void {
  if (!isRecord(optimizer)) return;
  const budget = optimizer.budget;
  if (!Number.isInteger(budget)) return;
  // An initial design as large as the budget is legal (the design is cut short); pre-flight warns.
  const batch = optimizer.batch_size;
  if (Number.isInteger(batch) && (batch as number) > (budget as number)) {
    errors.push({
      path: 'optimizer.batch_size',
      message: `batch_size ${batch as number} must not exceed the budget of ${budget as number} evaluations`,
    });
  }
}

/** An unknown builtin name is reported with the other problems, not after they are fixed. */
function checkBuiltinName(evaluator: unknown, names: readonly string[], errors: MdlIssue[]): void {
  if (!isRecord(evaluator) || evaluator.type !== 'builtin' || typeof evaluator.name !== 'string') return;
  const name = evaluator.name;
  if (name === '' || names.includes(name.toLowerCase())) return;
  errors.push({ path: 'evaluator.name', message: `unknown builtin evaluator '${name}'; known: ${names.join(', ')}` });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
