import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { feasibleShare, parseMdl, validateMdl, type MdlIssue, type ValidateOptions } from '../src/engine/mdl/index.js';
import { builtinEvaluators } from '../src/engine/problems/registry.js';
import { SearchSpace } from '../src/engine/space.js';
import { packageRoot } from '../src/package-root.js';

/** Two objectives on the unit square: clean, and the base every crafted variant changes one thing in. */
function clean(): Record<string, any> {
  return {
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    constraints: [{ expression: 'x1 + x2 <= 1' }],
    optimizer: { budget: 30 },
    evaluator: { type: 'builtin', name: 'zdt1' },
  };
}

function warningsOf(document: unknown, options: ValidateOptions = { builtins: builtinEvaluators }): MdlIssue[] {
  const result = validateMdl(document, options);
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.warnings;
}

function variant(change: (doc: Record<string, any>) => void): Record<string, any> {
  const doc = clean();
  change(doc);
  return doc;
}

test('a clean campaign gets no pre-flight warning', () => {
  assert.deepEqual(warningsOf(clean()), []);
});

test('the feasible share is estimated within a tolerance of the hand-computed one', () => {
  const share = (expression: string) => {
    const result = validateMdl(variant((d) => (d.constraints = [{ expression }])));
    assert.ok(result.ok);
    return feasibleShare(result.mdl)!.share;
  };
  // the triangle x1 + x2 <= 0.1 in the unit square has area 0.1^2 / 2
  assert.ok(Math.abs(share('x1 + x2 <= 0.1') - 0.005) < 0.001, `${share('x1 + x2 <= 0.1')}`);
  assert.ok(Math.abs(share('x1 + x2 <= 1') - 0.5) < 0.01);
  assert.ok(Math.abs(share('x1^2 + x2^2 <= 1') - Math.PI / 4) < 0.01);
  assert.equal(share('x1 + x2 <= 0.1'), share('x1 + x2 <= 0.1'), 'deterministic');
});

test('a small feasible share is a warning that states the share; an empty one says so', () => {
  const [small] = warningsOf(variant((d) => (d.constraints = [{ expression: 'x1 + x2 <= 0.1' }])));
  assert.equal(small.path, 'constraints');
  assert.match(small.message, /^only about 0\.\d+ % of the parameter box meets the constraints \(estimated from 4096 sampled points\)/);
  const percent = Number(/about ([\d.]+) %/.exec(small.message)![1]);
  assert.ok(Math.abs(percent - 0.5) < 0.1, small.message);

  const two = warningsOf(variant((d) => (d.constraints = [{ expression: 'x1 <= 0.5' }, { expression: 'x2 <= 0.02' }])));
  assert.match(two[0].message, /constraints\[1\] alone admits 2(\.0)? %/);

  const [none] = warningsOf(variant((d) => (d.constraints = [{ expression: 'x1 + x2 >= 2.5' }])));
  assert.match(none.message, /^none of 4096 points sampled across the parameter box meets the constraints/);
});

test('equality constraints are left out of the share: the engine projects onto them', () => {
  const doc = variant((d) => {
    d.parameters.push({ name: 'x3', type: 'continuous', bounds: [0, 1] });
    d.constraints = [{ expression: 'x1 + x2 + x3 == 1' }];
  });
  assert.deepEqual(warningsOf(doc), []);
});

test('a parameter fixed by its bounds or by a single value is a warning', () => {
  const fixed = warningsOf(variant((d) => (d.parameters[1].bounds = [0.3, 0.3])));
  assert.deepEqual(
    fixed.map((w) => w.path),
    ['parameters[1].bounds'],
  );
  assert.match(fixed[0].message, /both bounds are 0\.3, so "x2" is fixed/);
  const single = warningsOf(variant((d) => d.parameters.push({ name: 'solvent', type: 'categorical', values: ['water'] })));
  assert.deepEqual(
    single.map((w) => w.path),
    ['parameters[2].values'],
  );
  assert.match(single[0].message, /"solvent" has the single value "water", so it is fixed/);
});

test('a fixed parameter encodes to one point, so the optimizer sees it as constant', () => {
  const result = validateMdl(variant((d) => (d.parameters[1].bounds = [0.3, 0.3])));
  assert.ok(result.ok);
  const space = new SearchSpace(result.mdl);
  assert.deepEqual(Array.from(space.encode({ x1: 0.5, x2: 0.3 })), [0.5, 0]);
  assert.deepEqual(space.decode([0.5, 0.8]), { x1: 0.5, x2: 0.3 });
  assert.deepEqual(Array.from(space.snap([0.5, 0.8])), [0.5, 0]);
});

test('a budget no larger than the initial design is a warning', () => {
  for (const initial of [30, 40]) {
    const [warning] = warningsOf(variant((d) => (d.optimizer.initial_samples = initial)));
    assert.equal(warning.path, 'optimizer.initial_samples');
    assert.match(warning.message, new RegExp(`budget of 30 evaluations is no larger than the initial design of ${initial}.*none is model-guided`));
  }
  const nsga2 = warningsOf(variant((d) => Object.assign(d.optimizer, { method: 'nsga2', batch_size: 30 })));
  assert.deepEqual(
    nsga2.map((w) => w.path),
    ['optimizer.budget'],
  );
  assert.match(nsga2[0].message, /no generation is bred from it/);
  assert.deepEqual(warningsOf(variant((d) => Object.assign(d.optimizer, { method: 'lhs', initial_samples: 30 }))), [], 'lhs has no model to guide');
  const warm = variant((d) => (d.optimizer.initial_samples = 30));
  assert.deepEqual(warningsOf(warm, { builtins: builtinEvaluators, warmStart: true }), [], 'a dataset replaces the design');
});

test('a budget given outside the document (kiln run --budget) is the one pre-flight weighs', () => {
  const design = variant((d) => (d.optimizer.initial_samples = 20));
  assert.deepEqual(warningsOf(design), [], "the file's budget of 30 leaves room after the design of 20");
  const [warning] = warningsOf(design, { builtins: builtinEvaluators, budget: 12 });
  assert.match(warning.message, /budget of 12 evaluations is no larger than the initial design of 20/);
  const result = validateMdl(design, { budget: 12 });
  assert.ok(result.ok && result.mdl.optimizer.budget === 12, 'the validated campaign carries the budget that will run');
  assert.deepEqual(
    warningsOf(
      variant((d) => (d.optimizer.budget = 10)),
      { builtins: builtinEvaluators, budget: 90 },
    ),
    [],
    "a raised budget clears the file's warning",
  );
});

test('a reference no evaluation can beat is a warning where the evaluator is known', () => {
  const beyond = variant((d) => (d.objectives[0].reference = -0.5));
  const [warning] = warningsOf(beyond);
  assert.equal(warning.path, 'objectives[0].reference');
  assert.match(warning.message, /no evaluation can beat the reference -0\.5: "f1" never falls below 0 for this evaluator/);
  assert.deepEqual(warningsOf(variant((d) => (d.objectives[0].reference = 1.1))), [], 'a reachable reference');
  assert.deepEqual(warningsOf(beyond, {}), [], 'without the builtins nothing can be judged');
  const noisy = variant((d) => {
    d.objectives[0].reference = -0.5;
    d.evaluator.noise = 0.1;
  });
  assert.deepEqual(warningsOf(noisy), [], 'noise can carry a value anywhere');

  const membrane = parseMdl(readFileSync(join(packageRoot(), 'examples', 'water-membrane.yaml'), 'utf8'), 'yaml');
  assert.ok(membrane.ok);
  const rejection = structuredClone(membrane.mdl);
  rejection.objectives[1].reference = 101;
  const simulated = warningsOf(rejection);
  assert.deepEqual(
    simulated.map((w) => w.path),
    ['objectives[1].reference'],
  );
  assert.match(simulated[0].message, /"salt_rejection" never rises above 100/);
});

test('an unknown builtin evaluator name is reported with the other problems in one pass', () => {
  const result = validateMdl(
    variant((d) => {
      d.evaluator.name = 'zdt9';
      d.parameters[0].bounds = [1, 0];
      d.optimizer.budget = 0;
    }),
    { builtins: builtinEvaluators },
  );
  assert.ok(!result.ok);
  assert.deepEqual(result.errors.map((e) => e.path).sort(), ['evaluator.name', 'optimizer.budget', 'parameters[0].bounds']);
  assert.match(result.errors.find((e) => e.path === 'evaluator.name')!.message, /^unknown builtin evaluator 'zdt9'; known: zdt1, /);
});

test('the MDL layer does not import the problems built on it', () => {
  const dir = join(packageRoot(), 'src', 'engine', 'mdl');
  for (const file of readdirSync(dir)) {
    assert.doesNotMatch(readFileSync(join(dir, file), 'utf8'), /from '\.\.\/problems\//, file);
  }
});
