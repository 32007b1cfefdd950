import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import type * as Format from '../web/src/format.js';
import type * as WorklistFile from '../web/src/worklist-file.js';
import { escapeFormula, unescapeFormula } from '../src/engine/campaign/formula-escape.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { parameterText } from '../src/service/worklist.js';

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

test("the worklist file and the dashboard write a parameter alike: the grid's decimals, 5 significant digits of the range, a bound as the bound", () => {
  const mdl = mdlSchema.parse({
    parameters: [
      { name: 'ratio', type: 'continuous', bounds: [0, 1] },
      { name: 'salt', type: 'continuous', bounds: [0.5, 2], step: 0.05 },
      { name: 'offset', type: 'continuous', bounds: [0.05, 1], step: 0.1 },
      { name: 'dose', type: 'continuous', bounds: [1e-6, 1e-2], scale: 'log' },
      { name: 'sieve', type: 'continuous', bounds: [0.25, 2], values: [0.25, 0.5, 1, 2] },
      { name: 'temperature', type: 'integer', bounds: [20, 600], step: 5 },
      { name: 'pressure', type: 'continuous', bounds: [1000, 1001] },
      { name: 'fixed', type: 'continuous', bounds: [0.3, 0.3] },
      { name: 'solvent', type: 'categorical', values: ['EC', '-DMC'] },
    ],
    objectives: [{ name: 'f', direction: 'minimize' }],
    optimizer: { method: 'cma-es', budget: 10 },
  });
  const values = [
    0.3999999999999716, 5.5784238574612535e-8, 0.999996, 0.0123456, 0.5, 0.55, 0.15, 0.95, 1.0000001e-6, 3.456789e-4, 0.3, 1000.12345, 1, 2, 0.45,
  ];
  const shape = (p: (typeof mdl.parameters)[number]) => ({ ...p, bounds: 'bounds' in p ? p.bounds : undefined });
  for (const p of mdl.parameters) {
    const sample = p.type === 'categorical' ? p.values : p.type === 'integer' ? [20, 23, 598.7] : values.filter((v) => v >= p.bounds[0] && v <= p.bounds[1]);
    for (const v of sample) assert.equal(formatParameter(v, shape(p)), parameterText(v, p), `${p.name} ${v}`);
  }
  const [ratio, salt, offset, dose, sieve] = mdl.parameters.map(shape);
  assert.deepEqual(
    [0.3999999999999716, 5.5784238574612535e-8, 0.999996, 0.0123456].map((v) => formatParameter(v, ratio)),
    ['0.4', '0', '1', '0.0123'],
  );
  assert.equal(formatParameter(0.5, salt), '0.50', "a stepped value keeps its step's decimals");
  assert.equal(formatParameter(0.15, offset), '0.15', 'a grid counted from its lower bound');
  assert.deepEqual(
    [1.0000001e-6, 3.456789e-4].map((v) => formatParameter(v, dose)),
    ['0.000001', '0.00034568'],
  );
  assert.equal(formatParameter(0.5000000001, sieve), '0.5', 'a listed value as the MDL lists it');
});

test('a worklist cell reads back as it was before the formula escape, in the dashboard as on the server', async () => {
  const fileSource = ts.transpileModule(readFileSync(new URL('../../web/src/worklist-file.ts', import.meta.url), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const { unescapeCell, columnName } = (await import(`data:text/javascript;base64,${Buffer.from(fileSource).toString('base64')}`)) as typeof WorklistFile;
  const texts = ['=1+1', ' =1+1', '\uFF1D1+1', '\uFF0B1', '-2', '@x', '\tleading tab', '\rreturn', "'quoted", "''twice", 'plain', ' space', "it's", ''];
  for (const text of texts) {
    const escaped = escapeFormula(text);
    assert.equal(unescapeFormula(escaped), text, JSON.stringify(text));
    assert.equal(unescapeCell(escaped), text, JSON.stringify(text));
  }
  assert.deepEqual(
    texts.map((t) => escapeFormula(t) !== t),
    [true, true, true, true, true, true, true, true, true, true, false, false, false, false],
  );
  assert.equal(columnName('conductivity (mS/cm)'), 'conductivity');
  assert.equal(columnName('status'), 'status');
});
