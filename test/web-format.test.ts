import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import type * as Format from '../web/src/format.js';

/**
 * How the dashboard writes parameter values for a lab: hand-checked strings. The dashboard's
 * sources are built by vite into dist/web (which it empties), so the module, which imports
 * nothing, is transpiled from its source here.
 */
const source = ts.transpileModule(readFileSync(new URL('../../web/src/format.ts', import.meta.url), 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
}).outputText;
const { formatParameter, plainNumber } = (await import(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`)) as typeof Format;

test('a stepped parameter is rounded to its step with the decimals the step has', () => {
  assert.equal(formatParameter(0.37123, { name: 'mo_frac', type: 'continuous', step: 0.01 }), '0.37');
  assert.equal(formatParameter(0.0000016, { name: 'mo_frac', type: 'continuous', step: 0.01 }), '0.00');
  assert.equal(formatParameter(1203.7, { name: 'T', type: 'continuous', step: 5 }), '1205');
  assert.equal(formatParameter(0.125, { name: 'w', type: 'continuous', step: 0.025 }), '0.125');
  assert.equal(formatParameter(0.3, { name: 'w', type: 'continuous', step: 0.1 }), '0.3');
});

test('other values: integers whole, categories as they are, reals to 5 significant digits without an exponent', () => {
  assert.equal(formatParameter(3.0000001, { name: 'n', type: 'integer' }), '3');
  assert.equal(formatParameter('NaCl', { name: 's', type: 'categorical' }), 'NaCl');
  assert.equal(formatParameter(undefined, { name: 's', type: 'categorical' }), '—');
  assert.equal(formatParameter(2.0683e-7, { name: 'x', type: 'continuous' }), '0.00000020683');
  assert.equal(formatParameter(0.0000016, { name: 'x', type: 'continuous' }), '0.0000016');
  assert.equal(plainNumber(0.123456789), '0.12346');
  assert.equal(plainNumber(1200), '1200');
  assert.equal(plainNumber(123456.7), '123457');
  assert.equal(plainNumber(-9.999996), '-10');
  assert.equal(plainNumber(0), '0');
  assert.equal(plainNumber(Number.NaN), '—');
  assert.equal(plainNumber(3e-12), '3e-12');
});
