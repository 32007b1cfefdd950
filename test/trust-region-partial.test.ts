import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { planStep, step } from '../src/engine/campaign/step.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { localPartial } from '../src/engine/strategies/trust-region/candidates.js';
import { localData, objectiveRows, regionFits, regionModels, type LocalData } from '../src/engine/strategies/trust-region/models.js';
import type { RegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import type { Observations } from '../src/engine/strategies/types.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

const d = 3;
const m = 2;

/** 12 complete rows around the centre 0.5 (f1 = Σx, f2 = Σ(1 − x)), and two partial measurements: A has f1 only, B f2 only. */
function observations(): Observations {
  const random = new Random(4);
  const n = 12;
  const X = Float64Array.from({ length: n * d }, () => 0.35 + 0.3 * random.uniform());
  X.set([0.5, 0.5, 0.5], 0);
  const Y = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      Y[i * m] += X[i * d + j];
      Y[i * m + 1] += 1 - X[i * d + j];
    }
  }
  return {
    d,
    m,
    n,
    X,
    Y,
    ids: Array.from({ length: n }, (_, i) => String(i + 1)),
    iterations: new Int32Array(n),
    c: 0,
    C: new Float64Array(0),
    feasible: new Uint8Array(n).fill(1),
    failed: [],
    ref: [3.3, 3.3],
    noisy: false,
    // A inside the box around row 0, B inside, C far outside it
    partial: {
      X: Float64Array.of(0.42, 0.58, 0.45, 0.55, 0.41, 0.6, 0.02, 0.98, 0.03),
      Y: Float64Array.of(3.7, Number.NaN, Number.NaN, -2.2, 1.5, Number.NaN),
      n: 3,
    },
  };
}

const region: RegionMemory = { center: '1', length: 0.4, successes: 0, failures: 0, weights: null, hyperparameters: null };

function regionData(o: Observations): LocalData {
  const partial = localPartial(o, 0, region, [0], 100);
  return {
    ...localData(
      o,
      Array.from({ length: o.n }, (_, i) => i),
    ),
    ...(partial ? { partial } : {}),
  };
}

test('a region keeps the partial measurements inside its box or among its local rows, nearest first', () => {
  const partial = localPartial(observations(), 0, region, [0], 100)!;
  assert.equal(partial.n, 2, 'C lies outside the box (half-width 0.2 around 0.5)');
  // A (squared offsets summing to 0.0153) is nearer than B (0.0206); both within the half-width 0.2
  assert.deepEqual(Array.from(partial.X), [0.42, 0.58, 0.45, 0.55, 0.41, 0.6]);
  assert.deepEqual(Array.from(partial.Y.subarray(0, 2)), [3.7, Number.NaN]);
  assert.equal(localPartial(observations(), 0, region, [0], 1)!.n, 1, 'at most `most`');
  // with a local row farther out than C, C is kept too
  const wide = observations();
  wide.X.set([0, 1, 0], 11 * d);
  assert.equal(localPartial(wide, 0, region, [0, 11], 100)!.n, 3);
  assert.equal(localPartial({ ...observations(), partial: undefined }, 0, region, [0], 100), undefined);
});

test("each objective's rows are the local rows and the partial measurements that have it", () => {
  const data = regionData(observations());
  const f1 = objectiveRows(data, d, m, 0);
  const f2 = objectiveRows(data, d, m, 1);
  assert.equal(f1.n, 13);
  assert.equal(f2.n, 13);
  assert.deepEqual(Array.from(f1.X.subarray(12 * d)), [0.42, 0.58, 0.45]);
  assert.equal(f1.y[12], 3.7);
  assert.deepEqual(Array.from(f2.X.subarray(12 * d)), [0.55, 0.41, 0.6]);
  assert.equal(f2.y[12], -2.2);
  assert.equal(f1.y[0], 1.5, 'the centre: f1 = 0.5 + 0.5 + 0.5');

  const fits = regionFits(data, d, region, [undefined, undefined], 5, new Random(1));
  assert.deepEqual(
    fits.map((f) => f.n),
    [13, 13],
  );
  // fitted on standardized values of the 13 rows
  const mean = fits[0].y.reduce((a, b) => a + b, 0) / 13;
  assert.ok(Math.abs(mean) < 1e-12, `mean ${mean}`);
});

test("a partial measurement pins its objective's draw where it was measured", async () => {
  const data = regionData(observations());
  const h = { lengthscales: Float64Array.of(0.3, 0.3, 0.3), outputScale: 1, noise: 1e-6 };
  const box = { lower: new Float64Array(d).fill(0.3), upper: new Float64Array(d).fill(0.7) };
  const A = Float64Array.of(0.42, 0.58, 0.45);
  const at = async (data: LocalData, j: number): Promise<number> => {
    const models = regionModels(data, d, { objectives: [h, h], constraints: null }, box, [], new Random(9));
    return models.draw.mean[j] + models.draw.std[j] * (await models.objectives[j].at(A, 1))[0];
  };
  // A's f1 of 3.7 lies far above what the complete rows say there (about 1.45): the draw follows the measurement
  const pinned = await at(data, 0);
  assert.ok(Math.abs(pinned - 3.7) < 0.01, `f1 at A: ${pinned}`);
  const without: LocalData = { ...data, partial: undefined };
  const unpinned = await at(without, 0);
  assert.ok(Math.abs(unpinned - 1.45) < 0.3, `f1 at A without the partial measurement: ${unpinned}`);
});

test('a trust-region campaign fits each objective on the partial measurements that have it, and proposes', async () => {
  const mdl = mdlSchema.parse({
    parameters: Array.from({ length: 3 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 4 },
      { name: 'f2', direction: 'minimize', reference: 4 },
    ],
    optimizer: { strategy: 'trust-region', budget: 20, batch_size: 2, initial_samples: 8, seed: 3 },
  });
  const stepped = (await step(mdl, initialState(mdl, { seed: 3 }))).state;
  const results = stepped.pending.map((p, k) => {
    const x = mdl.parameters.map((q) => p.parameters[q.name] as number);
    const f1 = x.reduce((a, b) => a + b, 0);
    // the first candidate's f2 was never measured
    return { id: p.id, objectives: { f1, f2: k === 0 ? Number.NaN : 3 - f1 } };
  });
  const state = tell(mdl, stepped, results).state;
  const fits = planStep(mdl, state);
  assert.equal(fits.length % 2, 0, 'two fits per region, no constraints');
  for (let r = 0; r < fits.length; r += 2) assert.equal(fits[r].n, fits[r + 1].n + 1, 'f1 has one row more than f2: the partial measurement');
  const next = await step(mdl, state);
  assert.equal(next.state.strategy?.name, 'trust-region');
  assert.equal(next.proposals.length, 2);
});
