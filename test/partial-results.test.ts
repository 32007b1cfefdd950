import test from 'node:test';
import assert from 'node:assert/strict';
import { isComplete, isFeasible } from '../src/engine/campaign/feasibility.js';
import { observe } from '../src/engine/campaign/observations.js';
import { campaignResults } from '../src/engine/campaign/results.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { planStep, step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { SearchSpace } from '../src/engine/space.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function labMdl(overrides: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 2 },
      { name: 'f2', direction: 'minimize', reference: 2 },
    ],
    optimizer: { budget: 12, batch_size: 2, initial_samples: 4, seed: 3, max_failed_iterations: 1, ...overrides },
  });
}

/** The initial design of 4, told with the given results in proposal order. */
async function firstBatch(mdl: Mdl, results: (id: string) => Parameters<typeof tell>[2][number]): Promise<CampaignState> {
  const stepped = (await step(mdl, initialState(mdl, { seed: 3 }))).state;
  return tell(
    mdl,
    stepped,
    stepped.pending.map((p) => results(p.id)),
  ).state;
}

test('a partial measurement keeps what was measured and is no failure', async () => {
  const mdl = labMdl();
  let k = 0;
  const state = await firstBatch(mdl, (id) => {
    k += 1;
    if (k === 1) return { id, objectives: { f1: 0.5, f2: Number.NaN } };
    if (k === 2) return { id, objectives: { f1: Number.NaN, f2: Number.POSITIVE_INFINITY } };
    return { id, objectives: { f1: 0.2 * k, f2: 1 - 0.2 * k } };
  });
  const [partial, nothing, a, b] = state.evaluations;
  assert.deepEqual(partial.objectives, { f1: 0.5 }, 'the measured objective is kept, the unmeasured one left out');
  assert.equal(partial.error, undefined);
  assert.equal(nothing.objectives, null, 'no finite value at all is a failure');
  assert.match(nothing.error!, /no finite value for f1, f2/);
  assert.equal(isComplete(mdl, partial), false);
  assert.equal(isFeasible(mdl, partial), false, 'a partial measurement never enters the front');
  assert.equal(isComplete(mdl, a), true);

  const space = new SearchSpace(mdl);
  const o = observe(mdl, state, space);
  assert.equal(o.n, 2, 'the full-objective rows: the two complete evaluations');
  assert.deepEqual(o.ids, [a.id, b.id]);
  assert.equal(o.failed.length, 1, 'only the evaluation with nothing measured is a failure for the failure model');
  assert.deepEqual([...o.failed[0]], [...space.snap(space.encode(nothing.parameters))]);

  const r = campaignResults(mdl, state);
  assert.deepEqual(
    r.evaluations.map((e) => [e.id, e.is_pareto, e.feasible]),
    [
      [partial.id, false, false],
      [a.id, true, true],
      [b.id, true, true],
    ],
    'the partial one is listed with its value, off the front',
  );
  assert.deepEqual(r.evaluations[0].objectives, { f1: 0.5 });
  // hypervolume of the two complete points (0.6, 0.4) and (0.8, 0.2) against (2, 2): 1.4·1.6 + 1.2·0.2 = 2.48
  assert.ok(Math.abs(r.hypervolume - 2.48) < 1e-12, String(r.hypervolume));
});

test('abandoned candidates are no failures: they neither feed the failure model nor fail an iteration', async () => {
  const mdl = labMdl();
  const state = await firstBatch(mdl, (id) => ({ id, error: 'furnace down', abandoned: true }));
  assert.equal(state.iteration, 1, 'the batch is complete once every candidate has a result');
  assert.equal(state.status, 'running', 'max_failed_iterations 1 would fail a wholly failed iteration; an abandoned one is not');
  assert.ok(state.evaluations.every((e) => e.abandoned === true && e.objectives === null));
  assert.equal(observe(mdl, state, new SearchSpace(mdl)).failed.length, 0);

  const failedState = await firstBatch(mdl, (id) => ({ id, error: 'sample cracked' }));
  assert.equal(failedState.status, 'failed', 'the same batch failed (not abandoned) ends the campaign under max_failed_iterations 1');
  assert.equal(observe(mdl, failedState, new SearchSpace(mdl)).failed.length, 4);
});

test('a campaign with partial and abandoned results proposes its next batch', async () => {
  const mdl = labMdl();
  let k = 0;
  const state = await firstBatch(mdl, (id) => {
    k += 1;
    if (k === 1) return { id, objectives: { f1: 0.3, f2: Number.NaN } };
    if (k === 2) return { id, error: 'never measured', abandoned: true };
    return { id, objectives: { f1: 0.25 * k, f2: 1 - 0.25 * k } };
  });
  const next = await step(mdl, state);
  assert.equal(next.proposals.length, 2);
  for (const p of next.proposals) for (const v of Object.values(p.parameters)) assert.ok(Number(v) >= 0 && Number(v) <= 1);
});

test('a warm-start row that failed is a failure for the failure model, and replaces no initial design alone', async () => {
  const mdl = labMdl();
  const failedOnly = initialState(mdl, {
    seed: 3,
    warmStart: [{ parameters: { x: 0.9, y: 0.9 }, objectives: null, error: 'crucible cracked', externalId: 'S-03' }],
  });
  assert.deepEqual(failedOnly.evaluations[0], {
    id: 'warm_1',
    iteration: 0,
    parameters: { x: 0.9, y: 0.9 },
    objectives: null,
    error: 'crucible cracked',
    externalId: 'S-03',
  });
  const space = new SearchSpace(mdl);
  const o = observe(mdl, failedOnly, space);
  assert.equal(o.n, 0);
  assert.deepEqual([...o.failed[0]], [...space.snap(space.encode({ x: 0.9, y: 0.9 }))]);
  const first = await step(mdl, failedOnly);
  assert.equal(first.proposals.length, 4, 'with no measured warm-start row, the initial design (initial_samples 4) still runs');
  assert.equal(first.strategy, 'initial-design');
});

test('an off-plan experiment is told beside the batch: an evaluation of that iteration, seen by the models, no proposal', async () => {
  const mdl = labMdl();
  const stepped = (await step(mdl, initialState(mdl, { seed: 3 }))).state;
  const batch = stepped.pending;
  const told = tell(mdl, stepped, [
    { id: 'lab_1', objectives: { f1: 0.05, f2: 0.9 }, parameters: { x: 0.05, y: 0.5 } },
    ...batch.map((p, k) => ({ id: p.id, objectives: { f1: 0.2 + 0.2 * k, f2: 1 - 0.2 * k } })),
  ]);
  assert.ok(told.summary, 'the batch is complete: the off-plan result neither held nor replaced a candidate');
  const offPlan = told.state.evaluations.find((e) => e.id === 'lab_1')!;
  assert.deepEqual(offPlan, { id: 'lab_1', iteration: 1, parameters: { x: 0.05, y: 0.5 }, objectives: { f1: 0.05, f2: 0.9 }, offPlan: true });
  assert.equal(told.summary.evaluated, 5);
  const o = observe(mdl, told.state, new SearchSpace(mdl));
  assert.equal(o.n, 5);
  assert.ok(o.ids.includes('lab_1'));
  assert.throws(() => tell(mdl, stepped, [{ id: 'stray', objectives: { f1: 1, f2: 1 } }]), /does not match any pending candidate/);
});

test('the global model of each objective learns from the partial measurements that have it', async () => {
  const mdl = labMdl();
  let k = 0;
  const state = await firstBatch(mdl, (id) => {
    k += 1;
    if (k === 1) return { id, objectives: { f1: 0.5, f2: Number.NaN } };
    if (k === 2) return { id, error: 'sample cracked' };
    return { id, objectives: { f1: 0.2 * k, f2: 1 - 0.2 * k } };
  });
  const partialX = new SearchSpace(mdl).snap(new SearchSpace(mdl).encode(state.evaluations[0].parameters));
  const fits = planStep(mdl, state);
  assert.equal(state.strategy?.name ?? 'global', 'global');
  assert.deepEqual(
    fits.map((f) => f.n),
    [3, 2, 3],
    'f1 on the two complete rows and the partial one, f2 on the complete rows, the failure model on successes and the failure',
  );
  assert.deepEqual([...fits[0].X.subarray(2 * 2, 3 * 2)], [...partialX], 'the partial row enters the f1 model with its inputs');
  // f1's standardized targets: 0.6, 0.8 and the partial 0.5 (mean 0.6333, sd 0.1528)
  const raw = [0.6, 0.8, 0.5];
  const mean = raw.reduce((a, b) => a + b) / 3;
  const sd = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
  fits[0].y.forEach((v, i) => assert.ok(Math.abs(v - (raw[i] - mean) / sd) < 1e-12, `${v}`));
  const next = await step(mdl, state);
  assert.equal(next.proposals.length, 2);
});
