import test from 'node:test';
import assert from 'node:assert/strict';
import { fitHyperparameters } from '../src/engine/gp/fit.js';
import { posteriorPath } from '../src/engine/gp/pathwise.js';
import { deserializeHyperparameters, HyperparameterSpace, serializeHyperparameters, type GpHyperparameters } from '../src/engine/gp/priors.js';
import { Surrogate } from '../src/engine/gp/surrogate.js';
import { kumaraswamy, kumaraswamyWithSlopes, localLengthscales, warpInputs, warpTensor, type InputWarp } from '../src/engine/gp/warp.js';
import { fitWarp, WarpedLikelihood } from '../src/engine/gp/warp-fit.js';
import { DenseGp } from '../src/engine/diagnostics/dense-gp.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackend, tf } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function warpOf(a: number[], b: number[]): InputWarp {
  return { a: Float64Array.from(a), b: Float64Array.from(b) };
}

test('the Kumaraswamy warp: hand values, the identity, monotone', () => {
  // 1 − (1 − x^a)^b by hand
  assert.ok(Math.abs(kumaraswamy(0.5, 2, 1) - 0.25) < 1e-15);
  assert.ok(Math.abs(kumaraswamy(0.5, 1, 2) - 0.75) < 1e-15);
  assert.ok(Math.abs(kumaraswamy(0.5, 2, 3) - (1 - 0.75 ** 3)) < 1e-15);
  assert.ok(Math.abs(kumaraswamy(0.9, 100, 1) - 0.9 ** 100) < 1e-15);
  for (const x of [0.1, 0.37, 0.5, 0.99]) assert.ok(Math.abs(kumaraswamy(x, 1, 1) - x) < 1e-15);
  // clamped inside [0, 1]: finite at the bounds for any a, b in range
  for (const [a, b] of [
    [0.01, 0.01],
    [200, 200],
    [0.01, 200],
    [200, 0.01],
  ]) {
    for (const x of [0, 1]) {
      const w = kumaraswamyWithSlopes(x, a, b);
      for (const v of Object.values(w)) assert.ok(Number.isFinite(v), `a=${a} b=${b} x=${x}: ${JSON.stringify(w)}`);
    }
    let previous = -Infinity;
    for (let x = 0; x <= 1; x += 0.01) {
      const u = kumaraswamy(x, a, b);
      assert.ok(u >= previous && u >= 0 && u <= 1);
      previous = u;
    }
  }
});

test('the warp derivatives by x, log a and log b agree with central differences', () => {
  const h = 1e-6;
  for (const [x, a, b] of [
    [0.3, 2, 0.5],
    [0.8, 0.4, 3],
    [0.95, 30, 1.2],
    [0.05, 0.2, 0.2],
  ]) {
    const w = kumaraswamyWithSlopes(x, a, b);
    const dx = (kumaraswamy(x + h, a, b) - kumaraswamy(x - h, a, b)) / (2 * h);
    const dA = (kumaraswamy(x, a * Math.exp(h), b) - kumaraswamy(x, a * Math.exp(-h), b)) / (2 * h);
    const dB = (kumaraswamy(x, a, b * Math.exp(h)) - kumaraswamy(x, a, b * Math.exp(-h))) / (2 * h);
    for (const [got, want, what] of [
      [w.dx, dx, 'x'],
      [w.dLogA, dA, 'log a'],
      [w.dLogB, dB, 'log b'],
    ] as const) {
      assert.ok(Math.abs(got - want) < 1e-6 * Math.max(1, Math.abs(want)), `∂/∂${what} at x=${x} a=${a} b=${b}: ${got} against ${want}`);
    }
  }
});

test('the tensor warp agrees with the float64 one', () => {
  const warp = warpOf([3, 0.5], [0.7, 2]);
  const X = Float64Array.from([0.1, 0.2, 0.5, 0.5, 0.93, 0.7, 0, 1]);
  const expected = warpInputs(X, 4, 2, warp);
  const got = tf.tidy(() => warpTensor(tf.tensor2d(Float32Array.from(X), [4, 2]), warp).dataSync());
  for (let i = 0; i < 8; i++) assert.ok(Math.abs(got[i] - expected[i]) < 2e-6, `${i}: ${got[i]} against ${expected[i]}`);
});

test('the warped marginal likelihood: its gradient (warp parameters included) agrees with central differences', () => {
  const random = new Random(4);
  const n = 14;
  const d = 2;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, (_, i) => Math.sin(5 * X[i * d] ** 3) + 0.3 * X[i * d + 1]);
  const likelihood = new WarpedLikelihood(X, y, n, d);
  const theta = Float64Array.from([Math.log(0.4), Math.log(0.7), Math.log(1.3), Math.log(0.01), Math.log(2.5), Math.log(0.6), Math.log(0.8), Math.log(1.7)]);
  const gradient = new Float64Array(theta.length);
  likelihood.evaluate(theta, gradient);
  const h = 1e-5;
  for (let p = 0; p < theta.length; p++) {
    const up = Float64Array.from(theta);
    const down = Float64Array.from(theta);
    up[p] += h;
    down[p] -= h;
    const numeric = (likelihood.evaluate(up) - likelihood.evaluate(down)) / (2 * h);
    assert.ok(Math.abs(gradient[p] - numeric) < 1e-5 * Math.max(1, Math.abs(numeric)), `θ_${p}: ${gradient[p]} against ${numeric}`);
  }
});

test('an identity warp reproduces the unwarped model exactly (global posterior, pathwise draw, diagnostics)', async () => {
  const random = new Random(7);
  const n = 20;
  const d = 2;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n }, (_, i) => Math.cos(3 * X[i * d]) + X[i * d + 1] ** 2);
  const plain: GpHyperparameters = { lengthscales: Float64Array.from([0.3, 0.5]), outputScale: 1.2, noise: 1e-3 };
  const identity: GpHyperparameters = { ...plain, warp: warpOf([1, 1], [1, 1]) };
  const Xq = Float64Array.from({ length: 10 * d }, () => random.uniform());
  const [a, b] = [Surrogate.build(X, Y, n, d, 1, [plain]), Surrogate.build(X, Y, n, d, 1, [identity])];
  assert.deepEqual(await a.predict(Xq, 10), await b.predict(Xq, 10));
  a.dispose();
  b.dispose();
  const y = Y.map((v) => v - 0.5);
  const g1 = new Float64Array(d);
  const g2 = new Float64Array(d);
  const p1 = posteriorPath(X, y, n, d, plain, new Random(3), 64);
  const p2 = posteriorPath(X, y, n, d, identity, new Random(3), 64);
  assert.deepEqual(p1.at(Xq, 10), p2.at(Xq, 10));
  assert.equal(p1.withGradient(Xq.subarray(0, d), g1), p2.withGradient(Xq.subarray(0, d), g2));
  assert.deepEqual(g1, g2);
  assert.deepEqual(new DenseGp(X, y, n, d, plain).predict(Xq, 10), new DenseGp(X, y, n, d, identity).predict(Xq, 10));
});

test('a warped model is the unwarped model on warped inputs, in every evaluation path', async () => {
  const random = new Random(11);
  const n = 25;
  const d = 2;
  const warp = warpOf([8, 0.6], [1.5, 1]);
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n }, (_, i) => Math.cos(3 * X[i * d] ** 8) + X[i * d + 1]);
  const kernel: GpHyperparameters = { lengthscales: Float64Array.from([0.4, 0.6]), outputScale: 1, noise: 1e-3 };
  const warped: GpHyperparameters = { ...kernel, warp };
  const q = 12;
  const Xq = Float64Array.from({ length: q * d }, () => random.uniform());
  const U = warpInputs(X, n, d, warp);
  const Uq = warpInputs(Xq, q, d, warp);
  const direct = Surrogate.build(U, Y, n, d, 1, [kernel]);
  const throughWarp = Surrogate.build(X, Y, n, d, 1, [warped]);
  const [want, got] = [await direct.predict(Uq, q), await throughWarp.predict(Xq, q)];
  for (let i = 0; i < q; i++) {
    assert.ok(Math.abs(got.mean[i] - want.mean[i]) < 1e-4, `mean ${i}: ${got.mean[i]} against ${want.mean[i]}`);
    assert.ok(Math.abs(got.variance[i] - want.variance[i]) < 1e-4, `variance ${i}`);
  }
  // conditioning on new raw points warps them too
  const more = await throughWarp.condition(Xq.subarray(0, 2 * d), Float64Array.from([0.1, 0.2]), 2);
  const moreDirect = await direct.condition(Uq.subarray(0, 2 * d), Float64Array.from([0.1, 0.2]), 2);
  const [c1, c2] = [await more.predict(Xq, q), await moreDirect.predict(Uq, q)];
  for (let i = 0; i < q; i++) assert.ok(Math.abs(c1.mean[i] - c2.mean[i]) < 1e-3, `conditioned mean ${i}: ${c1.mean[i]} against ${c2.mean[i]}`);
  for (const s of [direct, throughWarp, more, moreDirect]) s.dispose();

  const y = Y.map((v) => v - 0.5);
  const path = posteriorPath(X, y, n, d, warped, new Random(5), 64);
  const reference = posteriorPath(U, y, n, d, kernel, new Random(5), 64);
  const atRaw = path.at(Xq, q);
  const atWarped = reference.at(Uq, q);
  for (let i = 0; i < q; i++) assert.ok(Math.abs(atRaw[i] - atWarped[i]) < 1e-9);
  // the gradient by the raw input is the chain rule's: against central differences
  const x = Float64Array.from([0.7, 0.4]);
  const gradient = new Float64Array(d);
  path.withGradient(x, gradient);
  for (let j = 0; j < d; j++) {
    const [up, down] = [Float64Array.from(x), Float64Array.from(x)];
    up[j] += 1e-6;
    down[j] -= 1e-6;
    const numeric = (path.at(up, 1)[0] - path.at(down, 1)[0]) / 2e-6;
    assert.ok(Math.abs(gradient[j] - numeric) < 1e-5 * Math.max(1, Math.abs(numeric)), `∂/∂x_${j}: ${gradient[j]} against ${numeric}`);
  }
  const diagnostic = new DenseGp(X, y, n, d, warped).meanAt(Xq, q);
  const diagnosticDirect = new DenseGp(U, y, n, d, kernel).meanAt(Uq, q);
  for (let i = 0; i < q; i++) assert.ok(Math.abs(diagnostic[i] - diagnosticDirect[i]) < 1e-12);
});

/** Root mean squared error of a fit's posterior mean at held-out points, in units of the outputs' sd. */
async function heldOutError(
  X: Float64Array,
  y: Float64Array,
  n: number,
  d: number,
  h: GpHyperparameters,
  Xt: Float64Array,
  yt: Float64Array,
  t: number,
): Promise<number> {
  const surrogate = Surrogate.build(X, y, n, d, 1, [h]);
  const { mean } = await surrogate.predict(Xt, t);
  surrogate.dispose();
  let ss = 0;
  let mu = 0;
  for (let i = 0; i < t; i++) mu += yt[i] / t;
  let vv = 0;
  for (let i = 0; i < t; i++) {
    ss += (mean[i] - yt[i]) ** 2;
    vv += (yt[i] - mu) ** 2;
  }
  return Math.sqrt(ss / vv);
}

/** A DTLZ4-like bias: the change of f sits in a sliver near x₁ = 1. */
function biased(x: Float64Array, i: number, d: number): number {
  return Math.cos((Math.PI / 2) * x[i * d] ** 30) + (d > 1 ? 0.5 * x[i * d + 1] : 0);
}

for (const d of [1, 2]) {
  test(`the warp's fit on a biased ${d}-d function stretches the top of x₁ and predicts held-out points better`, async () => {
    const random = new Random(20 + d);
    const n = 40;
    const t = 400;
    const X = Float64Array.from({ length: n * d }, () => random.uniform());
    // the data hold a few points in the sliver, as a campaign that found it would
    for (let i = 0; i < 6; i++) X[i * d] = 0.88 + 0.02 * i;
    const Xt = Float64Array.from({ length: t * d }, () => random.uniform());
    for (let i = 0; i < t / 2; i++) Xt[i * d] = 0.85 + 0.15 * random.uniform();
    const y = Float64Array.from({ length: n }, (_, i) => biased(X, i, d));
    const yt = Float64Array.from({ length: t }, (_, i) => biased(Xt, i, d));
    const warped = fitHyperparameters(X, y, n, d, { seed: 1 }).hyperparameters;
    const plain = fitHyperparameters(X, y, n, d, { seed: 1, warp: false }).hyperparameters;
    assert.ok(warped.warp, 'the fit keeps a warp');
    assert.equal(plain.warp, undefined);
    const w = warped.warp;
    const slope = (x: number) => kumaraswamyWithSlopes(x, w.a[0], w.b[0]).dx;
    assert.ok(slope(0.95) > 4 * slope(0.3), `w′(0.95) = ${slope(0.95)} against w′(0.3) = ${slope(0.3)} (a ${w.a[0]}, b ${w.b[0]})`);
    const [warpedError, plainError] = [await heldOutError(X, y, n, d, warped, Xt, yt, t), await heldOutError(X, y, n, d, plain, Xt, yt, t)];
    assert.ok(warpedError < 0.7 * plainError, `held-out error ${warpedError} warped against ${plainError}`);
  });
}

test('a smooth stationary function keeps no warp', () => {
  const random = new Random(3);
  const n = 30;
  const d = 2;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, (_, i) => Math.sin(3 * X[i * d]) + Math.cos(2 * X[i * d + 1]));
  const mean = y.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(y.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  const h = fitHyperparameters(
    X,
    y.map((v) => (v - mean) / sd),
    n,
    d,
    { seed: 2 },
  ).hyperparameters;
  assert.equal(h.warp, undefined);
});

test('fitWarp keeps nothing unless the log posterior gains the margin', () => {
  const random = new Random(9);
  const n = 20;
  const X = Float64Array.from({ length: n }, () => random.uniform());
  const y = X.map((x) => 2 * x - 1);
  const space = new HyperparameterSpace(1);
  // an unwarped fit said to be far better than any warp can do
  const { warped } = fitWarp(X, y, n, 1, space, space.defaultTheta(), 1e6, 50);
  assert.equal(warped, null);
});

test('hyperparameters with a warp serialize and load; states from before warping still load', () => {
  const h: GpHyperparameters = { lengthscales: Float64Array.from([0.2, 0.3]), outputScale: 1.5, noise: 1e-3, warp: warpOf([4, 1], [0.5, 2]) };
  const json = JSON.parse(JSON.stringify(serializeHyperparameters(h)));
  assert.deepEqual(json.warp, { a: [4, 1], b: [0.5, 2] });
  assert.deepEqual(deserializeHyperparameters(json), h);
  const old = deserializeHyperparameters({ lengthscales: [0.2, 0.3], outputScale: 1.5, noise: 1e-3 });
  assert.equal(old.warp, undefined);
  assert.ok(!('warp' in serializeHyperparameters(old)));
});

test('a warped lengthscale in raw units is l / w′(x): by hand for u = x²', () => {
  const warp = warpOf([2, 1], [1, 1]);
  // w′(x) = 2x: at x = 0.25 the lengthscale 0.5 is worth 1 raw unit, at 0.5 one half; input 2 unwarped
  const at = (x: number) => localLengthscales([0.5, 0.3], warp, [x, 0.9]);
  assert.ok(Math.abs(at(0.25)[0] - 1) < 1e-9 && Math.abs(at(0.5)[0] - 0.5) < 1e-9);
  assert.equal(at(0.5)[1], 0.3);
  assert.deepEqual(localLengthscales([0.5, 0.3], undefined, [0.1, 0.1]), Float64Array.from([0.5, 0.3]));
});
