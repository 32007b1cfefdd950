import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import type * as Format from '../web/src/format.js';
import type * as WorklistFile from '../web/src/worklist-file.js';

/**
 * How the dashboard writes parameter values for a lab: hand-checked strings. The dashboard's
 * sources are built by vite into dist/web (which it empties), so the module, which imports
 * nothing, is transpiled from its source here.
 */
const source = ts.transpileModule(readFileSync(new URL('../../web/src/format.ts', import.meta.url), 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
}).outputText;
const { duration, etaText, formatParameter, niceTicks, plainNumber } = (await import(
  `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`
)) as typeof Format;

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

test('plot ticks are round numbers 1, 2 or 5 apart that cover the range', () => {
  assert.deepEqual(niceTicks(0.03, 0.97), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(-1.3, 4.1), [-2, 0, 2, 4, 6]);
  assert.deepEqual(niceTicks(12, 87), [0, 20, 40, 60, 80, 100]);
  assert.deepEqual(niceTicks(0.1, 0.3), [0.1, 0.15, 0.2, 0.25, 0.3]);
  assert.deepEqual(niceTicks(1203, 1247), [1200, 1210, 1220, 1230, 1240, 1250]);
  assert.deepEqual(niceTicks(2e-7, 9e-7), [2e-7, 4e-7, 6e-7, 8e-7, 1e-6]);
  // a single value: one either side
  assert.deepEqual(niceTicks(5, 5), [4, 4.5, 5, 5.5, 6]);
});

test('the worklist for Excel: the CSV as tab-separated text behind a byte-order mark', async () => {
  const fileSource = ts.transpileModule(readFileSync(new URL('../../web/src/worklist-file.ts', import.meta.url), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const { worklistTsv } = (await import(`data:text/javascript;base64,${Buffer.from(fileSource).toString('base64')}`)) as typeof WorklistFile;
  const csv = '\uFEFFid,iteration,T,f1,status,reason\r\neval_1,1,1205,,,\r\neval_2,1,1210,0.5,failed,"cracked, twice ""badly"""\r\n';
  assert.equal(
    worklistTsv(csv),
    '\uFEFFid\titeration\tT\tf1\tstatus\treason\r\neval_1\t1\t1205\t\t\t\r\neval_2\t1\t1210\t0.5\tfailed\t"cracked, twice ""badly"""\r\n',
  );
  // a cell with a tab, a quote or a line break is quoted in the TSV too; a comma needs no quotes
  assert.equal(worklistTsv('a,b\r\n"x\ty","line\nbreak"\r\n'), '\uFEFFa\tb\r\n"x\ty"\t"line\nbreak"\r\n');
});

test('the ETA of a job: none before the first iteration ends (no "ETA 0.0 s"), then the iterations left at the mean iteration time', () => {
  assert.equal(etaText({ avg_iteration_seconds: 0, estimated_remaining_seconds: 0 }), 'ETA known after the first iteration');
  assert.equal(etaText({ avg_iteration_seconds: 12.5, estimated_remaining_seconds: 75 }), 'ETA 1 min 15 s');
  assert.equal(etaText({ avg_iteration_seconds: 2, estimated_remaining_seconds: 0 }), 'ETA 0.0 s');
  assert.equal(duration(7384), '2 h 3 min');
  assert.equal(duration(undefined), '—');
});
