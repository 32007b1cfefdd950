import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import { diagnoseCampaign } from '../src/engine/diagnostics/report.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { EnginePool } from '../src/jobs/engine-pool.js';
import { packageVersion } from '../src/package-root.js';

// the receipt of a pool step names Kiln's version and the thread's backend; an inline step is told them
const environment = { engine_version: packageVersion(), tensor_backend: 'wasm' };

test('a step on a worker thread gives exactly the proposals of the same step in-process', async () => {
  await initTensorBackend('wasm');
  const mdl = mdlSchema.parse({
    parameters: [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'k', type: 'integer', bounds: [1, 5] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    optimizer: { budget: 12, batch_size: 2, initial_samples: 6, seed: 4 },
  });
  const first = await step(mdl, initialState(mdl));
  const results = first.proposals.map((p) => {
    const x = Number(p.parameters.x);
    const k = Number(p.parameters.k);
    return { id: p.id, objectives: { f1: x + 0.1 * k, f2: (1 - x) ** 2 + 0.05 * (5 - k) } };
  });
  const state = tell(mdl, first.state, results).state;

  const pool = new EnginePool({ threads: 1, backend: 'wasm' });
  try {
    const started = performance.now();
    const remote = await pool.step(mdl, state);
    const seconds = (performance.now() - started) / 1000;
    // one host thread runs the whole step as its completion
    assert.deepEqual({ ...remote.phases, complete: 0 }, { plan: 0, fits: 0, complete: 0 });
    assert.ok(remote.phases.complete > 0 && remote.phases.complete <= seconds + 1e-3, `${remote.phases.complete} s in a ${seconds} s step`);
    const local = await step(mdl, state, environment);
    assert.deepEqual(remote.backend, { name: 'wasm', device: null, passedOver: [] });
    // the initial design's points inside the box are fewer than 3m: half the batch takes the reach
    // criterion; no objective declares noise, so this first model-guided batch re-measures one design
    assert.equal(remote.strategy, 'ehvi + reach + noise check');
    assert.equal(remote.proposals.length, 2);
    assert.deepEqual(remote.proposals, local.proposals);
    assert.deepEqual(remote.state, local.state);
    assert.deepEqual(remote.receipt, local.receipt);
    assert.equal(remote.receipt?.tensor_backend, 'wasm');
    assert.equal(remote.receipt?.tensor_device, null, 'no GPU device on a CPU backend');
    // the model report, too, is the same on a pool thread as in-process
    assert.deepEqual(await pool.diagnose(mdl, remote.state), diagnoseCampaign(mdl, remote.state));
  } finally {
    await pool.destroy();
  }
});

test('with two threads the fits of a trust-region step run in parallel and the proposals stay the same', async () => {
  await initTensorBackend('wasm');
  const d = 24;
  const mdl = mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    optimizer: { budget: 100, batch_size: 12, initial_samples: 40, seed: 8 },
  });
  const first = await step(mdl, initialState(mdl));
  const results = first.proposals.map((p) => {
    const x = Array.from({ length: d }, (_, i) => Number(p.parameters[`x${i + 1}`]));
    const g = x.slice(1).reduce((t, v) => t + (v - 0.5) ** 2, 0);
    return { id: p.id, objectives: { f1: x[0] + g, f2: 1 - x[0] + g } };
  });
  const state = tell(mdl, first.state, results).state;
  const pool = new EnginePool({ threads: 2, backend: 'wasm' });
  try {
    const started = performance.now();
    const remote = await pool.step(mdl, state);
    const seconds = (performance.now() - started) / 1000;
    // where the step's seconds went: planning and the trust regions' fits on the host threads, then the completion
    const { plan, fits, complete } = remote.phases;
    assert.ok(plan >= 0 && fits > 0 && complete > 0, JSON.stringify(remote.phases));
    assert.ok(plan + fits + complete <= seconds + 1e-3, `${plan + fits + complete} s of phases in a ${seconds} s step`);
    const local = await step(mdl, state, environment);
    assert.equal(remote.strategy, 'trust-region + noise check');
    assert.equal(remote.proposals.length, 12);
    assert.deepEqual(remote.proposals, local.proposals);
    assert.deepEqual(remote.state, local.state);
    assert.deepEqual(remote.receipt, local.receipt, 'the parallel fits leave the receipt as it is in one piece');
  } finally {
    await pool.destroy();
  }
});
