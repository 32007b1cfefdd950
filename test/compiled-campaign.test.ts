import test from 'node:test';
import assert from 'node:assert/strict';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';
import { objectiveSpreads } from '../src/engine/acquisition/reach.js';
import { compileCampaign } from '../src/engine/campaign/compiled.js';
import { evaluationSlacks, isFeasible } from '../src/engine/campaign/feasibility.js';
import { directionSigns, objectiveMatrix, referencePoint } from '../src/engine/campaign/objective-space.js';
import { observe } from '../src/engine/campaign/observations.js';
import { referenceDistance } from '../src/engine/campaign/reference-distance.js';
import { initialState } from '../src/engine/campaign/state.js';
import { compressTails } from '../src/engine/campaign/tail-warp.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { SearchSpace } from '../src/engine/space.js';

/** Two parameters, a minimized and a maximized objective, one outcome, an outcome constraint, a declared sd. */
function labMdl(overrides: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: [
      { name: 'temperature', type: 'continuous', bounds: [300, 900] },
      { name: 'dopant', type: 'categorical', values: ['Mg', 'Al', 'Ti'] },
    ],
    objectives: [
      { name: 'cost', direction: 'minimize', noise: { sd: 0.5 } },
      { name: 'capacity', direction: 'maximize', reference: 150 },
    ],
    outcomes: [{ name: 'cycles' }],
    outcome_constraints: [{ expression: 'cycles >= 500' }],
    optimizer: { budget: 40, batch_size: 3, initial_samples: 6, seed: 2, acquisition: 'parego', ...overrides },
  });
}

const ROWS = [
  { id: 'a', parameters: { temperature: 400, dopant: 'Mg' }, objectives: { cost: 12, capacity: 120 }, outcomes: { cycles: 800 } },
  { id: 'b', parameters: { temperature: 650, dopant: 'Al' }, objectives: { cost: 7, capacity: 160 }, outcomes: { cycles: 300 } },
  { id: 'c', parameters: { temperature: 820, dopant: 'Ti' }, objectives: { cost: 9, capacity: 155 }, outcomes: { cycles: 620 } },
  { id: 'd', parameters: { temperature: 500, dopant: 'Al' }, objectives: { cost: 15, capacity: 140 }, outcomes: { cycles: 900 } },
];

test('the compiled campaign holds what the MDL and the state give by the functions a step used to call', () => {
  const mdl = labMdl();
  const state = initialState(mdl, { warmStart: ROWS });
  const space = new SearchSpace(mdl);
  const campaign = compileCampaign(mdl, state, space, false);
  // signs: minimized +1, maximized −1
  assert.deepEqual(Array.from(campaign.signs), Array.from(directionSigns(mdl)));
  assert.deepEqual(Array.from(campaign.signs), [1, -1]);
  assert.equal(campaign.space, space);
  assert.deepEqual(campaign.noiseSd, [0.5, undefined]);
  assert.deepEqual([campaign.budget, campaign.batchSize, campaign.acquisition], [40, 3, 'parego']);
  // observations exactly as observe() builds them
  assert.deepEqual(campaign.observations, observe(mdl, state, space));
  // the reference point: cost inferred from the data (worst 15 plus 10 % of the range 8), capacity declared (−150)
  const { Y, n } = objectiveMatrix(mdl, state.evaluations);
  assert.deepEqual(campaign.observations.ref, referencePoint(mdl, Y, n));
  assert.ok(Math.abs(campaign.observations.ref[0] - 15.8) < 1e-12);
  assert.equal(campaign.observations.ref[1], -150);
  // slacks and feasibility per row: cycles − 500
  ROWS.forEach((row, i) => {
    const record = state.evaluations[i];
    assert.deepEqual([campaign.observations.C[i]], evaluationSlacks(mdl, record));
    assert.equal(campaign.observations.C[i], row.outcomes.cycles - 500);
    assert.equal(campaign.observations.feasible[i], isFeasible(mdl, record) ? 1 : 0);
  });
  // the reach frame over those observations: feasible rows a, c, d; inside (cost < 15.8, capacity > 150): c only
  const frame = campaign.reach!;
  assert.deepEqual(frame.feasibleRows, [0, 2, 3]);
  assert.equal(frame.inside, 1);
  assert.deepEqual(Array.from(frame.scale), Array.from(objectiveSpreads(campaign.observations.Y, n, 2, campaign.observations.ref)));
});

test('a GP strategy compiles the tail-compressed observations, and no reach frame exists before a reference point', () => {
  const base = labMdl();
  // a declared cost reference and no declared noise (a noisy campaign's values stay as measured): the tail beyond it is compressed
  const mdl = mdlSchema.parse({ ...base, objectives: [{ name: 'cost', direction: 'minimize', reference: 30 }, base.objectives[1]] });
  const rows = Array.from({ length: 12 }, (_, i) => ({
    id: `r${i}`,
    parameters: { temperature: 300 + 50 * i, dopant: 'Mg' },
    // one cost a million times the others: a heavy tail the GP strategies compress
    objectives: { cost: i === 11 ? 1e7 : 10 + i, capacity: 100 + i },
    outcomes: { cycles: 600 },
  }));
  const state = initialState(mdl, { warmStart: rows });
  const space = new SearchSpace(mdl);
  const compressed = compileCampaign(mdl, state, space, true);
  assert.deepEqual(compressed.observations, compressTails(observe(mdl, state, space)));
  assert.ok(compressed.observations.Y[11 * 2] < 1e6, 'the tail is compressed');
  assert.equal(compressed.reach!.Y, compressed.observations.Y, 'the frame judges the values the model sees');
  const empty = initialState(mdl);
  assert.equal(compileCampaign(mdl, empty, space, true).reach, null);
});

test('the progress report closest to the box is the reach frame closest, on the measured values', () => {
  const mdl = labMdl({});
  // nothing inside: capacity reference 170 not met by any row
  const strict = mdlSchema.parse({ ...mdl, objectives: [mdl.objectives[0], { ...mdl.objectives[1], reference: 170 }] });
  const state = initialState(strict, { warmStart: ROWS });
  const distance = referenceDistance(strict, state)!;
  const { Y, n, rows } = objectiveMatrix(strict, state.evaluations);
  const frame = new ReachFrame(
    Y,
    n,
    2,
    state.referencePoint!,
    Uint8Array.from(rows, (r) => (isFeasible(strict, state.evaluations[r]) ? 1 : 0)),
  );
  assert.equal(distance.evaluation_id, state.evaluations[rows[frame.closest()]].id);
  // by hand: ref (15.8, −170), scale over all four rows: cost 15.8 − 7 = 8.8, capacity −120 − (−170) = 50;
  // a: max(−3.8/8.8, 50/50) = 1; c: max(−6.8/8.8, 15/50) = 0.3; d: max(−0.8/8.8, 30/50) = 0.6 (b infeasible)
  assert.equal(distance.evaluation_id, 'c');
  assert.deepEqual(distance.distance, { cost: 0, capacity: 15 });
});

test("the reach frame reads the rows' iterations for its latest-miss rule, except where the observations are noisy", () => {
  const noisyMdl = labMdl();
  const space = new SearchSpace(noisyMdl);
  const noisy = compileCampaign(noisyMdl, initialState(noisyMdl, { warmStart: ROWS }), space, false);
  assert.equal(noisy.observations.noisy, true, 'cost declares its noise');
  assert.equal(noisy.reach!.iterations, null);
  assert.equal(noisy.reach!.latestMissed, false);
  const exactMdl = mdlSchema.parse({
    ...noisyMdl,
    objectives: [
      { name: 'cost', direction: 'minimize' },
      { name: 'capacity', direction: 'maximize', reference: 150 },
    ],
  });
  const exact = compileCampaign(exactMdl, initialState(exactMdl, { warmStart: ROWS }), space, false);
  assert.equal(exact.observations.noisy, false);
  assert.deepEqual(Array.from(exact.reach!.iterations!), Array.from(exact.observations.iterations));
  // every row is the warm start's (iteration 0): no iteration of the campaign's has missed yet
  assert.equal(exact.reach!.latestMissed, false);
});
