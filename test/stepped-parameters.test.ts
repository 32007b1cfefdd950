import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, Proposal } from '../src/engine/campaign/types.js';
import { latinHypercube } from '../src/engine/design.js';
import { validateMdl } from '../src/engine/mdl/index.js';
import type { Mdl } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { parameterLevels, SearchSpace, unitGap, type NumericParameter } from '../src/engine/space.js';
import { regionBox } from '../src/engine/strategies/trust-region/candidates.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function mdlOf(parameters: unknown[], optimizer: Record<string, unknown> = {}, constraints: unknown[] = []): Mdl {
  const result = validateMdl({
    parameters,
    constraints,
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.2 },
      { name: 'f2', direction: 'minimize', reference: 1.2 },
    ],
    optimizer: { budget: 30, batch_size: 3, initial_samples: 6, seed: 3, ...optimizer },
  });
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return result.mdl;
}

function errorsOf(parameters: unknown[]): { path: string; message: string }[] {
  const result = validateMdl({ parameters, objectives: [{ name: 'f', direction: 'maximize' }], optimizer: { budget: 20 } });
  assert.equal(result.ok, false);
  return result.ok ? [] : result.errors;
}

/** Whether x is lower + k step for a whole k, and prints with no more decimals than the step. */
function onGrid(x: number, lower: number, step: number, places: number): boolean {
  const k = (x - lower) / step;
  const printed = String(x).split('.')[1]?.length ?? 0;
  return Math.abs(k - Math.round(k)) < 1e-9 && printed <= places;
}

test('a stepped continuous parameter decodes to its grid, printed to the step: a balance of 0.01 g, a furnace of 5 °C', () => {
  const space = new SearchSpace(
    mdlOf([
      { name: 'mass', type: 'continuous', bounds: [0, 2.5], step: 0.01 },
      { name: 'temperature', type: 'continuous', bounds: [500, 1000], step: 5 },
      { name: 'time', type: 'continuous', bounds: [0.5, 32], scale: 'log', step: 0.5 },
    ]),
  );
  const random = new Random(1);
  for (let i = 0; i < 2000; i++) {
    const u = [random.uniform(), random.uniform(), random.uniform()];
    const values = space.decode(u) as Record<string, number>;
    assert.ok(onGrid(values.mass, 0, 0.01, 2), `mass ${values.mass}`);
    assert.ok(onGrid(values.temperature, 500, 5, 0), `temperature ${values.temperature}`);
    assert.ok(onGrid(values.time, 0.5, 0.5, 1), `time ${values.time}`);
    // snapping is idempotent and agrees with decode
    const snapped = space.snap(u);
    assert.deepEqual(space.snap(snapped), snapped);
    assert.deepEqual(space.decode(snapped), values);
    assert.deepEqual(space.decode(space.encode(values)), values);
  }
  // hand-computed: 0.3 of [0, 2.5] is 0.75; 0.123 of [500, 1000] is 561.5 → 560 (nearest multiple of 5 from 500)
  assert.equal(space.decode([0.3, 0.123, 0])['mass'], 0.75);
  assert.equal(space.decode([0.3, 0.123, 0])['temperature'], 560);
  assert.equal(space.decode([0.3, 0.127, 1])['temperature'], 565);
  assert.equal(space.decode([0.3, 0.127, 1])['time'], 32, 'the upper bound is on the grid');
  assert.equal(space.decode([0.00301, 0, 0])['mass'], 0.01, '0.007525 rounds to 0.01');
});

test('a list of values: the nearest listed value, whole numbers for an integer, steps for an integer', () => {
  const space = new SearchSpace(
    mdlOf([
      { name: 'sieve', type: 'continuous', bounds: [0.5, 5], values: [5, 0.5, 1, 2] },
      { name: 'layers', type: 'integer', bounds: [0, 100], step: 5 },
      { name: 'pressure', type: 'integer', bounds: [1, 100], scale: 'log', values: [1, 10, 100] },
    ]),
  );
  // sieve units: 0.5 → 0, 1 → 1/9, 2 → 1/3, 5 → 1; 0.3 is nearest 1/3, 0.2 nearest 1/9
  assert.equal(space.decode([0.3, 0, 0]).sieve, 2);
  assert.equal(space.decode([0.2, 0, 0]).sieve, 1);
  assert.equal(space.decode([0.7, 0, 0]).sieve, 5);
  assert.equal(space.decode([0.3, 0.123, 0]).layers, 10, '12.3 → 10');
  assert.equal(space.decode([0.3, 0.13, 0]).layers, 15, '13 → 15');
  // log units of 1, 10, 100: 0, 0.5, 1
  assert.equal(space.decode([0, 0, 0.3]).pressure, 10);
  assert.equal(space.decode([0, 0, 0.2]).pressure, 1);
  assert.deepEqual(parameterLevels(space.parameters[0] as NumericParameter), [0.5, 1, 2, 5]);
  assert.deepEqual(parameterLevels(space.parameters[1] as NumericParameter)?.length, 21);
  assert.equal(unitGap(space.parameters[0] as NumericParameter), 1 - 1 / 3);
  assert.equal(unitGap(space.parameters[1] as NumericParameter), 0.05);
});

test('validation: a step that does not divide the range is refused with a message that says so, and so are bad values', () => {
  const [misfit] = errorsOf([{ name: 'x', type: 'continuous', bounds: [0, 1], step: 0.3 }]);
  assert.equal(misfit.path, 'parameters[0].step');
  assert.match(misfit.message, /step 0\.3 does not divide the range \[0, 1\]: 1 − 0 is 3\.33333 steps, not a whole number; .* or bounds \[0, 0\.9\]/);
  assert.deepEqual(
    errorsOf([{ name: 'x', type: 'continuous', bounds: [0, 1], step: 2 }]).map((e) => e.path),
    ['parameters[0].step'],
  );
  // 0.1 divides [0, 0.3] although 0.3 / 0.1 is 2.9999999999999996 in floating point
  assert.ok(
    validateMdl({
      parameters: [{ name: 'x', type: 'continuous', bounds: [0, 0.3], step: 0.1 }],
      objectives: [{ name: 'f', direction: 'maximize' }],
      optimizer: { budget: 5 },
    }).ok,
  );
  const errors = errorsOf([
    { name: 'a', type: 'continuous', bounds: [0, 1], step: 0.5, values: [0, 1] },
    { name: 'b', type: 'continuous', bounds: [0, 1], values: [0.5, 2, 0.5] },
    { name: 'c', type: 'integer', bounds: [0, 10], values: [1, 2.5] },
    { name: 'd', type: 'continuous', bounds: [0, 1], step: -1 },
    { name: 'e', type: 'integer', bounds: [0, 10], step: 0.5 },
  ]);
  assert.deepEqual(
    errors.map((e) => e.path),
    ['parameters[3].step', 'parameters[4].step', 'parameters[0].values', 'parameters[1].values[1]', 'parameters[1].values[2]', 'parameters[2].values[1]'],
  );
  assert.match(errors.find((e) => e.path === 'parameters[1].values[1]')!.message, /value 2 is outside the bounds \[0, 1\]/);
  assert.match(errors.find((e) => e.path === 'parameters[1].values[2]')!.message, /duplicate value 0.5/);
  assert.match(errors.find((e) => e.path === 'parameters[0].values')!.message, /either step or values, not both/);
});

/** Runs a campaign to its budget on ZDT1-like objectives of the first two parameters (scaled to [0, 1]); every proposal. */
async function run(mdl: Mdl): Promise<{ state: CampaignState; proposals: Proposal[]; noiseChecks: Proposal[] }> {
  let state = initialState(mdl);
  const proposals: Proposal[] = [];
  const noiseChecks: Proposal[] = [];
  const space = new SearchSpace(mdl);
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    proposals.push(...next.proposals);
    // the noise check re-measures an evaluated design on purpose, in its batch's last slot
    if (next.strategy.endsWith(' + noise check')) noiseChecks.push(next.proposals.at(-1)!);
    const results = next.proposals.map((p) => {
      const u = space.encode(p.parameters);
      const g = 1 + 9 * u[1];
      return { id: p.id, objectives: { f1: u[0], f2: g * (1 - Math.sqrt(u[0] / g)) } };
    });
    state = tell(mdl, next.state, results).state;
  }
  return { state, proposals, noiseChecks };
}

for (const strategy of ['global', 'trust-region', 'nsga2'] as const) {
  test(`${strategy}: every proposal is on the grid, and none repeats another after rounding`, async () => {
    // a coarse grid of 5 × 3 × 4 = 60 settings for a budget of 30: without care, repeats come soon
    const parameters = [
      { name: 'x', type: 'continuous', bounds: [0, 1], step: 0.25 },
      { name: 'y', type: 'continuous', bounds: [0, 1], step: 0.5 },
      { name: 'z', type: 'integer', bounds: [0, 30], values: [0, 10, 20, 30] },
    ];
    const mdl = mdlOf(parameters, strategy === 'nsga2' ? { method: 'nsga2' } : { strategy });
    const { state, proposals, noiseChecks } = await run(mdl);
    assert.equal(state.status, 'completed');
    assert.equal(proposals.length, 30);
    assert.equal(noiseChecks.length, strategy === 'nsga2' ? 0 : 1, 'one noise check in a model-guided campaign');
    for (const p of proposals) {
      assert.ok([0, 0.25, 0.5, 0.75, 1].includes(p.parameters.x as number), `x ${p.parameters.x}`);
      assert.ok([0, 0.5, 1].includes(p.parameters.y as number), `y ${p.parameters.y}`);
      assert.ok([0, 10, 20, 30].includes(p.parameters.z as number), `z ${p.parameters.z}`);
    }
    const chosen = proposals.filter((p) => !noiseChecks.includes(p));
    const settings = new Set(chosen.map((p) => JSON.stringify(p.parameters)));
    assert.equal(settings.size, chosen.length, 'no setting proposed twice but for the noise check');
    for (const check of noiseChecks) assert.ok(settings.has(JSON.stringify(check.parameters)), 'the noise check repeats a design');
  });
}

test('a trust region reaches at least the neighbouring values of a coarse grid', () => {
  const mdl = mdlOf([
    { name: 'x', type: 'continuous', bounds: [0, 1], step: 0.25 },
    { name: 'y', type: 'continuous', bounds: [0, 1] },
  ]);
  const space = new SearchSpace(mdl);
  const box = regionBox(space, Float64Array.from([0.5, 0.5]), {
    center: 'eval_1',
    length: 0.02,
    successes: 0,
    failures: 0,
    weights: null,
    hyperparameters: null,
  });
  assert.deepEqual([box.lower[0], box.upper[0]], [0.25, 0.75], 'one grid step each side');
  assert.ok(Math.abs(box.upper[1] - box.lower[1] - 0.02) < 1e-12, 'a continuous coordinate keeps the region length');
});

test('repair keeps stepped values on their grid while it meets a linear constraint', () => {
  const mdl = mdlOf(
    [
      { name: 'a', type: 'continuous', bounds: [0, 1], step: 0.1 },
      { name: 'b', type: 'continuous', bounds: [0, 1], step: 0.1 },
      { name: 'c', type: 'continuous', bounds: [0, 1] },
    ],
    {},
    [{ expression: 'a + b + c == 1' }],
  );
  const space = new SearchSpace(mdl);
  const random = new Random(4);
  let met = 0;
  for (let i = 0; i < 200; i++) {
    const repaired = space.decode(space.repair([random.uniform(), random.uniform(), random.uniform()])) as Record<string, number>;
    assert.ok(onGrid(repaired.a, 0, 0.1, 1) && onGrid(repaired.b, 0, 0.1, 1), JSON.stringify(repaired));
    // the constraint judged here, apart from the space: isFeasible must say the same
    const meets = Math.abs(repaired.a + repaired.b + repaired.c - 1) < 1e-6;
    assert.equal(space.isFeasible(repaired), meets, JSON.stringify(repaired));
    if (meets) met += 1;
  }
  // snapping a and b to their grid after the projection can undo it (a + b past 1 leaves c no room):
  // those few are reported infeasible above, and every caller ranks them below the feasible ones
  assert.ok(met >= 190, `${met} of 200 repaired points meet a + b + c == 1`);
});

test('the initial design of a space of stepped values alone enumerates it: all settings distinct while there are enough', () => {
  const mdl = mdlOf([
    { name: 'x', type: 'continuous', bounds: [0, 1], step: 0.5 },
    { name: 'y', type: 'integer', bounds: [0, 20], step: 10 },
  ]);
  const space = new SearchSpace(mdl);
  const design = latinHypercube(space, 9, new Random(2));
  const rows = Array.from({ length: 9 }, (_, i) => JSON.stringify(space.decode(design.subarray(i * 2, i * 2 + 2))));
  assert.equal(new Set(rows).size, 9, 'the nine settings of 3 × 3, each once');
});
