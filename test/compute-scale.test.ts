import test from 'node:test';
import assert from 'node:assert/strict';
import { iterationReceipts } from '../src/engine/campaign/receipt.js';
import { replayCampaign } from '../src/engine/campaign/replay.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { Receipt } from '../src/engine/campaign/types.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { computeScale, MOST_SCALE } from '../src/jobs/compute-scale.js';

await initTensorBackend('wasm');

test('the CPU backends are the unit of the compute scale; KILN_COMPUTE_SCALE sets it, a power of two up to the most', async () => {
  delete process.env.KILN_COMPUTE_SCALE;
  assert.equal(await computeScale({ name: 'wasm' }), 1);
  assert.equal(await computeScale({ name: 'cpu' }), 1);
  process.env.KILN_COMPUTE_SCALE = '8';
  try {
    assert.equal(await computeScale({ name: 'wasm' }), 8);
    for (const bad of ['3', '0', '32', 'many', '-2']) {
      process.env.KILN_COMPUTE_SCALE = bad;
      assert.throws(() => computeScale({ name: 'wasm' }), /KILN_COMPUTE_SCALE must be a power of two from 1 to 16/);
    }
  } finally {
    delete process.env.KILN_COMPUTE_SCALE;
  }
  assert.equal(MOST_SCALE, 16);
});

test('a wider search is recorded in the receipts, and a replay searches as wide', async () => {
  const mdl = mdlSchema.parse({
    name: 'scaled',
    parameters: Array.from({ length: 4 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 1.1 },
    ],
    optimizer: { method: 'cma-es', budget: 18, batch_size: 2, initial_samples: 10, seed: 5 },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
  const problem = testProblem('dtlz2')!;
  const environment = { engine_version: 'test', tensor_backend: 'wasm', tensor_device: null };
  const run = async (scale: number) => {
    let state = initialState(mdl);
    const receipts = new Map<number, Receipt>();
    while (state.status === 'running') {
      const next = await step(mdl, state, { ...environment, compute_scale: scale });
      receipts.set(next.receipt!.iteration, next.receipt!);
      const results = next.proposals.map((p) => {
        const f = problem.evaluate(
          Float64Array.from(mdl.parameters, (q) => p.parameters[q.name] as number),
          2,
        );
        return { id: p.id, objectives: { f1: f[0], f2: f[1] } };
      });
      state = tell(mdl, next.state, results).state;
    }
    return { state, receipts };
  };
  const wide = await run(4);
  const narrow = await run(1);
  assert.equal(wide.state.strategy?.name, 'global');
  // the model-guided batches differ: the wider search scored four times the raw samples and CMA-ES instances
  assert.notEqual(wide.receipts.get(3)!.proposals_hash, narrow.receipts.get(3)!.proposals_hash);
  assert.equal(wide.receipts.get(3)!.compute_scale, 4);
  assert.equal(narrow.receipts.get(3)!.compute_scale, undefined);
  const replays = await replayCampaign(
    { mdl, evaluations: wide.state.evaluations, iterations: iterationReceipts(wide.state, (i) => wide.receipts.get(i)) },
    environment,
  );
  assert.ok(
    replays.every((r) => r.identical),
    replays.map((r) => r.differences.join('; ')).join(' | '),
  );
});
