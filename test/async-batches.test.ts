import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { iterationReceipts } from '../src/engine/campaign/receipt.js';
import { replayCampaign } from '../src/engine/campaign/replay.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, EvaluationResult, Proposal, Receipt } from '../src/engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function toyMdl(optimizer: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.2 },
      { name: 'f2', direction: 'minimize', reference: 1.2 },
    ],
    optimizer: { budget: 30, batch_size: 2, initial_samples: 6, seed: 11, ...optimizer },
  });
}

/** ZDT1 in two variables: f1 = x, f2 = g (1 - sqrt(x / g)), g = 1 + 9 y. */
function zdt1(parameters: Record<string, number | string>): Record<string, number> {
  const x = Number(parameters.x);
  const g = 1 + 9 * Number(parameters.y);
  return { f1: x, f2: g * (1 - Math.sqrt(x / g)) };
}

const measured = (proposals: readonly Proposal[]): EvaluationResult[] => proposals.map((p) => ({ id: p.id, objectives: zdt1(p.parameters) }));

/** The campaign after its initial design and `batches` full batches, everything told. */
async function warmedUp(mdl: Mdl, batches: number): Promise<CampaignState> {
  let state = initialState(mdl);
  for (let k = 0; k <= batches; k++) {
    const next = await step(mdl, state);
    state = tell(mdl, next.state, measured(next.proposals)).state;
  }
  return state;
}

function distance(a: Proposal, b: Proposal): number {
  return Math.hypot(Number(a.parameters.x) - Number(b.parameters.x), Number(a.parameters.y) - Number(b.parameters.y));
}

for (const method of ['global', 'trust-region', 'nsga2'] as const) {
  test(`${method}: an asynchronous step proposes beside the pending batch, as a new iteration, never repeating it`, async () => {
    const mdl = toyMdl(method === 'nsga2' ? { method } : { strategy: method });
    const state = await warmedUp(mdl, 2);
    assert.equal(state.iteration, 3);
    const out = await step(mdl, state);
    assert.equal(out.proposals.length, 2);
    assert.equal((await step(mdl, out.state)).proposals.length, 0, 'without a count nothing is proposed while candidates are pending');
    const more = await step(mdl, out.state, undefined, { count: 3 });
    assert.equal(more.proposals.length, 3);
    assert.ok(more.proposals.every((p) => p.iteration === 5));
    assert.deepEqual(
      more.state.pending.map((p) => p.id),
      [...out.proposals, ...more.proposals].map((p) => p.id),
      'the pending batch stays pending beside the new one',
    );
    assert.equal(new Set(more.state.pending.map((p) => p.id)).size, 5);
    for (const p of more.proposals) for (const q of out.proposals) assert.ok(distance(p, q) > 1e-6, `${p.id} repeats pending ${q.id}`);
    assert.equal(more.state.receipt?.iteration, 5);
    assert.deepEqual(
      more.state.earlierReceipts?.map((r) => r.iteration),
      [4],
      'the pending iteration keeps its receipt',
    );
    if (method === 'trust-region') {
      const memory = more.state.strategies?.['trust-region'] as { lastBatch: { ids: string[] } };
      assert.deepEqual(
        memory.lastBatch.ids,
        more.state.pending.map((p) => p.id),
        'the batch still pending is judged with the new one, when its results are in',
      );
    }
  });
}

test('the global model conditions on the pending candidates (Kriging believer): the new pick goes elsewhere', async () => {
  const mdl = toyMdl({ batch_size: 1 });
  const state = await warmedUp(mdl, 3);
  const out = await step(mdl, state);
  const [pending] = out.proposals;
  // The same data and the same draw, once with the candidate pending and once without it: the
  // pick that ignores it lands on (nearly) the same optimum; the conditioned one moves away.
  const withPending = (await step(mdl, out.state, undefined, { count: 1 })).proposals[0];
  const forgotten = { ...out.state, pending: [], iteration: out.state.iteration } as CampaignState;
  const blind = (await step(mdl, { ...forgotten, iteration: pending.iteration }, undefined, { count: 1 })).proposals[0];
  const away = distance(withPending, pending);
  const near = distance(blind, pending);
  assert.ok(near < away, `the pick that ignores the pending candidate is nearer to it (${near.toFixed(4)}) than the conditioned one (${away.toFixed(4)})`);
  assert.ok(away > 0.01, `the conditioned pick is ${away.toFixed(4)} from the pending candidate`);
});

test('iterations complete in their order: a later batch told first waits for the earlier one', async () => {
  const mdl = toyMdl();
  const state = await warmedUp(mdl, 1);
  assert.equal(state.iteration, 2);
  const history = state.convergenceHistory.length;
  const a = await step(mdl, state); // iteration 3
  const b = await step(mdl, a.state, undefined, { count: 2 }); // iteration 4
  const [a3, b4] = [a.proposals, b.proposals];

  const laterFirst = tell(mdl, b.state, measured(b4));
  assert.equal(laterFirst.summary, null, 'iteration 4 cannot complete before 3');
  assert.deepEqual(laterFirst.summaries, []);
  assert.equal(laterFirst.state.iteration, 2);
  assert.equal(laterFirst.state.convergenceHistory.length, history);
  assert.deepEqual(
    laterFirst.state.pending.map((p) => p.id),
    a3.map((p) => p.id),
  );

  const rest = tell(mdl, laterFirst.state, measured(a3));
  assert.deepEqual(
    rest.summaries.map((s) => [s.iteration, s.evaluated]),
    [
      [3, 2],
      [4, 2],
    ],
  );
  assert.equal(rest.summary?.iteration, 4);
  assert.equal(rest.state.iteration, 4);
  assert.equal(rest.state.convergenceHistory.length, history + 2);
  assert.equal(rest.state.earlierReceipts, undefined);

  // the earlier batch first: it completes on its own while the later one is pending
  const earlyFirst = tell(mdl, b.state, measured(a3));
  assert.deepEqual(
    earlyFirst.summaries.map((s) => s.iteration),
    [3],
  );
  assert.equal(earlyFirst.state.iteration, 3);
  assert.equal(earlyFirst.state.earlierReceipts, undefined, 'iteration 3 left with its receipt');
  assert.equal(earlyFirst.state.receipt?.iteration, 4);
  const both = tell(mdl, earlyFirst.state, measured(b4));
  assert.deepEqual(
    both.summaries.map((s) => s.iteration),
    [4],
  );
  assert.deepEqual(both.state.convergenceHistory, rest.state.convergenceHistory, 'the same hypervolumes whichever batch came first');
});

test('the stop rules wait until nothing is pending: the budget spent by pending candidates ends the campaign only once they are told', async () => {
  const mdl = toyMdl({ budget: 12 });
  const state = await warmedUp(mdl, 1); // 6 + 2 evaluations
  const a = await step(mdl, state); // 2 more: 10
  const b = await step(mdl, a.state, undefined, { count: 5 });
  assert.equal(b.proposals.length, 2, 'an asynchronous step proposes no more than the budget leaves');
  assert.equal((await step(mdl, b.state, undefined, { count: 1 })).proposals.length, 0, 'the budget is spent with what is pending');
  const first = tell(mdl, b.state, measured(a.proposals));
  assert.equal(first.summary?.iteration, 3);
  assert.equal(first.state.status, 'running', 'iteration 4 is still out');
  const last = tell(mdl, first.state, measured(b.proposals));
  assert.equal(last.state.status, 'completed');
  assert.equal(last.summary?.iteration, 4);
});

test('a step without a count and nothing pending proposes batch_size as before, and the initial design is never asynchronous', async () => {
  const mdl = toyMdl();
  const design = await step(mdl, initialState(mdl));
  assert.equal(design.proposals.length, 6);
  const beside = await step(mdl, design.state, undefined, { count: 2 });
  assert.equal(beside.proposals.length, 2, 'proposed beside the design, by a model-free strategy while nothing is measured');
  assert.ok(beside.proposals.every((p) => p.iteration === 2));
  const told = tell(mdl, beside.state, measured(design.proposals));
  assert.equal(told.summary?.iteration, 1);
  assert.equal(told.state.pending.length, 2);
});

test('replay proposes an asynchronous campaign again identically: each batch beside the ones its receipt says were pending', async () => {
  const mdl = toyMdl();
  const environment = { engine_version: 'test', tensor_backend: 'wasm' };
  const receipts: Receipt[] = [];
  const stepped = async (state: CampaignState, count?: number) => {
    const out = await step(mdl, state, environment, count === undefined ? {} : { count });
    receipts.push(out.receipt!);
    return out;
  };
  const design = await stepped(initialState(mdl));
  let state = tell(mdl, design.state, measured(design.proposals)).state;
  const a = await stepped(state); // iteration 2
  const b = await stepped(a.state, 3); // iteration 3, beside 2
  const c = await stepped(b.state, 1); // iteration 4, beside 2 and 3
  state = tell(mdl, c.state, measured(a.proposals)).state;
  const d = await stepped(state, 2); // iteration 5, beside 3 and 4
  state = tell(mdl, d.state, [...measured(b.proposals), ...measured(c.proposals), ...measured(d.proposals)]).state;
  const e = await stepped(state, 4); // iteration 6, nothing pending: a batch of 4 asked for
  state = tell(mdl, e.state, measured(e.proposals)).state;
  assert.equal(state.iteration, 6);
  assert.deepEqual(
    receipts.map((r) => r.asked ?? null),
    [null, null, { count: 3, pending: 2 }, { count: 1, pending: 5 }, { count: 2, pending: 4 }, { count: 4, pending: 0 }],
  );
  const byIteration = new Map(receipts.map((r) => [r.iteration, r]));
  const replays = await replayCampaign({ mdl, evaluations: state.evaluations, iterations: iterationReceipts(state, (i) => byIteration.get(i)) }, environment);
  assert.deepEqual(
    replays.map((r) => [r.iteration, r.identical, r.differences]),
    [1, 2, 3, 4, 5, 6].map((i) => [i, true, []]),
  );
});
