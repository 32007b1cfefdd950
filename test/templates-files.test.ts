import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import test from 'node:test';
import { parseMdl } from '../src/engine/mdl/parse.js';
import type { Mdl } from '../src/engine/mdl/schema.js';
import { domainSimulator } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { createEvaluator } from '../src/evaluators/create.js';
import type { Evaluator } from '../src/evaluators/types.js';
import { runLocalCampaign } from '../src/jobs/local-runner.js';
import { packageRoot } from '../src/package-root.js';

await initTensorBackend('wasm');

const templatesDir = join(packageRoot(), 'templates');

/** Every YAML file under templates/, as paths relative to it (domain/name.yaml). */
function templateFiles(): string[] {
  return readdirSync(templatesDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

function load(file: string): Mdl {
  const result = parseMdl(readFileSync(join(templatesDir, file), 'utf8'), 'yaml');
  if (!result.ok) assert.fail(`${file}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return result.mdl;
}

const files = templateFiles();

test('the templates folder holds at least 8 templates over at least 3 domains, water and battery among them', () => {
  assert.ok(files.length >= 8, `only ${files.length} templates`);
  const domains = new Set(files.map((f) => dirname(f)));
  assert.ok(domains.size >= 3, `domains ${[...domains]}`);
  assert.ok(domains.has('water') && domains.has('battery'), `domains ${[...domains]}`);
  for (const f of files) assert.equal(f.split(/[/\\]/).length, 2, `${f} is not directly in a domain folder`);
});

test('every template validates without warnings and is described for people', () => {
  for (const file of files) {
    const result = parseMdl(readFileSync(join(templatesDir, file), 'utf8'), 'yaml');
    assert.ok(result.ok, `${file}: ${result.ok ? '' : JSON.stringify(result.errors)}`);
    assert.deepEqual(result.warnings, [], file);
    const mdl = result.mdl;
    assert.equal(mdl.domain, dirname(file), `${file}: domain must match its folder`);
    assert.match(basename(file, '.yaml'), /^[a-z0-9]+(-[a-z0-9]+)*$/, `${file}: name the file in kebab-case`);
    assert.ok(mdl.name && mdl.description && mdl.tags && mdl.tags.length > 0, `${file} lacks name, description or tags`);
    // a template is scored by one of Kiln's simulators, or by people who enter their lab's results
    if (mdl.evaluator?.type === 'external') assert.match(mdl.description, /results are entered by people/, `${file}: the description should say who measures`);
    else {
      assert.equal(mdl.evaluator?.type, 'builtin', file);
      assert.match(mdl.description, /Kiln's built-in/, `${file}: the description should say which evaluator it uses`);
    }
    for (const o of mdl.objectives) {
      assert.ok(o.unit, `${file}: objective ${o.name} has no unit`);
      assert.ok(o.reference !== undefined, `${file}: objective ${o.name} has no reference`);
    }
    for (const o of mdl.outcomes) assert.ok(o.unit, `${file}: outcome ${o.name} has no unit`);
    for (const p of mdl.parameters) if (p.type !== 'categorical') assert.ok(p.unit, `${file}: parameter ${p.name} has no unit`);
    assert.equal(mdl.optimizer.method, 'cma-es', file);
    assert.ok(mdl.optimizer.seed !== undefined, `${file} has no seed`);
  }
});

test('a people-entered template: an external evaluator, steps a lab can set, a categorical choice, an outcome constraint with its unit', () => {
  const external = files.filter((file) => load(file).evaluator?.type === 'external');
  assert.deepEqual(external, ['battery/electrolyte-lab-screening.yaml']);
  const mdl = load(external[0]);
  assert.equal(mdl.parameters.length, 5);
  assert.ok(
    mdl.parameters.some((p) => p.type === 'categorical'),
    'a categorical parameter',
  );
  for (const p of mdl.parameters) if (p.type !== 'categorical') assert.ok(p.step !== undefined, `${p.name} has the step a lab can set`);
  assert.deepEqual(
    mdl.outcome_constraints.map((c) => c.expression),
    ['viscosity <= 10'],
  );
  assert.deepEqual(
    mdl.outcomes.map((o) => [o.name, o.unit]),
    [['viscosity', 'mPa·s']],
  );
  assert.ok(mdl.optimizer.budget > 2 * (mdl.parameters.length + 1), 'the budget leaves room after the initial design');
});

/**
 * What a lab would measure for the people-entered electrolyte template: a made-up closed form
 * (conductivity peaks near 1.1 mol/L, viscosity grows with salt and EC), only to run the template.
 */
const labStandIn: Evaluator = {
  kind: 'external',
  evaluate: (batch) =>
    Promise.resolve(
      batch.map(({ parameters: p }) => {
        const salt = Number(p.salt_concentration);
        const ec = Number(p.ec_fraction);
        const additives = Number(p.fec_wt) + Number(p.vc_wt);
        return {
          ok: true as const,
          objectives: {
            conductivity: 11 - 6 * (salt - 1.1) ** 2 - 4 * (ec - 0.3) ** 2 - 0.1 * additives,
            oxidation_limit: 4.3 + 0.15 * salt + 0.02 * Number(p.fec_wt),
            cost: 12 + 6 * salt + 0.8 * additives + (p.co_solvent === 'DEC' ? 2 : 0),
          },
          outcomes: { viscosity: 2 + 4 * salt * salt + 6 * ec },
        };
      }),
    ),
};

test('every template runs its initial design and one model-guided batch end to end', async () => {
  const started = performance.now();
  for (const file of files) {
    const mdl = structuredClone(load(file));
    // smallest design the surrogate can fit, then one batch: enough to exercise every stage quickly
    const initial = mdl.parameters.length + 1;
    mdl.optimizer.initial_samples = initial;
    mdl.optimizer.budget = initial + mdl.optimizer.batch_size;
    const evaluator = mdl.evaluator?.type === 'external' ? labStandIn : createEvaluator(mdl, { allowCommand: false });
    const state = await runLocalCampaign(mdl, evaluator);
    assert.equal(state.status, 'completed', `${file}: ${state.status} (${state.stopReason})`);
    assert.equal(state.iteration, 2, file);
    assert.equal(state.evaluations.length, mdl.optimizer.budget, file);
    for (const e of state.evaluations) {
      assert.ok(e.objectives, `${file}: evaluation ${e.id} failed: ${e.error}`);
      for (const o of mdl.objectives) assert.ok(Number.isFinite(e.objectives[o.name]), `${file}: ${o.name} of ${e.id}`);
    }
    assert.equal(state.convergenceHistory.length, 2, file);
  }
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < 10, `all templates took ${seconds.toFixed(1)} s`);
});

test("science stays physical: every template's measured values stay inside their physical range, with and without noise", async () => {
  const random = new Random(17);
  for (const file of files) {
    const mdl = load(file);
    if (mdl.evaluator?.type !== 'builtin') continue;
    const simulator = domainSimulator(mdl.evaluator.name);
    if (!simulator) continue;
    const space = new SearchSpace(mdl);
    const candidates = Array.from({ length: 300 }, () => ({
      parameters: space.decode(space.repair(Float64Array.from({ length: space.dimension }, () => random.uniform()))),
    }));
    for (const noise of [0, 0.2, 1]) {
      const noisy = { ...mdl, evaluator: { ...mdl.evaluator, noise, seed: 5 } };
      const outcomes = await createEvaluator(noisy, { allowCommand: false }).evaluate(candidates);
      let checked = 0;
      for (const outcome of outcomes) {
        if (!outcome.ok) continue;
        for (const [name, value] of Object.entries({ ...outcome.objectives, ...outcome.outcomes })) {
          const [lo, hi] = simulator.objectives.find((o) => o.name === name)!.range;
          assert.ok(value >= lo && value <= hi, `${file}, noise ${noise}: ${name} = ${value} outside [${lo}, ${hi}]`);
          checked++;
        }
      }
      assert.ok(checked >= 200, `${file}, noise ${noise}: only ${checked} values checked`);
    }
  }
});
