import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { parse } from 'yaml';
import type * as Draft from '../web/src/lab-campaign-draft.js';

/**
 * The people-entered campaign form's document: what each field makes of what is typed, a template
 * read into the form and sent back unchanged, and the API's problems placed at their fields. The
 * module imports nothing at run time, so its source is transpiled here (vite builds the dashboard).
 */
const source = ts.transpileModule(readFileSync(new URL('../../web/src/lab-campaign-draft.ts', import.meta.url), 'utf8'), {
  compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
}).outputText;
const { blankDraft, blankParameter, blankObjective, blankOutcome, blankConstraint, draftOfMdl, fieldKeys, mdlOfDraft, placeProblems } = (await import(
  `data:text/javascript;base64,${Buffer.from(source).toString('base64')}`
)) as typeof Draft;

test('the empty form makes an external campaign with one blank parameter and objective, nothing invented', () => {
  assert.deepEqual(mdlOfDraft(blankDraft()), {
    parameters: [{ type: 'continuous' }],
    objectives: [{ direction: 'maximize' }],
    optimizer: {},
    evaluator: { type: 'external' },
  });
});

test('typed fields become the document: numbers as numbers, other text as typed for the API to judge, one bound alone beside a null', () => {
  const draft = blankDraft();
  draft.name = ' Electrolyte screen ';
  draft.domain = 'battery';
  draft.parameters = [
    { ...blankParameter(), name: 'salt', lower: '0.5', upper: '2', step: '0.05', unit: 'mol/L' },
    { ...blankParameter(), name: 'ec', lower: '0,1', upper: '', unit: '' },
    { ...blankParameter(), name: 'sieve', lower: '45', upper: '250', values: '45, 63, 125,250' },
    // a categorical parameter keeps only its choices, whatever was typed before its type changed
    { ...blankParameter(), name: 'solvent', type: 'categorical', lower: '1', upper: '2', step: '1', unit: 'x', values: 'EMC, DMC, 1' },
  ];
  draft.objectives = [
    { ...blankObjective(), name: 'conductivity', unit: 'mS/cm', reference: '5' },
    { ...blankObjective(), name: 'cost', direction: 'minimize', reference: '1e1' },
  ];
  draft.outcomes = [{ ...blankOutcome(), name: 'viscosity', unit: 'mPa·s' }];
  draft.outcomeConstraints = [{ ...blankConstraint(), expression: ' viscosity <= 10 ' }];
  draft.budget = '30';
  draft.batchSize = 'four';
  assert.deepEqual(mdlOfDraft(draft), {
    name: 'Electrolyte screen',
    domain: 'battery',
    parameters: [
      { name: 'salt', type: 'continuous', bounds: [0.5, 2], step: 0.05, unit: 'mol/L' },
      { name: 'ec', type: 'continuous', bounds: ['0,1', null] },
      { name: 'sieve', type: 'continuous', bounds: [45, 250], values: [45, 63, 125, 250] },
      { name: 'solvent', type: 'categorical', values: ['EMC', 'DMC', 1] },
    ],
    objectives: [
      { name: 'conductivity', direction: 'maximize', unit: 'mS/cm', reference: 5 },
      { name: 'cost', direction: 'minimize', reference: 10 },
    ],
    outcomes: [{ name: 'viscosity', unit: 'mPa·s' }],
    outcome_constraints: [{ expression: 'viscosity <= 10' }],
    optimizer: { budget: 30, batch_size: 'four' },
    evaluator: { type: 'external' },
  });
});

test('a template read into the form is sent back as it was, members without a field included, its evaluator people', () => {
  const simulated = parse(readFileSync(new URL('../../templates/battery/cathode-cycle-life-floor.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
  // the form trims what is typed, the folded description's last line break too
  assert.deepEqual(mdlOfDraft(draftOfMdl(simulated)), { ...simulated, description: String(simulated.description).trim(), evaluator: { type: 'external' } });
  const lab = parse(readFileSync(new URL('../../templates/battery/electrolyte-lab-screening.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
  const draft = draftOfMdl(lab);
  assert.equal(draft.parameters[0].step, '0.05');
  assert.equal(draft.parameters[2].values, 'EMC, DMC, DEC');
  assert.deepEqual(draft.parameters[0].extra, { description: 'LiPF6 concentration' });
  assert.deepEqual(mdlOfDraft(draft), { ...lab, description: String(lab.description).trim() });
});

test("the API's problems go to the most specific place the form has for them, the rest apart", () => {
  const draft = blankDraft();
  draft.outcomeConstraints = [blankConstraint()];
  const problems = [
    { path: 'parameters[0].bounds[1]', message: 'expected a number' },
    { path: 'parameters[0].bounds', message: 'lower bound 2 must be below upper bound 0.5' },
    { path: 'parameters[0].scale', message: 'log needs a positive lower bound' },
    { path: 'objectives', message: 'needs at least one item' },
    { path: 'outcome_constraints[0].expression', message: 'unknown outcome "zz"' },
    { path: 'optimizer.initial_samples', message: 'too large' },
    { path: 'parameters[3].name', message: 'a row the form does not have' },
    { path: '', message: 'the document is not an object' },
    { path: 'name', message: 'is required' },
  ];
  const { at, unplaced } = placeProblems(problems, fieldKeys(draft));
  assert.deepEqual(
    at.get('parameters[0].bounds')?.map((p) => p.message),
    ['expected a number', 'lower bound 2 must be below upper bound 0.5'],
  );
  assert.deepEqual(
    at.get('parameters[0]')?.map((p) => p.message),
    ['log needs a positive lower bound'],
  );
  assert.deepEqual(
    at.get('objectives')?.map((p) => p.message),
    ['needs at least one item'],
  );
  assert.deepEqual(
    at.get('outcome_constraints[0].expression')?.map((p) => p.message),
    ['unknown outcome "zz"'],
  );
  assert.deepEqual(
    at.get('name')?.map((p) => p.message),
    ['is required'],
  );
  // a row the form does not have is the list's problem
  assert.deepEqual(
    at.get('parameters')?.map((p) => p.path),
    ['parameters[3].name'],
  );
  assert.deepEqual(
    unplaced.map((p) => p.path),
    ['optimizer.initial_samples', ''],
  );
});
