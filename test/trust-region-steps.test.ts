import test from 'node:test';
import assert from 'node:assert/strict';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { separableQuadratics } from '../src/engine/strategies/trust-region/quadratic.js';
import { drawOfPaths, towardBox, towardUtopia, utopiaPoint } from '../src/engine/strategies/trust-region/refine.js';
import { objectiveSpreads } from '../src/engine/acquisition/reach.js';
import type { RegionMemory, TrustRegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import { adaptReach, modelSteps, REACH_INIT, STEP_FACTORS, stepScalarization, takesModelSteps } from '../src/engine/strategies/trust-region/steps.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

// the quadratic models' normal equations are CPU tensor products
await initTensorBackend('wasm');

function unitSpace(d: number): SearchSpace {
  return new SearchSpace(
    mdlSchema.parse({
      parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
      objectives: [
        { name: 'f1', direction: 'minimize', reference: 1.1 },
        { name: 'f2', direction: 'minimize', reference: 1.1 },
      ],
      optimizer: { budget: 100 },
    }),
  );
}

function region(overrides: Partial<RegionMemory> = {}): RegionMemory {
  return { center: 'c', length: 0.8, successes: 0, failures: 0, weights: null, hyperparameters: null, ...overrides };
}

test('a separable quadratic model recovers a separable quadratic and its gradient (up to the ridge)', () => {
  const random = new Random(2);
  const d = 4;
  const n = 40;
  const center = Float64Array.of(0.5, 0.2, 0.7, 0.4);
  // y = 3 − x1 + 2 x2² + 0.5 (x3 − 0.1)² − 4 x4 (x4 − 1): slopes and curvatures per coordinate
  const f = (x: ArrayLike<number>): number => 3 - x[0] + 2 * x[1] ** 2 + 0.5 * (x[2] - 0.1) ** 2 - 4 * x[3] * (x[3] - 1);
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, (_, i) => f(X.subarray(i * d, (i + 1) * d)));
  const model = separableQuadratics(X, y, n, d, 1, center)[0];
  const x = Float64Array.of(0.9, 0.35, 0.05, 0.6);
  assert.ok(Math.abs(model.at(x, 1)[0] - f(x)) < 1e-2, `${model.at(x, 1)[0]} against ${f(x)}`);
  const gradient = new Float64Array(d);
  model.withGradient(x, gradient);
  const exact = [-1, 4 * x[1], x[2] - 0.1, -8 * x[3] + 4];
  exact.forEach((g, k) => assert.ok(Math.abs(gradient[k] - g) < 5e-2, `∂${k}: ${gradient[k]} against ${g}`));
  const dot = exact.reduce((t, g, k) => t + g * gradient[k], 0);
  const cosine = dot / Math.hypot(...exact) / Math.hypot(...gradient);
  assert.ok(cosine > 0.999, `cosine ${cosine}`);
});

test('a separable quadratic model stays finite with fewer points than coefficients', () => {
  const random = new Random(3);
  const d = 30;
  const n = 20; // 61 coefficients: the ridge decides
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, (_, i) => X[i * d] + X[i * d + 1]);
  const model = separableQuadratics(X, y, n, d, 1, X.slice(0, d))[0];
  const gradient = new Float64Array(d);
  assert.ok(Number.isFinite(model.withGradient(X.slice(d, 2 * d), gradient)));
  assert.ok(gradient.every(Number.isFinite));
});

test('model steps go downhill on the model, one per factor, each within its reach', async () => {
  const d = 6;
  const space = unitSpace(d);
  const random = new Random(4);
  const n = 60;
  // two objectives with bowls at 0.3 and 0.4: the centre at 0.8 is uphill on both
  const bowl = (x: ArrayLike<number>, a: number): number => Array.from(x).reduce((t, v) => t + (v - a) ** 2, 0);
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const center = new Float64Array(d).fill(0.8);
  const paths = [0.3, 0.4].map((a) => {
    const y = Float64Array.from({ length: n }, (_, i) => bowl(X.subarray(i * d, (i + 1) * d), a));
    return separableQuadratics(X, y, n, d, 1, center)[0];
  });
  const model = drawOfPaths(paths, { mean: [0, 0], std: [1, 1], lower: new Float64Array(d).fill(0.4), upper: new Float64Array(d).fill(1) });
  const steps = await modelSteps(space, model, center, region(), towardUtopia(Float64Array.of(0, 0)), Float64Array.of(1, 1));
  assert.deepEqual(
    steps.map((s) => s.factor),
    [...STEP_FACTORS],
  );
  let previous = bowl(center, 0.3);
  for (const { point, factor } of steps) {
    const reach = factor * REACH_INIT * 0.6; // the box is 0.6 wide per coordinate
    for (let k = 0; k < d; k++) assert.ok(Math.abs(point[k] - center[k]) <= reach + 1e-12, `factor ${factor}: coordinate ${k} moved ${point[k] - center[k]}`);
    // farther steps are better here: the bowls' bottoms lie beyond every reach
    assert.ok(bowl(point, 0.3) < previous && bowl(point, 0.4) < bowl(center, 0.4), `factor ${factor}`);
    previous = bowl(point, 0.3);
  }
});

test('the step reach follows the best step, and halves when no step beat the centre', () => {
  const m = 2;
  // rows: centre c of region 0, its steps a (×0.5), b (×1), e (×2), a Thompson pick t;
  // centre k of region 1 and its steps u, v, w; region 2 (centre z) proposed no steps
  const ids = ['c', 'a', 'b', 'e', 't', 'k', 'u', 'v', 'w', 'z'];
  const Y = Float64Array.from(
    [
      [1, 1],
      [0.95, 0.95],
      [0.9, 0.92],
      [0.85, 0.8], // best of region 0: factor 2
      [0.1, 0.1], // a Thompson pick, not a step: ignored
      [1, 1],
      [1.02, 1],
      [1.1, 1.1],
      [1, 1.3],
      [2, 2],
    ].flat(),
  );
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  const memory: TrustRegionMemory = {
    regions: [region({ center: 'c', reach: 0.1 }), region({ center: 'k' }), region({ center: 'z', reach: 0.3 })],
    lastBatch: { ids: ['a', 'b', 'e', 't', 'u', 'v', 'w'], regions: [0, 0, 0, 0, 1, 1, 1], steps: [0.5, 1, 2, 0, 0.5, 1, 2] },
    retired: [],
    restarts: 0,
  };
  // every row inside the reference box: the steps descended the Chebyshev scalarization
  const ref = [3, 3];
  const spread = objectiveSpreads(Y, ids.length, m, ref);
  const next = adaptReach(memory, Y, m, ref, spread, rowOf);
  assert.ok(Math.abs(next[0].reach! - 0.2) < 1e-12, `region 0: ${next[0].reach}`);
  assert.ok(Math.abs(next[1].reach! - REACH_INIT / 2) < 1e-12, `region 1: ${next[1].reach}`);
  assert.equal(next[2].reach, 0.3);
  // without a record of steps (a memory from before them, or a batch too small for them) nothing changes
  assert.deepEqual(adaptReach({ ...memory, lastBatch: { ids: ['a'], regions: [0] } }, Y, m, ref, spread, rowOf), memory.regions);
});

test('outside the reference box a step counts by how close it came to the box, and its folded values do not move the utopia', () => {
  const m = 2;
  const ref = [1.1, 1.1];
  // a centre at the front's edge, far beyond the reference in f2; its step halves the distance in
  // f2 while f1, well inside its reference, grows a little; f is a folded infeasible row
  const ids = ['c', 's', 'f', 'o'];
  const Y = Float64Array.from(
    [
      [0.55, 17.33],
      [0.63, 9.27],
      [90, 90],
      [0.1, 12],
    ].flat(),
  );
  const rowOf = new Map(ids.map((id, i) => [id, i]));
  const spread = Float64Array.of(20, 20);
  const memory: TrustRegionMemory = {
    regions: [region({ center: 'c', reach: 0.1 })],
    lastBatch: { ids: ['s'], regions: [0], steps: [2] },
    retired: [],
    restarts: 0,
  };
  assert.deepEqual(stepScalarization(Y, 0, m, ref, spread, utopiaPoint([Y], m, spread)), towardBox(ref));
  assert.ok(Math.abs(adaptReach(memory, Y, m, ref, spread, rowOf)[0].reach! - 0.2) < 1e-12, 'the achievement (17.33 − 1.1)/20 fell to (9.27 − 1.1)/20');
  // the same rows inside a far reference box: the Chebyshev from the utopia, where f1's growth fails the step
  const far = [100, 100];
  const inside = stepScalarization(Y, 0, m, far, spread, utopiaPoint([Y], m, spread));
  assert.equal(inside.equalize, true);
  // the utopia sits 10 % of the objectives' spread beyond the best values, not 10 % of the folded range
  assert.deepEqual(Array.from(inside.origin), [0.1 - 2, 9.27 - 2]);
  assert.ok(Math.abs(adaptReach(memory, Y, m, far, spread, rowOf)[0].reach! - 0.05) < 1e-12);
});

test('model steps are taken only when every region gets room for them and Thompson picks', () => {
  assert.equal(takesModelSteps(50, 5), true);
  assert.equal(takesModelSteps(30, 5), true);
  assert.equal(takesModelSteps(20, 5), false);
  assert.equal(takesModelSteps(4, 1), false);
});
