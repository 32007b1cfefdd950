import test from 'node:test';
import assert from 'node:assert/strict';
import { initTensorBackend, tf } from '../src/engine/tensor/backend.js';
import { DENSE_LIMIT, fitHyperparameters, stageSizes } from '../src/engine/gp/fit.js';
import { GaussianProcess } from '../src/engine/gp/gaussian-process.js';
import { minimizeBounded } from '../src/engine/gp/lbfgs.js';
import { NotPositiveDefiniteError } from '../src/engine/gp/jitter.js';
import { DenseLikelihood } from '../src/engine/gp/likelihood.js';
import { maternCorrelation, maternCross, maternGram, scaleInputs } from '../src/engine/gp/matern.js';
import { BatchedPosterior } from '../src/engine/gp/posterior.js';
import { HyperparameterSpace, NOISE_FLOOR, type GpHyperparameters } from '../src/engine/gp/priors.js';
import { ReferenceGp, referenceCholesky, referenceKernel, referenceLogMarginalLikelihood, referenceStandardization } from '../reference/gp.js';
import { Surrogate } from '../src/engine/gp/surrogate.js';
import { conditioningNoise } from '../src/engine/gp/tensor-covariance.js';
import { TensorLikelihood } from '../src/engine/gp/tensor-likelihood.js';
import { Random } from '../src/engine/random.js';
import { blockedPathAgreesWithFloat64 } from './support/gp-conformance.js';
import { maxAbsDifference, sinusoids, uniformPoints } from './support/gp-fixtures.js';

await initTensorBackend('wasm');

const IDENTITY = { mean: 0, std: 1 };

function hyper(lengthscales: number[], outputScale: number, noise: number): GpHyperparameters {
  return { lengthscales: Float64Array.from(lengthscales), outputScale, noise };
}

function column(Y: Float64Array, n: number, m: number, o: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => Y[i * m + o]);
}

function standardize(y: Float64Array): Float64Array {
  const { mean, std } = referenceStandardization(y);
  return y.map((v) => (v - mean) / std);
}

/** Posterior of single-output GPs through the batched tensor path, as plain arrays. */
function posteriorOf(gp: GaussianProcess, Xq: Float64Array, q: number, transform = IDENTITY, center?: Float64Array) {
  const batched = new BatchedPosterior([gp], [transform], center ?? new Float64Array(gp.d).fill(0.5));
  const out = tf.tidy(() => batched.compute(tf.tensor2d(Float32Array.from(Xq), [q, gp.d])));
  batched.dispose();
  const mean = Float64Array.from(out.mean.dataSync());
  const variance = Float64Array.from(out.variance.dataSync());
  out.mean.dispose();
  out.variance.dispose();
  return { mean, variance };
}

function centralDifference(f: (theta: Float64Array) => number, theta: Float64Array, p: number, h: number): number {
  const plus = Float64Array.from(theta);
  const minus = Float64Array.from(theta);
  plus[p] += h;
  minus[p] -= h;
  return (f(plus) - f(minus)) / (2 * h);
}

test('Matern-5/2 correlation matches (1 + √5 r + 5/3 r²) e^{−√5 r} at hand-computed points', () => {
  assert.equal(maternCorrelation(0), 1);
  assert.ok(Math.abs(maternCorrelation(0.5) - 0.8286491424181253) < 1e-15);
  assert.ok(Math.abs(maternCorrelation(1) - 0.5239941088318203) < 1e-15);
  assert.ok(Math.abs(maternCorrelation(2) - 0.13866021913850426) < 1e-15);
});

test('the Gram and cross-covariance matrices equal the kernel definition entry by entry', () => {
  const d = 3;
  const h = hyper([0.3, 0.7, 1.9], 1.7, 0.01);
  const X = uniformPoints(6, d, 1);
  const Xb = uniformPoints(4, d, 2);
  const K = new Float64Array(36);
  maternGram(scaleInputs(X, 6, d, h.lengthscales), 6, d, h.outputScale, K);
  const C = maternCross(scaleInputs(X, 6, d, h.lengthscales), 6, scaleInputs(Xb, 4, d, h.lengthscales), 4, d, h.outputScale);
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j < 6; j++) {
      const expected = referenceKernel(X.subarray(i * d, i * d + d), X.subarray(j * d, j * d + d), h);
      assert.ok(Math.abs(K[i * 6 + j] - expected) < 1e-14);
    }
    for (let j = 0; j < 4; j++) {
      const expected = referenceKernel(X.subarray(i * d, i * d + d), Xb.subarray(j * d, j * d + d), h);
      assert.ok(Math.abs(C[i * 4 + j] - expected) < 1e-14);
    }
  }
});

test('the kernel lengthscale gradient factor H (∂K/∂log l_k = H·Δ_k²/l_k²) matches finite differences', () => {
  const d = 3;
  const n = 5;
  const X = uniformPoints(n, d, 4);
  const s2 = 1.3;
  const logL = Float64Array.from([Math.log(0.4), Math.log(0.9), Math.log(0.25)]);
  const gram = (t: Float64Array, H?: Float64Array): Float64Array => {
    const K = new Float64Array(n * n);
    maternGram(scaleInputs(X, n, d, Array.from(t, Math.exp)), n, d, s2, K, H);
    return K;
  };
  const H = new Float64Array(n * n);
  gram(logL, H);
  const Z = scaleInputs(X, n, d, Array.from(logL, Math.exp));
  for (let k = 0; k < d; k++) {
    const plus = Float64Array.from(logL);
    const minus = Float64Array.from(logL);
    plus[k] += 1e-6;
    minus[k] -= 1e-6;
    const Kp = gram(plus);
    const Km = gram(minus);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < i; j++) {
        const analytic = H[i * n + j] * (Z[i * d + k] - Z[j * d + k]) ** 2;
        const numeric = (Kp[i * n + j] - Km[i * n + j]) / 2e-6;
        assert.ok(Math.abs(analytic - numeric) < 1e-8, `pair (${i}, ${j}), input ${k}: ${analytic} vs ${numeric}`);
      }
    }
  }
});

test('float64 log marginal likelihood: value equals the reference, gradient equals finite differences', () => {
  const n = 40;
  const d = 3;
  const X = uniformPoints(n, d, 9);
  const y = standardize(Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d)));
  const space = new HyperparameterSpace(d);
  const theta = Float64Array.from([Math.log(0.3), Math.log(0.6), Math.log(1.5), Math.log(1.2), Math.log(3e-3)]);
  const dense = new DenseLikelihood(X, y, n, d);
  const gradient = new Float64Array(d + 2);
  const value = dense.evaluate(theta, gradient);
  const reference = referenceLogMarginalLikelihood(X, y, n, d, space.fromTheta(theta));
  assert.ok(reference);
  assert.ok(Math.abs(value - reference.value) < 1e-9 * Math.abs(reference.value));
  const refAt = (t: Float64Array): number => referenceLogMarginalLikelihood(X, y, n, d, space.fromTheta(t))?.value ?? NaN;
  for (let p = 0; p < d + 2; p++) {
    const numeric = centralDifference((t) => dense.evaluate(t), theta, p, 1e-5);
    assert.ok(Math.abs(gradient[p] - numeric) < 1e-5 * Math.max(1, Math.abs(numeric)), `θ${p}: ${gradient[p]} vs ${numeric}`);
    const refNumeric = centralDifference(refAt, theta, p, 1e-5);
    assert.ok(Math.abs(reference.gradient[p] - refNumeric) < 1e-5 * Math.max(1, Math.abs(refNumeric)), `reference θ${p}`);
  }
});

test('float64 likelihood gradient in 7 dimensions (the unrolled lengthscale loop and its tail) equals finite differences', () => {
  const n = 30;
  const d = 7;
  const X = uniformPoints(n, d, 4);
  const y = standardize(Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d)));
  const theta = Float64Array.from([0.2, 0.5, 1, 0.25, 0.8, 0.4, 0.6, 1.3, 2e-3].map(Math.log));
  const dense = new DenseLikelihood(X, y, n, d);
  const gradient = new Float64Array(d + 2);
  dense.evaluate(theta, gradient);
  for (let p = 0; p < d + 2; p++) {
    const numeric = centralDifference((t) => dense.evaluate(t), theta, p, 1e-5);
    assert.ok(Math.abs(gradient[p] - numeric) < 1e-5 * Math.max(1, Math.abs(numeric)), `θ${p}: ${gradient[p]} vs ${numeric}`);
  }
});

test('a covariance that no jitter factors is a NotPositiveDefiniteError, the one failure a batch may pass over when it conditions on a pick', async () => {
  const n = 8;
  const X = uniformPoints(n, 2, 1);
  const y = standardize(Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * 2, i * 2 + 2), 2)));
  const gp = GaussianProcess.build(X, y, n, 2, { lengthscales: Float64Array.of(0.3, 0.3), outputScale: 1, noise: 1e-4 });
  try {
    await assert.rejects(gp.condition(Float64Array.of(Number.NaN, 0.5), Float64Array.of(0), 1), NotPositiveDefiniteError);
    const conditioned = await gp.condition(Float64Array.of(0.5, 0.5), Float64Array.of(0), 1);
    conditioned.dispose();
  } finally {
    gp.dispose();
  }
});

test('tensor-path log marginal likelihood and gradient agree with float64 and with finite differences', () => {
  const n = 150;
  const d = 4;
  const X = uniformPoints(n, d, 12);
  const y = standardize(Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d)));
  const theta = Float64Array.from([Math.log(0.5), Math.log(0.7), Math.log(0.9), Math.log(2), Math.log(0.8), Math.log(1e-3)]);
  // The tensor path's model has noise σ² + τ·1ᵀF1/n (its conditioning floor); the same model in float64:
  const dense = new DenseLikelihood(X, y, n, d);
  const floored = (t: Float64Array): number => {
    const F = new Float64Array(n * n);
    maternGram(scaleInputs(X, n, d, Array.from(t.subarray(0, d), Math.exp)), n, d, Math.exp(t[d]), F);
    const effective = Float64Array.from(t);
    effective[d + 1] = Math.log(Math.exp(t[d + 1]) + conditioningNoise(F, n));
    return dense.evaluate(effective);
  };
  // 64-wide blocks: three panels, so every block product of the tensor path is exercised.
  const tensor = new TensorLikelihood(X, y, n, d, 64);
  const gradient = new Float64Array(d + 2);
  const value = tensor.evaluate(theta, gradient);
  const expected = floored(theta);
  assert.ok(Math.abs(value - expected) < 1e-5 * Math.abs(expected), `${value} vs ${expected}`);
  for (let p = 0; p < d + 2; p++) {
    const numeric = centralDifference(floored, theta, p, 1e-5);
    const scale = Math.max(1, Math.abs(numeric));
    assert.ok(Math.abs(gradient[p] - numeric) < 1e-4 * scale, `θ${p}: ${gradient[p]} vs float64 ${numeric}`);
    const own = centralDifference((t) => tensor.evaluate(t), theta, p, 1e-2);
    assert.ok(Math.abs(gradient[p] - own) < 1e-3 * scale, `θ${p}: ${gradient[p]} vs its own finite difference ${own}`);
  }
});

test('posterior equals the closed form on a two-point hand case', () => {
  const h = hyper([0.5], 2, 0.1);
  const X = Float64Array.from([0.2, 0.6]);
  const y = Float64Array.from([1, -1]);
  const gp = GaussianProcess.build(X, y, 2, 1, h);
  // K = [[s²+σ², k12], [k12, s²+σ²]] inverted explicitly; k* = s²·m(|x* − x_i|/l).
  const k12 = 2 * maternCorrelation(0.4 / 0.5);
  const det = 2.1 * 2.1 - k12 * k12;
  const Kinv = [
    [2.1 / det, -k12 / det],
    [-k12 / det, 2.1 / det],
  ];
  const ks = [2 * maternCorrelation(0.1 / 0.5), 2 * maternCorrelation(0.3 / 0.5)];
  const mean = ks[0] * (Kinv[0][0] - Kinv[0][1]) + ks[1] * (Kinv[1][0] - Kinv[1][1]);
  const explained = ks[0] * (Kinv[0][0] * ks[0] + Kinv[0][1] * ks[1]) + ks[1] * (Kinv[1][0] * ks[0] + Kinv[1][1] * ks[1]);
  assert.ok(Math.abs(mean - 0.4906820737148343) < 1e-12, 'hand computation of the mean');
  assert.ok(Math.abs(2 - explained - 0.12178843955652985) < 1e-12, 'hand computation of the variance');
  const post = posteriorOf(gp, Float64Array.from([0.3]), 1);
  assert.ok(Math.abs(post.mean[0] - mean) < 1e-5, `mean ${post.mean[0]} vs ${mean}`);
  assert.ok(Math.abs(post.variance[0] - (2 - explained)) < 1e-5, `variance ${post.variance[0]} vs ${2 - explained}`);
  // The log marginal likelihood of the same case: −½ yᵀK⁻¹y − ½ log det K − log 2π.
  const quad = Kinv[0][0] + Kinv[1][1] - 2 * Kinv[0][1];
  assert.ok(Math.abs(gp.logMarginalLikelihood - (-0.5 * quad - 0.5 * Math.log(det) - Math.log(2 * Math.PI))) < 1e-12);
  gp.dispose();
});

test('the posterior interpolates noiseless data and reverts to the prior far away', () => {
  const n = 8;
  const X = Float64Array.from({ length: n }, (_, i) => i / (n - 1));
  const y = X.map((x) => Math.sin(6 * x));
  const gp = GaussianProcess.build(X, y, n, 1, hyper([0.15], 1.5, NOISE_FLOOR));
  const transform = { mean: 3, std: 2 };
  const atData = posteriorOf(gp, X, n, transform);
  for (let i = 0; i < n; i++) {
    assert.ok(Math.abs(atData.mean[i] - (3 + 2 * y[i])) < 2e-3, `mean at x_${i}`);
    assert.ok(atData.variance[i] < 4 * 2 * NOISE_FLOOR, `variance at x_${i} is ${atData.variance[i]}`);
  }
  // 40 lengthscales away the kernel is ~1e-37: the prior mean and variance, in original units.
  const far = posteriorOf(gp, Float64Array.from([7]), 1, transform);
  assert.ok(Math.abs(far.mean[0] - 3) < 1e-6);
  assert.ok(Math.abs(far.variance[0] - 1.5 * 4) < 1e-5);
  gp.dispose();
});

test('the fitted lengthscale recovers that of a 1-D Matern sample path', () => {
  const n = 80;
  const trueLengthscale = 0.12;
  const X = uniformPoints(n, 1, 21);
  const random = new Random(22);
  const K = new Float64Array(n * n);
  maternGram(
    X.map((v) => v / trueLengthscale),
    n,
    1,
    1,
    K,
  );
  for (let i = 0; i < n; i++) K[i * n + i] += 1e-6;
  const L = referenceCholesky(K, n);
  assert.ok(L);
  const z = Float64Array.from({ length: n }, () => random.normal());
  const Y = Float64Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let k = 0; k <= i; k++) s += L[i * n + k] * z[k];
    return s;
  });
  const surrogate = Surrogate.fit(X, Y, n, 1, 1, { seed: 3 });
  const [fitted] = surrogate.hyperparameters;
  surrogate.dispose();
  assert.ok(
    fitted.lengthscales[0] > trueLengthscale / 1.6 && fitted.lengthscales[0] < trueLengthscale * 1.6,
    `fitted lengthscale ${fitted.lengthscales[0]} for a true ${trueLengthscale}`,
  );
});

test('ARD: short lengthscale on the relevant input, long on the irrelevant one', () => {
  const n = 40;
  const X = uniformPoints(n, 2, 31);
  const Y = Float64Array.from({ length: n }, (_, i) => Math.sin(5 * X[2 * i]));
  const surrogate = Surrogate.fit(X, Y, n, 2, 1, { seed: 4 });
  const [{ lengthscales }] = surrogate.hyperparameters;
  surrogate.dispose();
  assert.ok(lengthscales[0] < 1, `relevant input lengthscale ${lengthscales[0]}`);
  assert.ok(lengthscales[1] > 5 * lengthscales[0], `irrelevant input lengthscale ${lengthscales[1]} vs ${lengthscales[0]}`);
});

test('the same seed gives the same hyperparameters', () => {
  const n = 30;
  const d = 3;
  const X = uniformPoints(n, d, 41);
  const Y = Float64Array.from({ length: n * 2 }, (_, i) => sinusoids(X.subarray((i >> 1) * d, (i >> 1) * d + d), d) * (i % 2 ? -2 : 1));
  const a = Surrogate.fit(X, Y, n, d, 2, { seed: 99 });
  const b = Surrogate.fit(X, Y, n, d, 2, { seed: 99 });
  assert.deepEqual(a.hyperparameters, b.hyperparameters);
  assert.deepEqual(a.logMarginalLikelihood, b.logMarginalLikelihood);
  a.dispose();
  b.dispose();
});

test('float32 posterior agrees with the float64 reference at n = 200, d = 6', async () => {
  const n = 200;
  const d = 6;
  const m = 2;
  const X = uniformPoints(n, d, 51);
  const Y = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    const f = sinusoids(X.subarray(i * d, i * d + d), d);
    Y[i * m] = f;
    Y[i * m + 1] = 50 - 20 * f * f;
  }
  // unwarped: a warp makes this smooth function smoother still (s² near its bound, lengthscales
  // about 5), where the float32 mean's error reaches about 1 % of the std (test/input-warp.test.ts
  // checks the warped paths against the same model on warped inputs)
  const surrogate = Surrogate.fit(X, Y, n, d, m, { seed: 5, warp: false });
  const q = 300;
  const Xq = uniformPoints(q, d, 52);
  const fast = await surrogate.predict(Xq, q);
  for (let o = 0; o < m; o++) {
    const y = column(Y, n, m, o);
    const reference = new ReferenceGp(X, y, n, d, surrogate.hyperparameters[o]);
    const slow = reference.predict(Xq, q);
    const std = reference.std;
    const mean = Float64Array.from({ length: q }, (_, i) => fast.mean[i * m + o]);
    const variance = Float64Array.from({ length: q }, (_, i) => fast.variance[i * m + o]);
    assert.ok(maxAbsDifference(mean, slow.mean) < 1e-3 * std, `output ${o}: mean error ${maxAbsDifference(mean, slow.mean) / std} std`);
    assert.ok(maxAbsDifference(variance, slow.variance) < 1e-3 * std * std, `output ${o}: variance error`);
    const lml = referenceLogMarginalLikelihood(X, standardize(y), n, d, surrogate.hyperparameters[o]);
    assert.ok(lml && Math.abs(surrogate.logMarginalLikelihood[o] - lml.value) < 1e-8 * Math.abs(lml.value));
  }
  surrogate.dispose();
});

test('beyond the dense limit (blocked float32 path) the posterior still agrees with float64', async () => {
  await blockedPathAgreesWithFloat64();
});

test('condition() equals a model built on the union of the data with the same hyperparameters', async () => {
  for (const [n, blockSize] of [
    [25, 64],
    [300, 64],
  ]) {
    const d = 3;
    const k = 4;
    const X = uniformPoints(n + k, d, 70 + n);
    const y = standardize(Float64Array.from({ length: n + k }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d)));
    const h = hyper([0.4, 0.6, 0.9], 1.1, 2e-3);
    const base = GaussianProcess.build(X.subarray(0, n * d), y.subarray(0, n), n, d, h, blockSize);
    const conditioned = await base.condition(X.subarray(n * d), y.subarray(n), k);
    const union = GaussianProcess.build(X, y, n + k, d, h, blockSize);
    assert.ok(maxAbsDifference(conditioned.alpha, union.alpha) < 1e-3 * Math.max(1, ...union.alpha.map(Math.abs)), `n=${n}: α`);
    assert.ok(Math.abs(conditioned.logMarginalLikelihood - union.logMarginalLikelihood) < 1e-4 * Math.abs(union.logMarginalLikelihood));
    const q = 50;
    const Xq = uniformPoints(q, d, 80 + n);
    const a = posteriorOf(conditioned, Xq, q);
    const b = posteriorOf(union, Xq, q);
    assert.ok(maxAbsDifference(a.mean, b.mean) < 1e-4, `n=${n}: mean`);
    assert.ok(maxAbsDifference(a.variance, b.variance) < 1e-4, `n=${n}: variance`);
    for (const gp of [base, conditioned, union]) gp.dispose();
  }
});

test('Surrogate.condition keeps the output standardization and matches the float64 union model', async () => {
  const n = 30;
  const d = 2;
  const m = 2;
  const k = 3;
  const X = uniformPoints(n + k, d, 91);
  const Y = new Float64Array((n + k) * m);
  for (let i = 0; i < n + k; i++) {
    Y[i * m] = sinusoids(X.subarray(i * d, i * d + d), d);
    Y[i * m + 1] = 10 + 4 * Math.sin(5 * X[i * d]) * X[i * d + 1];
  }
  const surrogate = Surrogate.fit(X.subarray(0, n * d), Y.subarray(0, n * m), n, d, m, { seed: 8 });
  const conditioned = await surrogate.condition(X.subarray(n * d), Y.subarray(n * m), k);
  assert.equal(conditioned.n, n + k);
  const q = 40;
  const Xq = uniformPoints(q, d, 92);
  const fast = await conditioned.predict(Xq, q);
  for (let o = 0; o < m; o++) {
    const original = referenceStandardization(column(Y, n, m, o));
    const reference = new ReferenceGp(X, column(Y, n + k, m, o), n + k, d, surrogate.hyperparameters[o], original);
    const slow = reference.predict(Xq, q);
    const mean = Float64Array.from({ length: q }, (_, i) => fast.mean[i * m + o]);
    assert.ok(maxAbsDifference(mean, slow.mean) < 1e-3 * original.std, `output ${o}: mean`);
  }
  surrogate.dispose();
  conditioned.dispose();
});

test('conditioning on the posterior mean (Kriging believer) keeps the mean and shrinks the variance', async () => {
  const n = 20;
  const d = 2;
  const X = uniformPoints(n, d, 101);
  const Y = Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d));
  const surrogate = Surrogate.fit(X, Y, n, d, 1, { seed: 10 });
  const std = referenceStandardization(Y).std;
  const { noise: standardizedNoise, outputScale } = surrogate.hyperparameters[0];
  const noise = standardizedNoise * std * std;
  // s² − ‖L⁻¹k*‖² cancels in float32 next to data: allow ~1e-5 of the prior variance on top of 2%.
  const float32Slack = 1e-5 * outputScale * std * std;
  for (const x of [Float64Array.from([0.37, 0.81]), Float64Array.from([0.98, 0.02])]) {
    const before = await surrogate.predict(x, 1);
    const believer = await surrogate.condition(x, before.mean, 1);
    const after = await believer.predict(x, 1);
    believer.dispose();
    assert.ok(Math.abs(after.mean[0] - before.mean[0]) < 1e-4 * std);
    // One more observation at x with noise σ²: v' = v σ² / (v + σ²).
    const expected = (before.variance[0] * noise) / (before.variance[0] + noise);
    assert.ok(Math.abs(after.variance[0] - expected) < 0.02 * expected + float32Slack, `${after.variance[0]} vs ${expected}`);
  }
  surrogate.dispose();
});

test('no NaN on duplicated inputs, constant outputs, n = 1 and n = 2', async () => {
  const d = 2;
  const Xq = uniformPoints(10, d, 111);
  const cases: { name: string; X: Float64Array; Y: Float64Array; n: number }[] = [];
  const base = uniformPoints(6, d, 112);
  const duplicated = new Float64Array(12 * d);
  duplicated.set(base);
  duplicated.set(base, 6 * d);
  cases.push({ name: 'duplicates, same outputs', X: duplicated, Y: Float64Array.from({ length: 12 }, (_, i) => Math.sin(4 * duplicated[i * d])), n: 12 });
  cases.push({ name: 'duplicates, conflicting outputs', X: duplicated, Y: Float64Array.from({ length: 12 }, (_, i) => (i < 6 ? 1 : -1)), n: 12 });
  cases.push({ name: 'constant outputs', X: base, Y: new Float64Array(6).fill(4.2), n: 6 });
  cases.push({ name: 'n = 1', X: base.subarray(0, d), Y: Float64Array.from([3]), n: 1 });
  cases.push({ name: 'n = 2', X: base.subarray(0, 2 * d), Y: Float64Array.from([3, -1]), n: 2 });
  for (const c of cases) {
    const surrogate = Surrogate.fit(c.X, c.Y, c.n, d, 1, { seed: 1 });
    const [h] = surrogate.hyperparameters;
    assert.ok([...h.lengthscales, h.outputScale, h.noise].every(Number.isFinite), `${c.name}: hyperparameters`);
    assert.ok(Number.isFinite(surrogate.logMarginalLikelihood[0]), `${c.name}: log marginal likelihood`);
    const { mean, variance } = await surrogate.predict(Xq, 10);
    assert.ok(mean.every(Number.isFinite) && variance.every((v) => Number.isFinite(v) && v >= 0), `${c.name}: predictions`);
    if (c.name === 'constant outputs')
      assert.ok(
        mean.every((v) => Math.abs(v - 4.2) < 1e-6),
        'a constant is predicted as itself',
      );
    if (c.name === 'n = 1') assert.ok(Math.abs((await surrogate.predict(c.X, 1)).mean[0] - 3) < 1e-6, 'the one observation is reproduced');
    const conditioned = await surrogate.condition(c.X.subarray(0, d), c.Y.subarray(0, 1), 1);
    assert.ok((await conditioned.predict(Xq, 10)).mean.every(Number.isFinite), `${c.name}: conditioned on a duplicate`);
    conditioned.dispose();
    surrogate.dispose();
  }
});

test('posterior() returns q x m tensors inside tf.tidy without leaking', () => {
  const n = 15;
  const d = 2;
  const X = uniformPoints(n, d, 121);
  const Y = Float64Array.from({ length: n * 2 }, (_, i) => (i % 2 ? 1 : -1) * X[(i >> 1) * d]);
  const surrogate = Surrogate.fit(X, Y, n, d, 2, { seed: 2 });
  const before = tf.memory().numTensors;
  const shapes = tf.tidy(() => {
    const { mean, variance } = surrogate.posterior(tf.tensor2d(Float32Array.from(uniformPoints(7, d, 122)), [7, d]));
    return [mean.shape, variance.shape];
  });
  assert.deepEqual(shapes, [
    [7, 2],
    [7, 2],
  ]);
  assert.equal(tf.memory().numTensors, before);
  surrogate.dispose();
});

test('invalid data is rejected with a message naming the problem', () => {
  const X = uniformPoints(4, 2, 1);
  assert.throws(() => Surrogate.fit(X, Float64Array.from([1, 2, NaN, 4]), 4, 2, 1, { seed: 1 }), /output 0 of point 2 is NaN/);
  assert.throws(() => Surrogate.fit(X, Float64Array.from([1, 2]), 4, 2, 1, { seed: 1 }), /4 points need 8 and 4/);
  assert.throws(() => Surrogate.fit(X, new Float64Array(0), 0, 2, 1, { seed: 1 }), /at least one point/);
});

test('the fit schedule: all points up to the dense limit, then nested subsets up to n', () => {
  assert.deepEqual(stageSizes(1), [1]);
  assert.deepEqual(stageSizes(DENSE_LIMIT), [DENSE_LIMIT]);
  assert.deepEqual(stageSizes(300), [256, 300]);
  assert.deepEqual(stageSizes(1500), [256, 1500]);
  assert.deepEqual(stageSizes(2000), [256, 1024, 2000]);
  // Beyond ~2700 points a full-data evaluation costs more than a stage's budget: the last fit is on 1024.
  assert.deepEqual(stageSizes(5000), [256, 1024]);
});

test('a warm refit beyond the dense limit fits all points from the warm start, as well as the cold staged fit and cheaper', () => {
  const d = 4;
  const n = 300;
  const X = uniformPoints(n, d, 61);
  const random = new Random(62);
  const y = standardize(Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d) + 0.05 * random.normal()));
  const earlier = 280;
  const previous = fitHyperparameters(X.subarray(0, earlier * d), standardize(y.subarray(0, earlier)), earlier, d, { seed: 1 });
  assert.deepEqual(previous.stages, [DENSE_LIMIT, earlier]);
  const cold = fitHyperparameters(X, y, n, d, { seed: 2 });
  const warm = fitHyperparameters(X, y, n, d, { seed: 2, initial: previous.hyperparameters });
  assert.deepEqual(warm.stages, [n]);
  assert.ok(warm.evaluations < cold.evaluations, `warm refit ${warm.evaluations} evaluations, cold ${cold.evaluations}`);
  // Both judged by the same float64 log posterior per point.
  const space = new HyperparameterSpace(d);
  const exact = new DenseLikelihood(X, y, n, d);
  const perPoint = (h: GpHyperparameters): number => {
    const theta = space.toTheta(h);
    return (exact.evaluate(theta) + space.logPrior(theta)) / n;
  };
  const [warmScore, coldScore] = [perPoint(warm.hyperparameters), perPoint(cold.hyperparameters)];
  assert.ok(warmScore > coldScore - 2e-3, `log posterior per point: warm refit ${warmScore}, cold staged fit ${coldScore}`);
});

test('bounded L-BFGS finds the constrained minimum of a quadratic and of Rosenbrock', () => {
  // (x − 3)² + 10 (y + 1)² on [0, 2] x [−5, 5]: the minimum (3, −1) is cut off at x = 2.
  const quadratic = minimizeBounded(
    (v, g) => {
      g[0] = 2 * (v[0] - 3);
      g[1] = 20 * (v[1] + 1);
      return (v[0] - 3) ** 2 + 10 * (v[1] + 1) ** 2;
    },
    [0.5, 4],
    { lower: Float64Array.from([0, -5]), upper: Float64Array.from([2, 5]), maxIterations: 100 },
  );
  assert.ok(Math.abs(quadratic.x[0] - 2) < 1e-9 && Math.abs(quadratic.x[1] + 1) < 1e-5, `${quadratic.x.join(', ')}`);
  const rosenbrock = minimizeBounded(
    (v, g) => {
      const [a, b] = v;
      g[0] = -2 * (1 - a) - 400 * a * (b - a * a);
      g[1] = 200 * (b - a * a);
      return (1 - a) ** 2 + 100 * (b - a * a) ** 2;
    },
    [-1.2, 1],
    { lower: Float64Array.from([-2, -2]), upper: Float64Array.from([2, 2]), maxIterations: 500, relativeTolerance: 0 },
  );
  assert.ok(Math.abs(rosenbrock.x[0] - 1) < 1e-4 && Math.abs(rosenbrock.x[1] - 1) < 1e-4, `${rosenbrock.x.join(', ')}`);
});
