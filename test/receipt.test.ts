import test from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { canonicalJson, dataHash, iterationReceipts, type Receipt } from '../src/engine/campaign/receipt.js';
import { replayCampaign } from '../src/engine/campaign/replay.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, EvaluationResult } from '../src/engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');
const environment = { engine_version: 'test', tensor_backend: 'wasm' };

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
    optimizer: { budget: 12, batch_size: 2, initial_samples: 6, seed: 5, ...overrides },
  });
}

/** f1 = x, f2 = -(1 - sqrt(x)) - y; a candidate with y above 0.9 fails, so failures enter the data. */
function evaluate(id: string, parameters: Record<string, number | string>): EvaluationResult {
  const x = Number(parameters.x);
  const y = Number(parameters.y);
  return y > 0.9 ? { id, error: 'rig fault' } : { id, objectives: { f1: x, f2: -(1 - Math.sqrt(x)) - y } };
}

/** The campaign run to its end, with every step's receipt. */
async function run(mdl: Mdl): Promise<{ state: CampaignState; receipts: Receipt[] }> {
  let state = initialState(mdl);
  const receipts: Receipt[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state, environment);
    if (next.proposals.length === 0) break;
    receipts.push(next.receipt!);
    assert.deepEqual(next.state.receipt, next.receipt, 'the receipt travels with the pending batch');
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => evaluate(p.id, p.parameters)),
    ).state;
  }
  return { state, receipts };
}

test('a receipt names what proposed the batch, and the same state gives the same receipt', async () => {
  const mdl = toyMdl();
  const { state, receipts } = await run(mdl);
  assert.deepEqual(
    receipts.map((r) => r.iteration),
    [1, 2, 3, 4],
  );
  assert.equal(receipts[0].strategy, 'initial-design');
  assert.equal(receipts[0].acquisition, 'none');
  assert.equal(receipts[1].strategy, 'global');
  assert.match(receipts[1].acquisition, /ehvi/);
  assert.equal(receipts[1].engine_version, 'test');
  assert.equal(receipts[1].tensor_backend, 'wasm');
  assert.equal(receipts[1].seed.campaign, 5);
  assert.notEqual(receipts[1].seed.iteration, receipts[2].seed.iteration, 'each iteration draws its own seed');
  for (const r of receipts) for (const hash of [r.data_hash, r.state_hash, r.mdl_hash, r.proposals_hash]) assert.match(hash, /^[0-9a-f]{64}$/);
  assert.equal(receipts[2].evaluations_seen, 8);
  assert.equal(new Set(receipts.map((r) => r.mdl_hash)).size, 1);
  assert.equal(new Set(receipts.map((r) => r.data_hash)).size, 4, 'every step saw more data');

  // The same state again: the same receipt, whatever the key order of the data
  const again = await run(mdl);
  assert.deepEqual(again.receipts, receipts);
  const reordered = state.evaluations.map((e) => JSON.parse(canonicalJson(e)) as typeof e);
  assert.equal(dataHash(reordered), dataHash(state.evaluations));
});

test('the canonical form by hand, and the data hash as the sha-256 of the canonical list whether records are new or seen', async () => {
  const awkward = { b: [1, -0, NaN, -Infinity, undefined, 1e21], a: { d: undefined, c: 'é"' }, '10': new Float64Array([0.5]), '9': null };
  assert.equal(canonicalJson(awkward), '{"10":[0.5],"9":null,"a":{"c":"é\\""},"b":[1,0,null,null,null,1e+21]}');
  const { state } = await run(toyMdl());
  const listed = state.evaluations.map(({ id, iteration, parameters, objectives, outcomes, error }) => ({
    id,
    iteration,
    parameters,
    objectives,
    outcomes,
    error,
  }));
  const expected = createHash('sha256').update(canonicalJson(listed)).digest('hex');
  assert.equal(dataHash(state.evaluations), expected, 'records written for the first time');
  assert.equal(dataHash(state.evaluations), expected, 'records whose text was kept');
  assert.equal(dataHash(structuredClone(state.evaluations)), expected, 'copies of them');
});

test('the data hash changes when any told value changes, and only then', async () => {
  const { state } = await run(toyMdl());
  const base = dataHash(state.evaluations);
  assert.equal(dataHash(structuredClone(state.evaluations)), base);
  const changes: Array<[string, (e: CampaignState['evaluations']) => void]> = [
    ['an objective', (e) => (e.find((r) => r.objectives)!.objectives!.f1 += 1e-12)],
    ['a parameter', (e) => (e[0].parameters.x = Number(e[0].parameters.x) + 1e-12)],
    ['a failure', (e) => (e.find((r) => r.objectives)!.objectives = null)],
    ['an error message', (e) => (e.find((r) => r.error)!.error = 'another fault')],
    ['the order', (e) => e.reverse()],
    ['a row less', (e) => e.pop()],
  ];
  assert.ok(
    state.evaluations.some((e) => e.error),
    'the run has failures',
  );
  for (const [what, change] of changes) {
    const changed = structuredClone(state.evaluations);
    change(changed);
    assert.notEqual(dataHash(changed), base, what);
  }
});

test('replay proposes every iteration again identically, and points at tampered data', async () => {
  const mdl = toyMdl();
  const { state, receipts } = await run(mdl);
  const byIteration = new Map(receipts.map((r) => [r.iteration, r]));
  const recorded = { mdl, evaluations: state.evaluations, iterations: iterationReceipts(state, (i) => byIteration.get(i)) };
  const replays = await replayCampaign(recorded, environment);
  assert.deepEqual(
    replays.map((r) => [r.iteration, r.identical, r.differences]),
    [1, 2, 3, 4].map((i) => [i, true, []]),
  );

  const tampered = structuredClone(recorded);
  const victim = tampered.evaluations.find((e) => e.iteration === 2 && e.objectives)!;
  victim.objectives!.f1 += 0.01;
  // The environment is only compared with the receipts' (the step runs on this thread's backend).
  const checked = await replayCampaign(tampered, { ...environment, tensor_backend: 'cpu' }, new Set([3, 4]));
  assert.deepEqual(
    checked.map((r) => r.iteration),
    [3, 4],
  );
  for (const r of checked) {
    assert.equal(r.identical, false);
    assert.match(r.differences[0], /not the data the surrogate saw \(data_hash/);
    assert.ok(r.notes.includes('recorded on the wasm tensor backend, replayed on cpu'), r.notes.join('; '));
  }
});
