import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import test from 'node:test';
import { parse } from 'yaml';
import { parseMdl } from '../src/engine/mdl/parse.js';
import { mdlSchema, type Mdl, type Parameter } from '../src/engine/mdl/schema.js';
import { builtinEvaluatorIssues, domainSimulator, testProblem } from '../src/engine/problems/registry.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { packageRoot } from '../src/package-root.js';

const examplesDir = join(packageRoot(), 'examples');
const files = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

function load(file: string): Mdl {
  const result = mdlSchema.safeParse(parse(readFileSync(join(examplesDir, file), 'utf8')));
  if (!result.success) assert.fail(`${file}: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return result.data;
}

/** The middle of each parameter's range (first categorical value), as a candidate. */
function midpoint(parameters: Parameter[]): Record<string, number | string> {
  const values: Record<string, number | string> = {};
  for (const p of parameters) {
    if (p.type === 'categorical') values[p.name] = p.values[0];
    else if (p.scale === 'log') values[p.name] = Math.sqrt(p.bounds[0] * p.bounds[1]);
    else values[p.name] = (p.bounds[0] + p.bounds[1]) / 2;
  }
  return values;
}

test('the expected examples exist', () => {
  for (const name of ['zdt1', 'dtlz2', 'branin-currin', 'bnh-constrained', 'water-membrane', 'battery-cathode', 'command-evaluator']) {
    assert.ok(files.includes(`${name}.yaml`), `examples/${name}.yaml is missing`);
  }
});

test('every example is a valid MDL with name, domain, description and units, and its evaluator fits', () => {
  for (const file of files) {
    const mdl = load(file);
    assert.ok(mdl.name && mdl.domain && mdl.description, `${file} lacks name, domain or description`);
    for (const o of mdl.objectives) assert.ok(o.unit, `${file}: objective ${o.name} has no unit`);
    for (const p of mdl.parameters) if (p.type !== 'categorical') assert.ok(p.unit, `${file}: parameter ${p.name} has no unit`);
    assert.ok(mdl.evaluator, `${file} names no evaluator`);
    assert.deepEqual(builtinEvaluatorIssues(mdl), [], file);
  }
});

test('every example passes full MDL validation, constraint expressions included', () => {
  for (const file of files) {
    const result = parseMdl(readFileSync(join(examplesDir, file), 'utf8'), 'yaml');
    assert.ok(result.ok, `${file}: ${result.ok ? '' : JSON.stringify(result.errors)}`);
  }
});

test('builtin examples evaluate their midpoint to finite objectives', async () => {
  for (const file of files) {
    const mdl = load(file);
    if (mdl.evaluator?.type !== 'builtin') continue;
    const [outcome] = await createEvaluator(mdl, { allowCommand: false }).evaluate([{ parameters: midpoint(mdl.parameters) }]);
    assert.ok(outcome.ok, `${file}: ${outcome.ok ? '' : outcome.error}`);
    for (const o of mdl.objectives) assert.ok(Number.isFinite(outcome.objectives[o.name]), `${file}: ${o.name}`);
  }
});

test("examples state the problems' constraints and use the documented settings", () => {
  const bnh = load('bnh-constrained.yaml');
  assert.deepEqual(
    bnh.constraints.map((c) => c.expression),
    testProblem('bnh')!.constraints,
  );
  const battery = load('battery-cathode.yaml');
  assert.deepEqual(
    battery.constraints.map((c) => c.expression),
    domainSimulator('battery-cathode')!.constraints,
  );
  const zdt1 = load('zdt1.yaml');
  assert.equal(zdt1.parameters.length, 6);
  assert.equal(zdt1.optimizer.budget, 100);
  assert.equal(zdt1.optimizer.batch_size, 4);
  const dtlz2 = load('dtlz2.yaml');
  assert.equal(dtlz2.parameters.length, 6);
  assert.deepEqual(
    dtlz2.objectives.map((o) => o.reference),
    [1.1, 1.1],
  );
  assert.deepEqual(
    load('branin-currin.yaml').objectives.map((o) => o.reference),
    [18, 6],
  );
});

test('the command-evaluator example runs its toy simulator end to end', async () => {
  const mdl = load('command-evaluator.yaml');
  assert.throws(() => createEvaluator(mdl, { allowCommand: false }), { code: 'refused' });
  const evaluator = createEvaluator(mdl, { allowCommand: true, cwd: examplesDir });
  const outcomes = await evaluator.evaluate([
    { parameters: { cure_temperature_c: 110, filler_fraction: 0.25, solvent: 'water' } },
    { parameters: { cure_temperature_c: 160, filler_fraction: 0.25, solvent: 'water' } },
    { parameters: { cure_temperature_c: 110, filler_fraction: 0.25, solvent: 'acetone' } },
  ]);
  assert.equal(outcomes.length, 3);
  const [mid, hot, unknown] = outcomes;
  assert.ok(mid.ok && hot.ok);
  if (mid.ok && hot.ok) {
    // a hotter cure gives a harder, less flexible coating
    assert.ok(hot.objectives.hardness > mid.objectives.hardness);
    assert.ok(hot.objectives.flexibility < mid.objectives.flexibility);
  }
  assert.deepEqual(unknown, { ok: false, error: 'the command reported: unknown solvent "acetone"' });
});

test("the README's campaign is the shipped battery example and validates", () => {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'README has a YAML campaign');
  const parsed = parseMdl(block[1]);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.errors.map((e) => e.message).join('; '));
  const shipped = load('battery-cathode.yaml');
  assert.deepEqual(
    parsed.mdl.parameters.map((p) => [p.name, p.type === 'categorical' ? p.values : p.bounds]),
    shipped.parameters.map((p) => [p.name, p.type === 'categorical' ? p.values : p.bounds]),
  );
  assert.deepEqual(
    parsed.mdl.objectives.map((o) => o.name),
    shipped.objectives.map((o) => o.name),
  );
});
