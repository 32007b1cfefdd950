import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileConstraint, type CompiledConstraint } from '../src/engine/mdl/expression.js';

const names = ['x', 'y', 'z', 'x1', 'x2', 'li', 'ni', 'co'];

function compile(expression: string, tolerance?: number): CompiledConstraint {
  const result = compileConstraint(expression, names, tolerance);
  if (!result.ok) assert.fail(`"${expression}" should compile: ${JSON.stringify(result.errors)}`);
  return result.constraint;
}

/** The value of `expression` (no comparison) at `values`, read back through two inequality violations. */
function value(expression: string, values: Record<string, number>): number {
  const withX = { x: 0, ...values };
  // "+ 0*x" keeps constant expressions legal (a constraint must mention a parameter).
  const above = compile(`${expression} + 0*x <= 0`).violation(withX);
  const below = compile(`${expression} + 0*x >= 0`).violation(withX);
  return above - below;
}

function errors(expression: string): { position: number; message: string }[] {
  const result = compileConstraint(expression, ['x1', 'x2']);
  assert.ok(!result.ok, `"${expression}" should be rejected`);
  return result.errors;
}

test('precedence, associativity and unary signs follow ordinary algebra', () => {
  const cases: [string, Record<string, number>, number][] = [
    ['2 + 3 * 4', {}, 14],
    ['(2 + 3) * 4', {}, 20],
    ['10 - 4 - 3', {}, 3],
    ['24 / 4 / 2', {}, 3],
    ['2 ^ 3 ^ 2', {}, 512],
    ['(2 ^ 3) ^ 2', {}, 64],
    ['-x^2', { x: 3 }, -9],
    ['(-x)^2', { x: 3 }, 9],
    ['2^-1', {}, 0.5],
    ['-2 * -3', {}, 6],
    ['--x + +y', { x: 3, y: 4 }, 7],
    ['2 * x ^ 2 / 4', { x: 6 }, 18],
    ['1e-3 * 1000 + .5 + 2.', {}, 3.5],
    ['1E+2', {}, 100],
    ['x1\n  *\tx2', { x1: 3, x2: 5 }, 15],
  ];
  for (const [expression, values, expected] of cases) {
    assert.equal(value(expression, values), expected, expression);
  }
});

test('functions evaluate like their Math counterparts', () => {
  const cases: [string, Record<string, number>, number][] = [
    ['min(x, 2, y)', { x: 3, y: 1 }, 1],
    ['max(x, 2, y)', { x: 3, y: 1 }, 3],
    ['abs(-x)', { x: 3 }, 3],
    ['sqrt(16)', {}, 4],
    ['exp(0)', {}, 1],
    ['log(1)', {}, 0],
    ['sqrt(x^2 + y^2)', { x: 3, y: 4 }, 5],
    ['min(abs(x - 5), 1)', { x: 4.5 }, 0.5],
  ];
  for (const [expression, values, expected] of cases) {
    assert.equal(value(expression, values), expected, expression);
  }
  assert.ok(Math.abs(value('log(exp(2))', {}) - 2) < 1e-15);
});

test('violation is the amount beyond the comparison, 0 when satisfied', () => {
  const le = compile('x + y <= 1');
  assert.equal(le.violation({ x: 0.25, y: 0.5 }), 0);
  assert.equal(le.violation({ x: 0.75, y: 0.5 }), 0.25);
  assert.equal(le.violation({ x: 0.5, y: 0.5 }), 0);
  const ge = compile('x >= 2');
  assert.equal(ge.violation({ x: 0.5 }), 1.5);
  assert.equal(ge.violation({ x: 2 }), 0);
  const lt = compile('x < 1');
  assert.ok(lt.violation({ x: 1 }) > 0, 'a strict inequality met with equality is violated');
  assert.equal(lt.violation({ x: 0.5 }), 0);
  assert.equal(lt.violation({ x: 1.5 }), 0.5);
  const gt = compile('x > 1');
  assert.ok(gt.violation({ x: 1 }) > 0);
  assert.equal(gt.violation({ x: 2 }), 0);
  const eq = compile('x + y == 1', 0.125);
  assert.equal(eq.tolerance, 0.125);
  assert.equal(eq.violation({ x: 0.5, y: 0.625 }), 0, 'within tolerance');
  assert.equal(eq.violation({ x: 0.5, y: 0.75 }), 0.125, '|0.25| - 0.125');
  assert.equal(eq.violation({ x: 0.5, y: 0.25 }), 0.125);
  assert.equal(compile('x == 1').tolerance, 1e-6);
  assert.equal(compile('x == 1').violation({ x: 1 + 5e-7 }), 0);
  assert.equal(compile('sqrt(x) <= 1').violation({ x: -1 }), Infinity, 'an undefined side counts as violated');
  assert.throws(() => le.violation({ x: 1 }), /needs a numeric value for parameter "y"/);
  assert.deepEqual(compile('y + x + y <= 1').names, ['y', 'x']);
  assert.equal(compile('x <= 1').comparison, '<=');
  assert.equal(compile('x <= 1').source, 'x <= 1');
});

test('affine constraints expose their coefficients', () => {
  assert.deepEqual(compile('li + ni + co == 1').linear, { coefficients: { li: 1, ni: 1, co: 1 }, constant: -1 });
  // 2x1 - (x2 - 3)/2 - (4 + x1) = x1 - 0.5 x2 - 2.5
  assert.deepEqual(compile('2*x1 - (x2 - 3)/2 >= 4 + x1').linear, {
    coefficients: { x1: 1, x2: -0.5 },
    constant: -2.5,
  });
  assert.deepEqual(compile('x1 - x1 + x2 <= 0').linear, { coefficients: { x2: 1 }, constant: 0 });
  assert.deepEqual(compile('-(x1) * 3 / 2 ^ 2 <= 0').linear, { coefficients: { x1: -0.75 }, constant: 0 });
  assert.deepEqual(compile('sqrt(4) * x1 + x1^1 <= max(1, 2)').linear, { coefficients: { x1: 3 }, constant: -2 });
  for (const nonlinear of ['x1 * x2 <= 1', 'sqrt(x1) <= 1', 'x1 ^ 2 <= 1', 'x1 / x2 <= 1', 'abs(x1) <= 1', 'min(x1, 1) <= 1', '2 ^ x1 <= 3']) {
    assert.equal(compile(nonlinear).linear, undefined, nonlinear);
  }
});

test('the affine form agrees with evaluation at random points', () => {
  const c = compile('3*x - (y + 2*z)/4 + 7 >= 2*(x - 1) - z');
  const { coefficients, constant } = c.linear!;
  let seed = 12345;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 10 - 5;
  for (let k = 0; k < 50; k++) {
    const v = { x: next(), y: next(), z: next() };
    const direct = 3 * v.x - (v.y + 2 * v.z) / 4 + 7 - (2 * (v.x - 1) - v.z);
    const affine = coefficients.x * v.x + coefficients.y * v.y + coefficients.z * v.z + constant;
    assert.ok(Math.abs(direct - affine) < 1e-12);
    // >= is violated by max(0, -(left - right)).
    assert.ok(Math.abs(c.violation(v) - Math.max(0, -direct)) < 1e-12);
  }
});

test('unsafe and malformed inputs are rejected with their positions', () => {
  const cases: [string, number, string][] = [
    ['x1; process.exit()', 3, 'unexpected ";" at position 3'],
    ['x1 = 3', 4, 'unexpected "=" at position 4: write "==" for equality'],
    ['x1 =< 3', 4, 'unexpected "=" at position 4: write "<=" instead of "=<"'],
    ['x1 != 3', 4, 'unexpected "!" at position 4: "!=" is not supported; use two inequalities instead'],
    ['x1 == "a"', 7, 'unexpected "\\"" at position 7: text in quotes is not allowed in expressions'],
    ["x1 <= 'a'", 7, 'unexpected "\'" at position 7: text in quotes is not allowed in expressions'],
    ['x1[0] <= 1', 3, 'unexpected "[" at position 3: use parentheses for grouping'],
    ['this.x <= 1', 5, 'unexpected "." at position 5'],
    ['x1 <= eval(1)', 7, 'unknown function "eval" at position 7 (functions: min, max, abs, sqrt, exp, log)'],
    ['constructor(1) <= x1', 1, 'unknown function "constructor" at position 1 (functions: min, max, abs, sqrt, exp, log)'],
    ['x1 <= 1 || x2', 9, 'unexpected "|" at position 9'],
    ['x1 ** 2 <= 1', 4, 'unexpected "**" at position 4: write "^" for powers'],
    ['x1 + (x2 * 3)) <= 1', 14, 'unexpected ")" at position 14'],
    ['(x1 + 1 <= 2', 9, 'comparison "<=" at position 9 must be at the top level, not inside parentheses or function arguments'],
    ['(x1 + 1) <= (2', 15, 'missing ")" for the "(" at position 13'],
    ['x1 <=', 6, 'unexpected end of the expression at position 6: expected a number, a parameter name or "("'],
    ['x1 <= 1 >= 0', 9, 'second comparison ">=" at position 9: a constraint has exactly one comparison; write a range such as 0 <= x <= 1 as two constraints'],
    ['x1 + 1', 7, 'no comparison found: a constraint needs exactly one of <=, >=, <, >, =='],
    ['sqrt <= 1', 1, '"sqrt" at position 1 is a function; write sqrt(...)'],
    ['sqrt(x1, 2) <= 1', 1, 'sqrt() at position 1 takes exactly one argument, not 2'],
    ['min(x1) <= 1', 1, 'min() at position 1 needs at least two arguments'],
    ['2x1 <= 1', 1, 'malformed number "2x1" at position 1'],
    ['x1 <= 1.2.3', 7, 'malformed number "1.2.3" at position 7'],
    ['x1 >= 1e400', 7, 'number 1e400 at position 7 is too large'],
    ['x1 <= ()', 8, 'unexpected ")" at position 8'],
    ['x1 × 2 <= 1', 4, 'unexpected "×" at position 4'],
  ];
  for (const [expression, position, message] of cases) {
    assert.deepEqual(errors(expression), [{ position, message }], expression);
  }
});

test('unknown names are all reported, including prototype names', () => {
  assert.deepEqual(errors('a + b <= x1 + a'), [
    { position: 1, message: 'unknown parameter "a" at position 1 (parameters: x1, x2)' },
    { position: 5, message: 'unknown parameter "b" at position 5 (parameters: x1, x2)' },
  ]);
  for (const name of ['constructor', '__proto__', 'toString', 'process']) {
    assert.equal(errors(`${name} <= 1`)[0].message, `unknown parameter "${name}" at position 1 (parameters: x1, x2)`);
  }
  const proto = compileConstraint('__proto__ <= 1', ['__proto__']);
  assert.ok(!proto.ok, '__proto__ never resolves, even when listed');
  assert.deepEqual(errors('1 <= 2'), [{ position: 1, message: 'the constraint does not mention any parameter' }]);
  const badTolerance = compileConstraint('x1 == 1', ['x1'], 0);
  assert.ok(!badTolerance.ok);
});

test('nesting and length limits give clear errors instead of a stack overflow', () => {
  const ok = `${'('.repeat(99)}x1${')'.repeat(99)} <= 1`;
  assert.ok(compileConstraint(ok, ['x1']).ok, '99 levels are fine');
  assert.deepEqual(errors(`${'('.repeat(200)}x1${')'.repeat(200)} <= 1`), [
    { position: 101, message: 'the expression nests more than 100 levels deep at position 101' },
  ]);
  assert.match(errors(`${'-'.repeat(5000)}x1 <= 1`)[0].message, /nests more than 100 levels deep/);
  assert.match(errors(`${'2^'.repeat(300)}2 <= x1`)[0].message, /nests more than 100 levels deep/);
  assert.match(errors(`${'abs('.repeat(150)}x1${')'.repeat(150)} <= 1`)[0].message, /nests more than 100 levels deep/);
  assert.deepEqual(errors(`${'x1 + '.repeat(3000)}x1 <= 1`), [{ position: 1, message: 'the expression is longer than 10000 characters' }]);
  const long = `${Array.from({ length: 1500 }, () => 'x1').join(' + ')} <= 1`;
  const sum = compileConstraint(long, ['x1']);
  assert.ok(sum.ok, 'long flat sums do not nest');
  assert.deepEqual(sum.constraint.linear, { coefficients: { x1: 1500 }, constant: -1 });
});
