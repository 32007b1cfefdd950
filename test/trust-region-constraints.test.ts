import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { planStep, step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from '../src/engine/gp/dense64.js';
import { DenseLikelihood } from '../src/engine/gp/likelihood.js';
import { maternCorrelation } from '../src/engine/gp/matern.js';
import { posteriorDraws } from '../src/engine/gp/pathwise.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { activeConstraints, localData } from '../src/engine/strategies/trust-region/models.js';
import { separableQuadratics } from '../src/engine/strategies/trust-region/quadratic.js';
import type { Observations } from '../src/engine/strategies/types.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/** Column k of `n x w` Y. */
function column(Y: Float64Array, n: number, w: number, k: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Y[i * w + k]);
}

/** The exact posterior mean k(x, X)(K + σ²I)⁻¹y of one output by the textbook formula (Rasmussen & Williams, Alg. 2.1). */
function exactMean(X: Float64Array, y: Float64Array, n: number, d: number, x: Float64Array, ls: Float64Array, s2: number, noise: number): number {
  const k = (a: Float64Array, p: number, b: Float64Array, q: number): number => {
    let r2 = 0;
    for (let j = 0; j < d; j++) r2 += ((a[p + j] - b[q + j]) / ls[j]) ** 2;
    return s2 * maternCorrelation(Math.sqrt(r2));
  };
  const K = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) K[i * n + j] = k(X, i * d, X, j * d) + (i === j ? noise : 0);
  assert.ok(choleskyInPlace(K, n));
  const alpha = Float64Array.from(y);
  solveLowerInPlace(K, n, alpha);
  solveLowerTransposedInPlace(K, n, alpha);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += k(x, 0, X, i * d) * alpha[i];
  return mean;
}

test("a shared fit's log likelihood and gradient are the sums of the separate outputs' (one factorization for all)", () => {
  const random = new Random(11);
  const n = 30;
  const d = 4;
  const w = 3;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n * w }, () => random.normal());
  const theta = Float64Array.of(-1, -0.5, 0.2, 0.8, 0.3, -3);
  const shared = new DenseLikelihood(X, Y, n, d, w);
  const gradient = new Float64Array(d + 2);
  const value = shared.evaluate(theta, gradient);
  let sum = 0;
  const sums = new Float64Array(d + 2);
  for (let k = 0; k < w; k++) {
    const g = new Float64Array(d + 2);
    sum += new DenseLikelihood(X, column(Y, n, w, k), n, d).evaluate(theta, g);
    g.forEach((v, p) => (sums[p] += v));
  }
  assert.ok(Math.abs(value - sum) < 1e-9 * Math.abs(sum), `${value} vs ${sum}`);
  sums.forEach((v, p) => assert.ok(Math.abs(gradient[p] - v) < 1e-9 * Math.max(1, Math.abs(v)), `∂θ${p}: ${gradient[p]} vs ${v}`));
  // and without the gradient the value is the same
  assert.equal(shared.evaluate(theta), value);
});

test('shared posterior draws: each output conditions on its own data exactly as a separate GP (float64 paths to 1e-9, the tensor evaluation to float32 rounding)', async () => {
  const random = new Random(5);
  const n = 25;
  const d = 6;
  const w = 3;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n * w }, () => random.normal());
  const h = { lengthscales: Float64Array.of(0.4, 0.7, 0.3, 1.2, 0.9, 0.5), outputScale: 1.4, noise: 0.02 };
  // candidates: copies of a centre with a few coordinates redrawn, and one dense point
  const center = Float64Array.from({ length: d }, () => random.uniform());
  const count = 6;
  const P = new Float64Array(count * d);
  for (let a = 0; a < count; a++) {
    P.set(center, a * d);
    if (a < count - 1) P[a * d + (a % d)] = random.uniform();
    else for (let j = 0; j < d; j++) P[a * d + j] = random.uniform();
  }
  // a draw is linear in the data: with the same random stream, draw(Y) − draw(0) is the posterior mean
  const withData = posteriorDraws(X, Y, n, d, w, h, new Random(9));
  const withoutData = posteriorDraws(X, new Float64Array(n * w), n, d, w, h, new Random(9));
  const onTensors = await withData.at(P, count);
  for (let k = 0; k < w; k++) {
    const y = column(Y, n, w, k);
    for (let a = 0; a < count; a++) {
      const point = P.subarray(a * d, (a + 1) * d);
      const exact = exactMean(X, y, n, d, point, h.lengthscales, h.outputScale, h.noise);
      const value = withData.path(k).at(point, 1)[0];
      const shared = value - withoutData.path(k).at(point, 1)[0];
      assert.ok(Math.abs(shared - exact) < 1e-9, `output ${k} point ${a}: ${shared} vs ${exact}`);
      // the tensor evaluation (float32) says the same to its rounding
      assert.ok(Math.abs(onTensors[a * w + k] - value) < 2e-5 * Math.max(1, Math.abs(value)), `tensor ${onTensors[a * w + k]} vs float64 ${value}`);
    }
  }
  // the outputs' draws are different functions
  assert.notEqual(onTensors[0], onTensors[1]);
  withData.dispose();
  withoutData.dispose();
});

test('one factorization of the normal equations serves every output: the same quadratic models as separate fits', () => {
  const random = new Random(3);
  const n = 40;
  const d = 5;
  const w = 4;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n * w }, () => random.normal());
  const center = X.slice(0, d);
  const together = separableQuadratics(X, Y, n, d, w, center);
  const x = Float64Array.from({ length: d }, () => random.uniform());
  for (let k = 0; k < w; k++) {
    const alone = separableQuadratics(X, column(Y, n, w, k), n, d, 1, center)[0];
    const g1 = new Float64Array(d);
    const g2 = new Float64Array(d);
    assert.ok(Math.abs(together[k].withGradient(x, g1) - alone.withGradient(x, g2)) < 1e-12);
    g1.forEach((v, j) => assert.ok(Math.abs(v - g2[j]) < 1e-12));
  }
});

test("a region models only the constraints its local rows violate, with those rows' slacks", () => {
  // 4 rows, 3 constraints: constraint 0 violated by row 3 only, 1 never, 2 by rows 0 and 2
  const C = Float64Array.of(0.5, 1, -0.1, 0.2, 0.3, 0.4, 0.1, 2, -1, -0.3, 0.1, 0);
  assert.deepEqual(activeConstraints(C, [0, 1, 2, 3], 3), [0, 2]);
  assert.deepEqual(activeConstraints(C, [0, 1, 2], 3), [2]);
  assert.deepEqual(activeConstraints(C, [1], 3), []);
  const o: Observations = {
    d: 1,
    m: 1,
    n: 4,
    X: Float64Array.of(0.1, 0.2, 0.3, 0.4),
    Y: Float64Array.of(1, 2, 3, 4),
    ids: ['a', 'b', 'c', 'd'],
    iterations: Int32Array.of(1, 1, 1, 1),
    c: 3,
    C,
    feasible: Uint8Array.of(0, 1, 0, 0),
    failed: [],
    ref: [5],
    noisy: false,
  };
  const data = localData(o, [3, 0]);
  assert.deepEqual(data.active, [0, 2]);
  assert.deepEqual(Array.from(data.X), [0.4, 0.1]);
  assert.deepEqual(Array.from(data.Y), [4, 1]);
  assert.deepEqual(Array.from(data.S), [-0.3, 0, 0.5, -0.1]);
});

/** DTLZ2 in d parameters with outcomes g_k = bound_k − x_{k+2} (bound ≥ 1: never violated) as outcome constraints g_k ≥ 0. */
function constrainedMdl(d: number, bounds: number[], overrides: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [1, 2].map((j) => ({ name: `f${j}`, direction: 'minimize', reference: 1.1 })),
    ...(bounds.length > 0
      ? {
          outcomes: bounds.map((_, k) => ({ name: `g${k + 1}` })),
          outcome_constraints: bounds.map((_, k) => ({ expression: `g${k + 1} >= 0` })),
        }
      : {}),
    optimizer: { strategy: 'trust-region', budget: 58, batch_size: 10, initial_samples: 18, seed: 6, ...overrides },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
}

function tellAll(
  mdl: Mdl,
  state: CampaignState,
  proposals: { id: string; parameters: Record<string, number | string> }[],
  bounds: number[],
  d: number,
): CampaignState {
  const problem = testProblem('dtlz2')!;
  return tell(
    mdl,
    state,
    proposals.map((p) => {
      const x = Float64Array.from({ length: d }, (_, i) => Number(p.parameters[`x${i + 1}`]));
      const f = problem.evaluate(x, 2);
      const outcomes = Object.fromEntries(bounds.map((b, k) => [`g${k + 1}`, b - x[k + 1]]));
      return { id: p.id, objectives: { f1: f[0], f2: f[1] }, ...(bounds.length > 0 ? { outcomes } : {}) };
    }),
  ).state;
}

/** Every batch of the campaign, as parameter lists. */
async function batchesOf(d: number, bounds: number[]): Promise<string[]> {
  const mdl = constrainedMdl(d, bounds);
  let state = initialState(mdl);
  const batches: string[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state);
    batches.push(JSON.stringify(next.proposals.map((p) => p.parameters)));
    state = tellAll(mdl, next.state, next.proposals, bounds, d);
  }
  return batches;
}

test('a constraint that nothing violates is not modelled: the proposals equal those of the campaign without it', async () => {
  const d = 8;
  // g1 = 0.7 − x2 fails for three tenths of the cube; g2 = 2 − x3 never fails
  const without = await batchesOf(d, [0.7]);
  const withIdle = await batchesOf(d, [0.7, 2]);
  assert.equal(without.length, 5);
  assert.deepEqual(withIdle, without);
  // and a campaign whose only constraint never fails proposes what the unconstrained one does
  assert.deepEqual(await batchesOf(d, [2]), await batchesOf(d, []));
});

test('the cost does not multiply by the constraints: each region fits its objectives and one model shared by the active constraints', async () => {
  const d = 20;
  const bounds = [0.8, 0.8, 0.8, 0.8, 0.8, 2];
  const mdl = constrainedMdl(d, bounds, { budget: 200, batch_size: 20, initial_samples: 42 });
  const first = await step(mdl, initialState(mdl));
  const state = tellAll(mdl, first.state, first.proposals, bounds, d);
  const fits = planStep(mdl, state);
  // 5 regions; a Latin hypercube of 42 puts about 8 points above 0.8 in every coordinate, so
  // every region's local rows violate the five constraints with bound 0.8 and never the sixth
  assert.equal(fits.length, 5 * 3);
  for (let r = 0; r < 5; r++) {
    assert.equal(fits[3 * r].outputs ?? 1, 1);
    assert.equal(fits[3 * r + 1].outputs ?? 1, 1);
    assert.equal(fits[3 * r + 2].outputs, 5);
    assert.equal(fits[3 * r + 2].y.length, 5 * fits[3 * r + 2].n);
  }
});
