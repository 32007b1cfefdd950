import test from 'node:test';
import assert from 'node:assert/strict';
import { referenceDistance } from '../src/engine/campaign/reference-distance.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, EvaluationRecord } from '../src/engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/**
 * Progress before the reference point is reached: DTLZ2 with reference points that no point of
 * the initial design dominates (and that random sampling reaches rarely: with 5 parameters and
 * reference 0.75 both objectives need g < 0.06 and x1 within a narrow band, about 0.3 % of the
 * cube), 90 evaluations of 10 + 20 × 4. Every seed must have a point inside the reference box
 * proposed before half the budget was spent (in a batch proposed with at most 44 evaluations
 * spent), in the global and the trust-region strategy.
 */
function reachMdl(d: number, ref: number[], strategy: 'global' | 'trust-region', seed: number): Mdl {
  return mdlSchema.parse({
    name: 'reach',
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: ref.map((r, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: r })),
    optimizer: { method: 'cma-es', strategy, budget: 90, batch_size: 4, initial_samples: 10, seed, stagnation: { window: 1000, tolerance: 0 } },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
}

/** Runs the campaign until the hypervolume is positive or `limit` evaluations are spent; returns the state. */
async function runUntilInside(mdl: Mdl, limit: number): Promise<{ state: CampaignState; distances: number[] }> {
  const problem = testProblem('dtlz2')!;
  const m = mdl.objectives.length;
  let state = initialState(mdl);
  const distances: number[] = [];
  while (state.status === 'running' && state.evaluations.length < limit) {
    const next = await step(mdl, state);
    const results = next.proposals.map((p) => {
      const x = Float64Array.from(mdl.parameters, (q) => p.parameters[q.name] as number);
      const f = problem.evaluate(x, m);
      return { id: p.id, objectives: Object.fromEntries(mdl.objectives.map((o, j) => [o.name, f[j]])) };
    });
    state = tell(mdl, next.state, results).state;
    const distance = referenceDistance(mdl, state);
    if (!distance) break;
    distances.push(Math.max(...Object.values(distance.distance)));
  }
  return { state, distances };
}

const CASES = [
  { label: '5 parameters, 2 objectives, reference 0.75', d: 5, ref: [0.75, 0.75] },
  { label: '8 parameters, 3 objectives, reference 0.7', d: 8, ref: [0.7, 0.7, 0.7] },
];

for (const c of CASES) {
  for (const strategy of ['global', 'trust-region'] as const) {
    test(`DTLZ2 ${c.label}: the ${strategy} strategy is inside the reference box before half the budget on every seed`, async () => {
      for (const seed of [1, 2, 3]) {
        const mdl = reachMdl(c.d, c.ref, strategy, seed);
        const { state, distances } = await runUntilInside(mdl, 45);
        assert.ok(distances[0] > 0, `seed ${seed}: the initial design already reaches the reference box`);
        const inside = state.evaluations.filter((e) => mdl.objectives.every((o, j) => e.objectives![o.name] < c.ref[j]));
        assert.ok(
          inside.length > 0,
          `seed ${seed}: nothing inside the box after ${state.evaluations.length} evaluations (closest gaps ${distances.map((v) => v.toFixed(3)).join(' ')})`,
        );
        // the batch that brought it in was proposed before half the budget was spent
        const spentBefore = state.evaluations.length - mdl.optimizer.batch_size;
        assert.ok(spentBefore < 45, `seed ${seed}: entered after ${state.evaluations.length} evaluations (its batch proposed after ${spentBefore})`);
        assert.ok(state.convergenceHistory.at(-1)! > 0);
        assert.equal(state.strategy?.name, strategy);
      }
    });
  }
}

test('the reference distance names the closest feasible evaluation and its gap per objective, in MDL units and directions', () => {
  const mdl = mdlSchema.parse({
    name: 'gaps',
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [
      { name: 'cycles', direction: 'maximize', reference: 800 },
      { name: 'cost', direction: 'minimize', reference: 20 },
    ],
    optimizer: { budget: 10, seed: 1 },
  });
  const state = initialState(mdl);
  state.referencePoint = [-800, 20];
  const record = (id: string, cycles: number, cost: number): EvaluationRecord => ({ id, iteration: 1, parameters: { x: 0.5 }, objectives: { cycles, cost } });
  // spreads: cycles 800 − 500 = 300, cost 40 − 10 = 30. Worst scaled gaps: a max(300/300, 0) = 1,
  // b max(100/300, 20/30) = 0.667, c max(0, 5/30) = 0.167: c is closest
  state.evaluations = [record('a', 500, 10), record('b', 700, 40), record('c', 900, 25)];
  assert.deepEqual(referenceDistance(mdl, state), { evaluation_id: 'c', distance: { cycles: 0, cost: 5 } });
  // a point inside the box (more than 800 cycles, less than 20 USD/kg): the hypervolume measures progress instead
  state.evaluations.push(record('d', 850, 15));
  assert.equal(referenceDistance(mdl, state), null);
});

/**
 * The rule that starts the reach criterion counts only feasible points inside the box, in every
 * strategy: warm-start rows on a plane where one infeasible row lies inside the box (f1 = x,
 * f2 = 1 − x + y, reference (0.5, 0.6), feasible when y ≥ 0.5, so a feasible row with f1 < 0.5
 * has f2 > 1), and rows of which a third failed.
 */
function warmCampaign(strategy: 'global' | 'trust-region', constrained: boolean): Mdl {
  return mdlSchema.parse({
    parameters: ['x', 'y', 'z'].map((name) => ({ name, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 0.5 },
      { name: 'f2', direction: 'minimize', reference: 0.6 },
    ],
    ...(constrained ? { outcomes: [{ name: 'slack' }], outcome_constraints: [{ expression: 'slack >= 0' }] } : {}),
    optimizer: { strategy, budget: 40, batch_size: 4, initial_samples: 8, seed: 3 },
  });
}

const plane = (x: number, y: number) => ({ f1: x, f2: 1 - x + y });
const spread = Array.from({ length: 12 }, (_, i) => ({ x: (i * 0.618) % 1, y: (i * 0.371 + 0.5) % 1, z: (i * 0.29) % 1 }));
const warmRows = [...spread, { x: 0.45, y: 0.01, z: 0.5 }].map((p) => ({ parameters: p, objectives: plane(p.x, p.y), outcomes: { slack: p.y - 0.5 } }));

test('an infeasible point inside the box does not stop the reach criterion, in the global and the trust-region strategy', async () => {
  const inside = warmRows.filter((r) => r.objectives.f1 < 0.5 && r.objectives.f2 < 0.6);
  assert.deepEqual(
    inside.map((r) => r.outcomes.slack < 0),
    [true],
    'one row inside the box, and it is infeasible',
  );
  const acquisitionOf = async (strategy: 'global' | 'trust-region', constrained: boolean) => {
    const mdl = warmCampaign(strategy, constrained);
    const rows = constrained ? warmRows : warmRows.map(({ parameters, objectives }) => ({ parameters, objectives }));
    return (await step(mdl, initialState(mdl, { warmStart: rows }))).state.receipt!.acquisition;
  };
  // constrained, nothing feasible is inside: every pick of the first batch heads for the box
  assert.equal(await acquisitionOf('global', true), 'constrained reach');
  assert.equal(await acquisitionOf('trust-region', true), 'constrained thompson-reach');
  // without the constraint the same row is inside: improvement leads, reach picks fill the rest
  assert.equal(await acquisitionOf('global', false), 'ehvi + reach');
  // a lone region's batch ends with a pick of the global acquisition (trust-region/global-pick.ts)
  assert.equal(await acquisitionOf('trust-region', false), 'thompson-hvi + reach + global ehvi');
});

test('a campaign whose warm start has failed rows and none inside the box takes the reach criterion for the whole batch', async () => {
  const rows = spread.map((p, i) =>
    i % 3 === 0 ? { parameters: p, objectives: null, error: 'the simulation diverged' } : { parameters: p, objectives: plane(p.x, p.y) },
  );
  for (const [strategy, expected] of [
    ['global', 'constrained reach'],
    ['trust-region', 'thompson-reach + global reach'],
  ] as const) {
    const mdl = warmCampaign(strategy, false);
    const next = await step(mdl, initialState(mdl, { warmStart: rows }));
    assert.equal(next.state.receipt!.acquisition, expected, strategy);
    assert.equal(next.proposals.length, 4);
  }
});
