import test from 'node:test';
import assert from 'node:assert/strict';
import { campaignResults } from '../src/engine/campaign/results.js';
import { budgetUsed, initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, EvaluationResult } from '../src/engine/campaign/types.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function toyMdl(overrides: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.2 },
      { name: 'f2', direction: 'maximize', reference: -1.2 },
    ],
    optimizer: { budget: 14, batch_size: 2, initial_samples: 6, seed: 5, ...overrides },
  });
}

/** A smooth two-objective toy: f1 = x, f2 = -(1 - sqrt(x)) - y (f2 maximized). */
function evaluate(parameters: Record<string, number | string>): Record<string, number> {
  const x = Number(parameters.x);
  const y = Number(parameters.y);
  return { f1: x, f2: -(1 - Math.sqrt(x)) - y };
}

async function runToEnd(mdl: Mdl, state: CampaignState): Promise<{ state: CampaignState; batches: string[] }> {
  const batches: string[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    batches.push(JSON.stringify(next.proposals));
    const results: EvaluationResult[] = next.proposals.map((p) => ({ id: p.id, objectives: evaluate(p.parameters) }));
    state = tell(mdl, next.state, results).state;
  }
  return { state, batches };
}

test('the same seed and data give identical proposals; the state survives a JSON round trip', async () => {
  const mdl = toyMdl();
  const a = await runToEnd(mdl, initialState(mdl));
  const b = await runToEnd(mdl, initialState(mdl));
  assert.deepEqual(a.batches, b.batches);
  const other = await runToEnd(toyMdl({ seed: 6 }), initialState(toyMdl({ seed: 6 })));
  assert.notDeepEqual(a.batches[1], other.batches[1]);

  const first = await step(mdl, initialState(mdl));
  const told = tell(
    mdl,
    first.state,
    first.proposals.map((p) => ({ id: p.id, objectives: evaluate(p.parameters) })),
  ).state;
  const revived = JSON.parse(JSON.stringify(told)) as CampaignState;
  assert.deepEqual((await step(mdl, revived)).proposals, (await step(mdl, told)).proposals);
});

test('the loop spends exactly the budget: initial design, then batches, then completed', async () => {
  const mdl = toyMdl();
  const { state, batches } = await runToEnd(mdl, initialState(mdl));
  assert.equal(state.status, 'completed');
  assert.equal(state.stopReason, 'budget');
  assert.deepEqual(
    batches.map((b) => JSON.parse(b).length),
    [6, 2, 2, 2, 2],
  );
  assert.equal(state.evaluations.length, 14);
  assert.equal(state.convergenceHistory.length, 5);
  for (let i = 1; i < state.convergenceHistory.length; i++) {
    assert.ok(state.convergenceHistory[i] >= state.convergenceHistory[i - 1], 'hypervolume never decreases');
  }
  const results = campaignResults(mdl, state);
  assert.equal(results.hypervolume, state.convergenceHistory.at(-1));
  assert.deepEqual(results.reference_point, { f1: 1.2, f2: -1.2 });
  const Y = Float64Array.from(results.pareto_front.flatMap((r) => [r.objectives.f1, -r.objectives.f2]));
  assert.ok(Math.abs(hypervolume(Y, results.pareto_front.length, 2, [1.2, 1.2]) - results.hypervolume) < 1e-12);
});

test('model-based proposals improve on the initial design of a simple problem', async () => {
  const mdl = toyMdl({ budget: 16, batch_size: 2 });
  const { state } = await runToEnd(mdl, initialState(mdl));
  const history = state.convergenceHistory;
  assert.ok(history.at(-1)! > history[0], `hypervolume ${history[0]} → ${history.at(-1)}`);
  // y = 0 is optimal for every x; the model should learn to propose small y
  const later = state.evaluations.filter((e) => e.iteration > 1);
  const meanY = later.reduce((acc, e) => acc + Number(e.parameters.y), 0) / later.length;
  assert.ok(meanY < 0.25, `mean y of model-based proposals ${meanY}`);
});

test('warm-start rows skip the initial design and do not consume budget', async () => {
  const mdl = toyMdl({ budget: 4 });
  const warmStart = [0.1, 0.4, 0.7, 0.9].map((x, i) => {
    const parameters = { x, y: (i * 0.37) % 1 };
    return { parameters, objectives: evaluate(parameters) };
  });
  const state = initialState(mdl, { warmStart });
  const first = await step(mdl, state);
  // a model-based batch at once; the warm start's points inside the box are fewer than 3m, so half
  // of it takes the reach criterion, and with no noise declared and no design measured twice it
  // re-measures one warm-start design (the noise check)
  assert.equal(first.strategy, 'ehvi + reach + noise check');
  assert.ok(warmStart.some((row) => row.parameters.x === first.proposals[1].parameters.x && row.parameters.y === first.proposals[1].parameters.y));
  assert.equal(first.proposals.length, 2);
  const { state: finished } = await runToEnd(mdl, state);
  assert.equal(finished.evaluations.filter((e) => e.iteration === 0).length, 4);
  assert.equal(finished.evaluations.filter((e) => e.iteration > 0).length, 4);
  assert.equal(finished.convergenceHistory.length, 2);
});

test('stagnation stops a campaign whose hypervolume no longer grows', async () => {
  const mdl = toyMdl({ budget: 40, stagnation: { window: 2, tolerance: 0.5 } });
  const { state } = await runToEnd(mdl, initialState(mdl));
  assert.equal(state.status, 'converged');
  assert.equal(state.stopReason, 'stagnation');
  assert.ok(state.evaluations.length < 40);
});

test('failed evaluations are recorded, not dropped; max_failed_iterations of total failure fail the campaign', async () => {
  const mdl = toyMdl();
  assert.equal(mdl.optimizer.max_failed_iterations, 3);
  let state = initialState(mdl);
  for (let k = 0; k < 3; k++) {
    assert.equal(state.status, 'running', `still running after ${k} failed iterations`);
    const next = await step(mdl, state);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, error: `simulator crashed ${k}` })),
    ).state;
  }
  assert.equal(state.status, 'failed');
  assert.equal(state.stopReason, 'error');
  assert.match(state.stopMessage ?? '', /failed in the last 3 iterations .*simulator crashed 2/);
  assert.ok(state.evaluations.every((e) => e.objectives === null && e.error?.startsWith('simulator crashed')));

  const patient = toyMdl({ budget: 40, max_failed_iterations: 0 });
  let kept = initialState(patient);
  for (let k = 0; k < 5; k++) {
    const next = await step(patient, kept);
    kept = tell(
      patient,
      next.state,
      next.proposals.map((p) => ({ id: p.id, error: 'simulator crashed' })),
    ).state;
  }
  assert.equal(kept.status, 'running', 'max_failed_iterations 0 never stops for failures');
});

test('a budget spent without one successful evaluation fails the campaign instead of completing it', async () => {
  // a budget small enough that max_failed_iterations (3) never comes into play
  const mdl = toyMdl({ budget: 6, max_failed_iterations: 3 });
  let state = initialState(mdl);
  while (state.status === 'running') {
    const next = await step(mdl, state);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, error: 'simulator not found' })),
    ).state;
  }
  assert.ok(state.iteration < 3, `ended after ${state.iteration} iterations`);
  assert.equal(state.status, 'failed');
  assert.equal(state.stopReason, 'error');
  assert.equal(state.stopMessage, 'The budget of 6 evaluations is spent and no evaluation succeeded (6 failed); the last error: simulator not found');

  // one success in the same budget is a completed campaign
  let lucky = initialState(mdl);
  let first = true;
  while (lucky.status === 'running') {
    const next = await step(mdl, lucky);
    lucky = tell(
      mdl,
      next.state,
      next.proposals.map((p, i) => (first && i === 0 ? { id: p.id, objectives: { f1: 0.5, f2: 0.5 } } : { id: p.id, error: 'simulator not found' })),
    ).state;
    first = false;
  }
  assert.equal(lucky.status, 'completed');
  assert.equal(lucky.stopReason, 'budget');
});

test('stagnation is judged only after min_budget_share of the budget and only above a zero hypervolume', async () => {
  // every batch lands on the same point: the hypervolume is flat from the first iteration on
  const mdl = toyMdl({ budget: 40, batch_size: 2, initial_samples: 4, stagnation: { window: 2, tolerance: 0.5, min_budget_share: 0.6 } });
  let state = initialState(mdl);
  const stoppedAt: number[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: { f1: 0.5, f2: 0.5 } })),
    ).state;
    stoppedAt.push(budgetUsed(state));
  }
  assert.equal(state.status, 'converged');
  assert.equal(budgetUsed(state), 24, 'the first iteration at or past 60 % of 40 evaluations');
  assert.match(state.stopMessage ?? '', /grew by 0\.0 % over the last 2 iterations .*after 24 of 40 evaluations/);

  // nothing inside the reference box: a flat zero is never convergence
  const outside = toyMdl({ budget: 20, batch_size: 2, initial_samples: 4, stagnation: { window: 2, tolerance: 0.5, min_budget_share: 0 } });
  let zero = initialState(outside);
  while (zero.status === 'running') {
    const next = await step(outside, zero);
    zero = tell(
      outside,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: { f1: 5, f2: 5 } })),
    ).state;
  }
  assert.equal(zero.status, 'completed');
  assert.equal(zero.stopReason, 'budget');
  assert.ok(zero.convergenceHistory.every((v) => v === 0));
});

test('tell rejects results for unknown candidates and waits for every pending one', async () => {
  const mdl = toyMdl();
  const next = await step(mdl, initialState(mdl));
  assert.throws(() => tell(mdl, next.state, [{ id: 'eval_999', objectives: { f1: 0, f2: 0 } }]), /eval_999/);
  const [firstProposal, ...rest] = next.proposals;
  const partial = tell(mdl, next.state, [{ id: firstProposal.id, objectives: evaluate(firstProposal.parameters) }]);
  assert.equal(partial.summary, null);
  assert.equal(partial.state.pending.length, rest.length);
  assert.equal((await step(mdl, partial.state)).proposals.length, 0, 'no new batch while one is pending');
});
