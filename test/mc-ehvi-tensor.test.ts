import test from 'node:test';
import assert from 'node:assert/strict';
import { antitheticNormals, monteCarloDraws, sampleMeans } from '../src/engine/acquisition/mc-ehvi.js';
import { TensorMonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi-tensor.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import { hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackend, tf } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/** A front on the positive unit sphere (DTLZ2's), `n x m`, and candidates' moments around it. */
function sphereFront(n: number, m: number, random: Random): Float64Array {
  const Y = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const v = Array.from({ length: m }, () => Math.abs(random.normal()) + 1e-3);
    const norm = Math.hypot(...v);
    v.forEach((x, j) => (Y[i * m + j] = x / norm));
  }
  return Y;
}

test('Monte Carlo EHVI from boxes on the tensor backend equals the WASM kernel exact improvements of the same samples (three and four objectives)', async () => {
  for (const [m, n] of [
    [3, 40],
    [4, 30],
  ]) {
    const random = new Random(m);
    const front = sphereFront(n, m, random);
    const ref = new Array(m).fill(1.1);
    const q = 25;
    const mean = Float64Array.from({ length: q * m }, () => 0.5 + 0.5 * random.uniform());
    const std = Float64Array.from({ length: q * m }, () => 0.02 + 0.1 * random.uniform());
    // the same seed: the same common random numbers, each sample's improvement exact from the WASM kernel
    const base = antitheticNormals(64, m, new Random(9));
    const draws = monteCarloDraws(mean, std, q, base, m);
    const cpu = sampleMeans(hypervolumeImprovements(front, n, m, ref, draws, q * 64), q, 64);
    const gpu = new TensorMonteCarloEhvi(front, n, m, ref, 64, new Random(9));
    const values = await gpu.evaluate(mean, std, q);
    gpu.dispose();
    const scale = Math.max(...Array.from(cpu));
    assert.ok(scale > 0);
    for (let i = 0; i < q; i++) assert.ok(Math.abs(values[i] - cpu[i]) < 1e-5 * Math.max(scale, 1e-3), `m=${m} candidate ${i}: ${values[i]} vs ${cpu[i]}`);
  }
});

test('with a compute scale of 2 a three-objective campaign proposes through the boxes on the tensor backend, and frees them', async () => {
  const mdl = mdlSchema.parse({
    name: 'three objectives',
    parameters: Array.from({ length: 5 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: ['f1', 'f2', 'f3'].map((name) => ({ name, direction: 'minimize', reference: 1.1 })),
    optimizer: { method: 'cma-es', strategy: 'global', budget: 16, batch_size: 2, initial_samples: 12, seed: 4 },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
  const problem = testProblem('dtlz2')!;
  const environment = { engine_version: 'test', tensor_backend: 'wasm', compute_scale: 2 };
  let state = initialState(mdl);
  const tensors = tf.memory().numTensors;
  while (state.status === 'running') {
    const next = await step(mdl, state, environment);
    if (next.receipt!.iteration > 1) {
      assert.match(next.receipt!.acquisition, /^mc-ehvi/);
      assert.equal(next.receipt!.compute_scale, 2);
    }
    const results = next.proposals.map((p) => {
      const f = problem.evaluate(
        Float64Array.from(mdl.parameters, (x) => p.parameters[x.name] as number),
        3,
      );
      return { id: p.id, objectives: { f1: f[0], f2: f[1], f3: f[2] } };
    });
    state = tell(mdl, next.state, results).state;
  }
  assert.equal(state.evaluations.length, 16);
  assert.ok(state.convergenceHistory.at(-1)! > 0);
  assert.equal(tf.memory().numTensors, tensors, 'every tensor the boxes and the posteriors made is freed');
});
