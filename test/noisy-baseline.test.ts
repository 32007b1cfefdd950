import test from 'node:test';
import assert from 'node:assert/strict';
import { baselineValues, proposeBatch, type BatchRequest } from '../src/engine/acquisition/batch.js';
import { Surrogate } from '../src/engine/gp/surrogate.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/**
 * Noisy data judged by the model: one parameter x, two objectives that both fall along
 * 2.2 − x, measured with one lucky draw at x = 0.1 (1.1 instead of 2.1 in both). The model's
 * noise is fixed high, so its posterior mean stays near the trend there. The reference (1, 1)
 * is outside every measurement, so the batch's one pick takes the reach criterion and searches
 * a box of half-side 0.2 around the point closest to the reference box.
 */
const space = new SearchSpace(
  mdlSchema.parse({
    name: 'noisy baseline',
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [1, 2].map((j) => ({ name: `f${j}`, direction: 'minimize', reference: 1 })),
    optimizer: { budget: 20 },
  }),
);
const xs = [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95];
const X = Float64Array.from(xs);
const Y = Float64Array.from(xs.flatMap((x) => (x === 0.1 ? [1.1, 1.1] : [2.2 - x, 2.2 - x])));
const hyperparameters = [0, 1].map(() => ({ lengthscales: Float64Array.of(1), outputScale: 1, noise: 0.5 }));

function request(baseline: 'measured' | 'predicted'): BatchRequest {
  return {
    space,
    X,
    Y,
    n: xs.length,
    m: 2,
    ref: [1, 1],
    q: 1,
    pending: [],
    acquisition: 'auto',
    random: new Random(3),
    surrogate: Surrogate.build(X, Y, xs.length, 1, 2, hyperparameters),
    baseline,
  };
}

test('a noisy batch judges the data by the posterior means at the evaluated points, a noiseless one by the measurements', async () => {
  const measured = request('measured');
  assert.equal(await baselineValues(measured), Y);
  measured.surrogate.dispose();
  const noisy = request('predicted');
  const judged = await baselineValues(noisy);
  const { mean } = await noisy.surrogate.predict(X, xs.length);
  assert.deepEqual(Array.from(judged), Array.from(mean));
  // the lucky draw is smoothed toward the trend: predicted well above its measured 1.1
  assert.ok(judged[0] > 1.4, `predicted ${judged[0]} at the lucky point`);
  noisy.surrogate.dispose();
});

test('a noisy batch searches near the point the model finds closest to the box, not near a lucky measurement', async () => {
  const byMeasurement = await proposeBatch(request('measured'));
  assert.equal(byMeasurement.acquisition, 'reach');
  assert.ok(byMeasurement.points[0][0] <= 0.3, `measured baseline: pick at ${byMeasurement.points[0][0]}`);
  const byModel = await proposeBatch(request('predicted'));
  assert.equal(byModel.acquisition, 'reach');
  assert.ok(byModel.points[0][0] >= 0.75, `predicted baseline: pick at ${byModel.points[0][0]}`);
});
