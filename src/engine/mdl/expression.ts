import { parseConstraint, type Comparison, type ExpressionError, type ExpressionNode, type FunctionName } from './expressionParser.js';

export type { Comparison } from './expressionParser.js';
export { functionNames } from './expressionParser.js';

/** Equality constraints hold when |left - right| <= tolerance; this is the default tolerance. */
export const defaultTolerance = 1e-6;

export interface LinearForm {
  coefficients: Record<string, number>;
  constant: number;
}

export interface CompiledConstraint {
  source: string;
  comparison: Comparison;
  /** Slack for `==` only: |left - right| <= tolerance counts as equal. Inequalities are exact. */
  tolerance: number;
  /** Distinct parameter names in order of first appearance. */
  names: string[];
  /**
   * Positive amount by which `values` violate the constraint, 0 when satisfied: left - right
   * beyond the inequality, |left - right| - tolerance for `==`; a strict inequality met with
   * equality reports the smallest positive number; an undefined side (sqrt of a negative,
   * 0/0) reports Infinity. Throws when a referenced parameter has no numeric value.
   */
  violation(values: Readonly<Record<string, number>>): number;
  /**
   * Signed margin: how far inside (positive) or outside (negative) the constraint `values` are,
   * right - left for `<=` and `<`, left - right for `>=` and `>`, tolerance - |left - right| for
   * `==`; -Infinity when a side is undefined. What the engine models for outcome constraints.
   */
  slack(values: Readonly<Record<string, number>>): number;
  /** Set when left - right is affine in the parameters: sum(coefficient * x) + constant, compared with 0. */
  linear?: LinearForm;
}

export type CompileResult = { ok: true; constraint: CompiledConstraint } | { ok: false; errors: ExpressionError[] };

type Evaluator = (values: Readonly<Record<string, number>>) => number;
type BinaryOperator = Extract<ExpressionNode, { kind: 'binary' }>['op'];

/**
 * Compiles a constraint such as `li_frac + ni_frac + co_frac == 1` against the given parameter
 * names. Syntax errors, unknown names and reserved names are reported with their 1-based
 * character position; evaluation walks a closure tree built from the syntax tree.
 */
export function compileConstraint(
  expression: string,
  parameterNames: readonly string[],
  tolerance: number = defaultTolerance,
  noun = 'parameter',
): CompileResult {
  if (!(tolerance > 0) || !Number.isFinite(tolerance)) {
    return { ok: false, errors: [{ position: 1, message: `tolerance must be a positive number, not ${tolerance}` }] };
  }
  const parsed = parseConstraint(expression);
  if (!parsed.ok) return { ok: false, errors: [parsed.error] };
  const { left, comparison, right } = parsed.constraint;

  const known = new Set(parameterNames);
  const names = new Set<string>();
  const errors: ExpressionError[] = [];
  const reported = new Set<string>();
  for (const node of [left, right]) {
    visitNames(node, (name, position) => {
      if (name === '__proto__' || !known.has(name)) {
        if (!reported.has(name)) {
          reported.add(name);
          const list = known.size > 0 ? ` (${noun}s: ${listNames([...known])})` : '';
          errors.push({ position, message: `unknown ${noun} "${name}" at position ${position}${list}` });
        }
      } else {
        names.add(name);
      }
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  if (names.size === 0) {
    return { ok: false, errors: [{ position: 1, message: `the constraint does not mention any ${noun}` }] };
  }

  const evaluateLeft = compileNode(left);
  const evaluateRight = compileNode(right);
  const violationOf = violationFunction(comparison, tolerance);
  const slackOf = slackFunction(comparison, tolerance);
  const leftForm = affineForm(left);
  const rightForm = leftForm && affineForm(right);
  const ordered = [...names];
  const requireValues = (values: Readonly<Record<string, number>>): void => {
    for (const name of ordered) {
      if (typeof values[name] !== 'number') {
        throw new Error(`constraint "${expression}" needs a numeric value for ${noun} "${name}"`);
      }
    }
  };
  const constraint: CompiledConstraint = {
    source: expression,
    comparison,
    tolerance,
    names: ordered,
    violation(values) {
      requireValues(values);
      return violationOf(evaluateLeft(values) - evaluateRight(values));
    },
    slack(values) {
      requireValues(values);
      return slackOf(evaluateLeft(values) - evaluateRight(values));
    },
  };
  if (leftForm && rightForm) {
    const linear = subtract(leftForm, rightForm);
    if (linear) constraint.linear = linear;
  }
  return { ok: true, constraint };
}

function listNames(names: string[]): string {
  const shown = 20;
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

function violationFunction(comparison: Comparison, tolerance: number): (difference: number) => number {
  const undefinedSide = (d: number) => Number.isNaN(d);
  switch (comparison) {
    case '<=':
      return (d) => (undefinedSide(d) ? Infinity : d > 0 ? d : 0);
    case '>=':
      return (d) => (undefinedSide(d) ? Infinity : d < 0 ? -d : 0);
    case '<':
      return (d) => (undefinedSide(d) ? Infinity : d >= 0 ? Math.max(d, Number.MIN_VALUE) : 0);
    case '>':
      return (d) => (undefinedSide(d) ? Infinity : d <= 0 ? Math.max(-d, Number.MIN_VALUE) : 0);
    case '==':
      return (d) => (undefinedSide(d) ? Infinity : Math.abs(d) > tolerance ? Math.abs(d) - tolerance : 0);
  }
}

function slackFunction(comparison: Comparison, tolerance: number): (difference: number) => number {
  const defined = (f: (d: number) => number) => (d: number) => (Number.isNaN(d) ? -Infinity : f(d));
  switch (comparison) {
    case '<=':
    case '<':
      return defined((d) => -d);
    case '>=':
    case '>':
      return defined((d) => d);
    case '==':
      return defined((d) => tolerance - Math.abs(d));
  }
}

function visitNames(node: ExpressionNode, visit: (name: string, position: number) => void): void {
  switch (node.kind) {
    case 'number':
      return;
    case 'name':
      visit(node.name, node.position);
      return;
    case 'negate':
      visitNames(node.operand, visit);
      return;
    case 'binary':
      visitNames(node.left, visit);
      visitNames(node.right, visit);
      return;
    case 'call':
      for (const arg of node.args) visitNames(arg, visit);
  }
}

const unaryFunctions: Record<Exclude<FunctionName, 'min' | 'max'>, (x: number) => number> = {
  abs: Math.abs,
  sqrt: Math.sqrt,
  exp: Math.exp,
  log: Math.log,
};

function compileNode(node: ExpressionNode): Evaluator {
  switch (node.kind) {
    case 'number': {
      const value = node.value;
      return () => value;
    }
    case 'name': {
      const name = node.name;
      return (values) => values[name];
    }
    case 'negate': {
      const operand = compileNode(node.operand);
      return (values) => -operand(values);
    }
    case 'binary':
      return compileBinary(node.op, compileNode(node.left), compileNode(node.right));
    case 'call': {
      const args = node.args.map(compileNode);
      if (node.fn === 'min' || node.fn === 'max') {
        const pick = node.fn === 'min' ? Math.min : Math.max;
        return (values) => {
          let result = args[0](values);
          for (let i = 1; i < args.length; i++) result = pick(result, args[i](values));
          return result;
        };
      }
      const f = unaryFunctions[node.fn];
      const arg = args[0];
      return (values) => f(arg(values));
    }
  }
}

function compileBinary(op: BinaryOperator, a: Evaluator, b: Evaluator): Evaluator {
  switch (op) {
    case '+':
      return (values) => a(values) + b(values);
    case '-':
      return (values) => a(values) - b(values);
    case '*':
      return (values) => a(values) * b(values);
    case '/':
      return (values) => a(values) / b(values);
    case '^':
      return (values) => Math.pow(a(values), b(values));
  }
}

/** Symbolic affine form of `node`, or null when it is not affine in the parameters. */
function affineForm(node: ExpressionNode): LinearForm | null {
  switch (node.kind) {
    case 'number':
      return { coefficients: {}, constant: node.value };
    case 'name':
      return { coefficients: { [node.name]: 1 }, constant: 0 };
    case 'negate': {
      const f = affineForm(node.operand);
      return f && scale(f, -1);
    }
    case 'binary': {
      const a = affineForm(node.left);
      const b = a && affineForm(node.right);
      return a && b ? affineBinary(node.op, a, b) : null;
    }
    case 'call': {
      const args = node.args.map(affineForm);
      if (!args.every((f): f is LinearForm => f !== null && isConstant(f))) return null;
      const constants = args.map((f) => f.constant);
      if (node.fn === 'min') return constantForm(Math.min(...constants));
      if (node.fn === 'max') return constantForm(Math.max(...constants));
      return constantForm(unaryFunctions[node.fn](constants[0]));
    }
  }
}

function affineBinary(op: BinaryOperator, a: LinearForm, b: LinearForm): LinearForm | null {
  switch (op) {
    case '+':
      return add(a, b, 1);
    case '-':
      return add(a, b, -1);
    case '*':
      if (isConstant(a)) return scale(b, a.constant);
      return isConstant(b) ? scale(a, b.constant) : null;
    case '/':
      return isConstant(b) ? scale(a, 1 / b.constant) : null;
    case '^':
      if (isConstant(a) && isConstant(b)) return constantForm(Math.pow(a.constant, b.constant));
      if (isConstant(b) && b.constant === 1) return a;
      return isConstant(b) && b.constant === 0 ? constantForm(1) : null;
  }
}

function constantForm(value: number): LinearForm | null {
  return Number.isFinite(value) ? { coefficients: {}, constant: value } : null;
}

function isConstant(form: LinearForm): boolean {
  return Object.keys(form.coefficients).length === 0;
}

/**
 * a + sign * b, dropping coefficients that cancel; null when a coefficient is not finite. Every
 * form reaching here was built for this one expression and is used once, so `a` is extended in
 * place: a sum of n terms then costs O(n) instead of O(n²), which matters at 2,000 characters.
 */
function add(a: LinearForm, b: LinearForm, sign: 1 | -1): LinearForm | null {
  const coefficients = a.coefficients;
  for (const [name, c] of Object.entries(b.coefficients)) {
    const sum = (coefficients[name] ?? 0) + sign * c;
    if (!Number.isFinite(sum)) return null;
    if (sum === 0) delete coefficients[name];
    else coefficients[name] = sum;
  }
  const constant = a.constant + sign * b.constant;
  if (!Number.isFinite(constant)) return null;
  // -0 would print and compare as a surprise; the sign of a zero constant means nothing here.
  return { coefficients, constant: constant === 0 ? 0 : constant };
}

function subtract(a: LinearForm, b: LinearForm): LinearForm | null {
  return add(a, b, -1);
}

function scale(form: LinearForm, factor: number): LinearForm | null {
  const coefficients: Record<string, number> = {};
  for (const [name, c] of Object.entries(form.coefficients)) {
    const scaled = c * factor;
    if (scaled !== 0) coefficients[name] = scaled;
  }
  return finite({ coefficients, constant: form.constant * factor });
}

function finite(form: LinearForm): LinearForm | null {
  if (!Number.isFinite(form.constant) || !Object.values(form.coefficients).every(Number.isFinite)) return null;
  // -0 would print and compare as a surprise; the sign of a zero constant means nothing here.
  return form.constant === 0 ? { coefficients: form.coefficients, constant: 0 } : form;
}
