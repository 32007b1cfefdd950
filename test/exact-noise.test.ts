import test from 'node:test';
import assert from 'node:assert/strict';
import { exactObjectives } from '../src/engine/campaign/noisy-front.js';
import type { EvaluationRecord } from '../src/engine/campaign/types.js';
import { fitHyperparameters } from '../src/engine/gp/fit.js';
import { EXACT_NOISE_MAX } from '../src/engine/gp/priors.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

const D = 1;

/**
 * An exact function with a part the kernel cannot follow at the data's spacing (x + ½ sin(200x)
 * at 40 points: about two points per period, below the smallest lengthscale's reach): an
 * unconstrained fit calls a quarter of its variance noise, an exact one may not.
 */
function roughData(): { X: Float64Array; y: Float64Array; n: number } {
  const random = new Random(5);
  const n = 40;
  const X = Float64Array.from({ length: n }, () => random.uniform());
  const y = X.map((x) => x + 0.5 * Math.sin(200 * x));
  const mean = y.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(y.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  return { X, y: y.map((v) => (v - mean) / sd), n };
}

test('an exact objective fits at most EXACT_NOISE_MAX of its variance as noise', () => {
  const { X, y, n } = roughData();
  const free = fitHyperparameters(X, y, n, D, { seed: 1, warp: false }).hyperparameters;
  const exact = fitHyperparameters(X, y, n, D, { seed: 1, warp: false, exact: true }).hyperparameters;
  // without the bound the fit calls the rough function mostly noise
  assert.ok(free.noise / (free.noise + free.outputScale) > 0.2, `unbounded noise share ${free.noise / (free.noise + free.outputScale)}`);
  assert.ok(exact.noise <= EXACT_NOISE_MAX * (1 + 1e-9), `exact noise ${exact.noise}`);
  assert.ok(exact.noise / (exact.noise + exact.outputScale) < 0.02);
  // a declared noise still wins over the bound
  const declared = fitHyperparameters(X, y, n, D, { seed: 1, warp: false, exact: true, noise: 0.3 }).hyperparameters;
  assert.ok(Math.abs(declared.noise - 0.3) < 1e-12);
});

function mdlWith(evaluator: unknown, noise?: unknown): Mdl {
  return mdlSchema.parse({
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [
      { name: 'f1', direction: 'minimize', ...(noise === undefined ? {} : { noise }) },
      { name: 'f2', direction: 'minimize', noise: false },
    ],
    optimizer: { budget: 20, batch_size: 2, seed: 1 },
    ...(evaluator ? { evaluator } : {}),
  });
}

function record(id: string, x: number, f1: number, f2: number): EvaluationRecord {
  return { id, iteration: 1, parameters: { x }, objectives: { f1, f2 } };
}

test('exactObjectives: agreeing repeats, a noiseless builtin and `noise: false` are exact; disagreeing repeats and declared noise are not', () => {
  const plain = mdlWith(undefined);
  const rows = [record('a', 0.2, 1, 2), record('b', 0.5, 3, 4)];
  assert.deepEqual(exactObjectives(plain, rows), [false, true]);
  assert.deepEqual(exactObjectives(plain, [...rows, record('c', 0.5, 3, 4)]), [true, true]);
  assert.deepEqual(exactObjectives(plain, [...rows, record('c', 0.5, 3.1, 4)]), [false, true]);
  assert.deepEqual(exactObjectives(mdlWith(undefined, true), [...rows, record('c', 0.5, 3, 4)]), [false, true]);
  assert.deepEqual(exactObjectives(mdlWith({ type: 'builtin', name: 'zdt1' }), rows), [true, true]);
  // a noisy builtin repeats its values (its noise is a function of the candidate): no sign of exactness
  assert.deepEqual(exactObjectives(mdlWith({ type: 'builtin', name: 'zdt1', noise: 0.05 }), [...rows, record('c', 0.5, 3, 4)]), [false, true]);
});
