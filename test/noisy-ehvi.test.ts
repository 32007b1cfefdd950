import test from 'node:test';
import assert from 'node:assert/strict';
import { pruneBaseline } from '../src/engine/acquisition/baseline-pruning.js';
import { proposeBatch } from '../src/engine/acquisition/batch.js';
import { ExactEhvi } from '../src/engine/acquisition/ehvi.js';
import { MonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi.js';
import { NoisyEhvi } from '../src/engine/acquisition/noisy-ehvi.js';
import { JointPosterior } from '../src/engine/acquisition/posterior.js';
import { choleskyInPlace } from '../src/engine/gp/dense64.js';
import { maternCross, scaleInputs } from '../src/engine/gp/matern.js';
import type { GpHyperparameters } from '../src/engine/gp/priors.js';
import { standardization, Surrogate } from '../src/engine/gp/surrogate.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/**
 * The latent posterior covariance of one standardized output in float64, written out from its
 * definition k(A, B) − k(A, X)(K + σ²I)⁻¹k(X, B) with an explicit inverse: shares nothing with the
 * tensor path but the kernel.
 */
function denseCovariance(X: Float64Array, n: number, d: number, h: GpHyperparameters, A: Float64Array, a: number, B: Float64Array, b: number): Float64Array {
  const Z = scaleInputs(X, n, d, h.lengthscales);
  const ZA = scaleInputs(A, a, d, h.lengthscales);
  const ZB = scaleInputs(B, b, d, h.lengthscales);
  const K = maternCross(Z, n, Z, n, d, h.outputScale);
  for (let i = 0; i < n; i++) K[i * n + i] += h.noise;
  const inverse = gaussJordanInverse(K, n);
  const kAX = maternCross(ZA, a, Z, n, d, h.outputScale);
  const kXB = maternCross(Z, n, ZB, b, d, h.outputScale);
  const kAB = maternCross(ZA, a, ZB, b, d, h.outputScale);
  const out = new Float64Array(a * b);
  for (let i = 0; i < a; i++) {
    for (let j = 0; j < b; j++) {
      let quad = 0;
      for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) quad += kAX[i * n + r] * inverse[r * n + c] * kXB[c * b + j];
      out[i * b + j] = kAB[i * b + j] - quad;
    }
  }
  return out;
}

function gaussJordanInverse(M: Float64Array, n: number): Float64Array {
  const A = Float64Array.from(M);
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r * n + c]) > Math.abs(A[pivot * n + c])) pivot = r;
    for (let t = 0; t < n; t++) {
      [A[c * n + t], A[pivot * n + t]] = [A[pivot * n + t], A[c * n + t]];
      [inv[c * n + t], inv[pivot * n + t]] = [inv[pivot * n + t], inv[c * n + t]];
    }
    const p = A[c * n + c];
    for (let t = 0; t < n; t++) {
      A[c * n + t] /= p;
      inv[c * n + t] /= p;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = A[r * n + c];
      for (let t = 0; t < n; t++) {
        A[r * n + t] -= f * A[c * n + t];
        inv[r * n + t] -= f * inv[c * n + t];
      }
    }
  }
  return inv;
}

const uniform = (random: Random, count: number) => Float64Array.from({ length: count }, () => random.uniform());

test('the joint posterior covariance matches a float64 reference from its definition, and its diagonal the marginal variance', async () => {
  const random = new Random(11);
  const [n, d, m, a, b] = [14, 3, 2, 5, 4];
  const X = uniform(random, n * d);
  const Y = Float64Array.from({ length: n * m }, (_, k) => Math.sin(3 * X[Math.floor(k / m) * d + (k % m)]) + 0.3 * random.normal());
  const hyperparameters: GpHyperparameters[] = [
    { lengthscales: Float64Array.of(0.4, 0.7, 1.1), outputScale: 1.3, noise: 0.05 },
    { lengthscales: Float64Array.of(0.9, 0.3, 0.6), outputScale: 0.8, noise: 0.2 },
  ];
  const surrogate = Surrogate.build(X, Y, n, d, m, hyperparameters);
  // A holds two training points, so the covariance is checked where the posterior has shrunk too
  const A = Float64Array.from([...X.subarray(0, d), ...uniform(random, (a - 2) * d), ...X.subarray(5 * d, 6 * d)]);
  const B = uniform(random, b * d);
  const covariance = await surrogate.covariance(A, a, B, b);
  for (let o = 0; o < m; o++) {
    const { std } = standardization(Float64Array.from({ length: n }, (_, i) => Y[i * m + o]));
    const reference = denseCovariance(X, n, d, hyperparameters[o], A, a, B, b);
    for (let k = 0; k < a * b; k++) {
      const got = covariance[o * a * b + k];
      const want = reference[k] * std * std;
      assert.ok(Math.abs(got - want) < 2e-5 * std * std, `output ${o}, entry ${k}: ${got} vs ${want}`);
    }
  }
  // cov(A, A)'s diagonal is predict's variance; only the first output when asked for one
  const own = await surrogate.covariance(A, a, A, a, 1);
  assert.equal(own.length, a * a);
  const { variance } = await surrogate.predict(A, a);
  for (let i = 0; i < a; i++) assert.ok(Math.abs(own[i * a + i] - variance[i * m]) < 1e-5, `variance ${i}: ${own[i * a + i]} vs ${variance[i * m]}`);
  // a joint posterior of two one-output surrogates answers as the two side by side
  const parts = [0, 1].map((o) =>
    Surrogate.build(
      X,
      Float64Array.from({ length: n }, (_, i) => Y[i * m + o]),
      n,
      d,
      1,
      [hyperparameters[o]],
    ),
  );
  const joint = new JointPosterior(parts);
  const sideBySide = await joint.covariance(A, a, B, b, 2);
  for (let k = 0; k < m * a * b; k++) assert.ok(Math.abs(sideBySide[k] - covariance[k]) < 1e-5, `joint entry ${k}`);
  joint.dispose();
  surrogate.dispose();
});

/** Two objectives of one input x: f1 = x, f2 = (1 − x)², exact at the data. */
function frontData(xs: readonly number[]): { X: Float64Array; Y: Float64Array } {
  return { X: Float64Array.from(xs), Y: Float64Array.from(xs.flatMap((x) => [x, (1 - x) ** 2])) };
}

test('with a noiseless model the noisy EHVI is the closed-form EHVI against the observed front', async () => {
  const xs = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95];
  const { X, Y } = frontData(xs);
  const hyperparameters = [0, 1].map(() => ({ lengthscales: Float64Array.of(0.3), outputScale: 1, noise: 1e-6 }));
  const surrogate = Surrogate.build(X, Y, xs.length, 1, 2, hyperparameters);
  const ref = [1.1, 1.1];
  const noisy = await NoisyEhvi.build(surrogate, X, xs.length, 2, ref, new Random(5), 4096);
  const exact = new ExactEhvi(Y, xs.length, 2, ref);
  const candidates = Float64Array.of(0.12, 0.27, 0.58, 0.73, 0.9);
  const q = candidates.length;
  const { mean, variance } = await surrogate.predict(candidates, q);
  const std = variance.map(Math.sqrt);
  const cross = await surrogate.covariance(candidates, q, X, xs.length, 2);
  const estimate = noisy.evaluate(mean, std, q, cross);
  const closed = exact.evaluate(mean, std, q);
  for (let i = 0; i < q; i++) {
    assert.ok(closed[i] > 1e-4, `candidate ${i} improves: ${closed[i]}`);
    assert.ok(Math.abs(estimate[i] - closed[i]) < 0.02 * closed[i], `candidate ${i}: ${estimate[i]} vs closed form ${closed[i]}`);
  }
  surrogate.dispose();
});

test('with three objectives and a noiseless model the noisy EHVI is Monte Carlo EHVI against the observed front', async () => {
  const random = new Random(21);
  const [n, d] = [16, 2];
  const X = uniform(random, n * d);
  // points of the unit sphere, f = (cos a cos b, cos a sin b, sin a): all on one front
  const Y = Float64Array.from({ length: n * 3 }, (_, k) => {
    const [u, v] = [X[Math.floor(k / 3) * d], X[Math.floor(k / 3) * d + 1]];
    const [a, b] = [(u * Math.PI) / 2, (v * Math.PI) / 2];
    return [Math.cos(a) * Math.cos(b), Math.cos(a) * Math.sin(b), Math.sin(a)][k % 3];
  });
  const hyperparameters = [0, 1, 2].map(() => ({ lengthscales: Float64Array.of(0.4, 0.4), outputScale: 1, noise: 1e-6 }));
  const surrogate = Surrogate.build(X, Y, n, d, 3, hyperparameters);
  const ref = [1.1, 1.1, 1.1];
  const noisy = await NoisyEhvi.build(surrogate, X, n, 3, ref, new Random(5), 4096);
  const plain = new MonteCarloEhvi(Y, n, 3, ref, 4096, new Random(6));
  const candidates = uniform(random, 4 * d);
  const { mean, variance } = await surrogate.predict(candidates, 4);
  const std = variance.map(Math.sqrt);
  const estimate = noisy.evaluate(mean, std, 4, await surrogate.covariance(candidates, 4, X, n, 3));
  const reference = plain.evaluate(mean, std, 4);
  for (let i = 0; i < 4; i++) {
    assert.ok(reference[i] > 1e-4, `candidate ${i} improves: ${reference[i]}`);
    assert.ok(Math.abs(estimate[i] - reference[i]) < 0.05 * reference[i], `candidate ${i}: ${estimate[i]} vs ${reference[i]}`);
  }
  surrogate.dispose();
});

test('pruning keeps the designs that may be on the front and drops those known to be dominated, and a replicate counts once', async () => {
  // designs (t, 0) lie on f = (t, 1 − t); designs (t, 1) at f = (t + 0.5, 1.5 − t), dominated by a margin of 0.5
  const front = [0.1, 0.3, 0.5, 0.7, 0.9];
  const rows = [...front.map((t) => [t, 0]), ...front.map((t) => [t, 1]), [0.5, 0]];
  const n = rows.length;
  const X = Float64Array.from(rows.flat());
  const Y = Float64Array.from(rows.flatMap(([t, s]) => [t + 0.5 * s, 1 - t + 0.5 * s]));
  const hyperparameters = [0, 1].map(() => ({ lengthscales: Float64Array.of(0.5, 0.5), outputScale: 1, noise: 1e-3 }));
  const surrogate = Surrogate.build(X, Y, n, 2, 2, hyperparameters);
  const kept = await pruneBaseline(surrogate, X, n, 2, [2, 2], new Random(3));
  const designs = Array.from({ length: kept.count }, (_, i) => [kept.points[2 * i], kept.points[2 * i + 1]]);
  assert.equal(kept.count, front.length, `kept ${JSON.stringify(designs)}`);
  for (const t of front)
    assert.ok(
      designs.some(([a, b]) => Math.abs(a - t) < 1e-12 && b === 0),
      `front design ${t} kept`,
    );
  for (const p of kept.probability) assert.ok(p > 0.9, `probability ${p}`);
  // a reference point that only the first two front designs are below keeps only them
  const inside = await pruneBaseline(surrogate, X, n, 2, [0.4, 2], new Random(3));
  assert.deepEqual(Array.from({ length: inside.count }, (_, i) => inside.points[2 * i]).sort(), [0.1, 0.3]);
  // no designs, no baseline
  assert.equal((await pruneBaseline(surrogate, X, 0, 2, [2, 2], new Random(3))).count, 0);
  // the cap keeps the likeliest
  const capped = await pruneBaseline(surrogate, X, n, 2, [2, 2], new Random(3), 2);
  assert.equal(capped.count, 2);
  surrogate.dispose();
});

/**
 * The improvement of y over the front P (2 objectives, minimization) against ref, by brute force:
 * the area of [y, ref] minus its union with each front point's dominated region, on the grid of
 * every coordinate in play.
 */
function bruteForceImprovement(P: number[][], y: number[], ref: number[]): number {
  const xs = [...new Set([y[0], ref[0], ...P.map((p) => p[0])])].filter((v) => v >= y[0] && v <= ref[0]).sort((a, b) => a - b);
  const ys = [...new Set([y[1], ref[1], ...P.map((p) => p[1])])].filter((v) => v >= y[1] && v <= ref[1]).sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    for (let j = 0; j + 1 < ys.length; j++) {
      const [cx, cy] = [(xs[i] + xs[i + 1]) / 2, (ys[j] + ys[j + 1]) / 2];
      if (!P.some((p) => p[0] <= cx && p[1] <= cy)) area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
    }
  }
  return area;
}

test('the noisy EHVI matches a brute-force Monte Carlo over the joint posterior of the front and the candidate', async () => {
  // three noisy designs near a front, a model that doubts them: their draws overlap the candidate's
  const xs = [0.15, 0.45, 0.8];
  const X = Float64Array.from(xs);
  const Y = Float64Array.from(xs.flatMap((x) => [x, 1 - x]));
  const hyperparameters = [0, 1].map(() => ({ lengthscales: Float64Array.of(0.35), outputScale: 1, noise: 0.3 }));
  const surrogate = Surrogate.build(X, Y, xs.length, 1, 2, hyperparameters);
  const ref = [1.2, 1.2];
  const candidate = Float64Array.of(0.6);
  const noisy = await NoisyEhvi.build(surrogate, X, xs.length, 2, ref, new Random(8), 8192);
  const { mean, variance } = await surrogate.predict(candidate, 1);
  const estimate = noisy.evaluate(mean, variance.map(Math.sqrt), 1, await surrogate.covariance(candidate, 1, X, xs.length, 2))[0];

  // brute force: the 4 x 4 joint covariance per objective, its own Cholesky and plain draws
  const all = Float64Array.from([...xs, candidate[0]]);
  const [allMean, covariance] = [(await surrogate.predict(all, 4)).mean, await surrogate.covariance(all, 4, all, 4, 2)];
  const factors = [0, 1].map((j) => {
    const L = covariance.slice(j * 16, (j + 1) * 16);
    assert.ok(choleskyInPlace(L, 4));
    return L;
  });
  const random = new Random(99);
  const draws = 40_000;
  let sum = 0;
  let sumSquares = 0;
  for (let s = 0; s < draws; s++) {
    const f = [0, 1].map((j) => {
      const z = Array.from({ length: 4 }, () => random.normal());
      return Array.from({ length: 4 }, (_, i) => allMean[i * 2 + j] + z.reduce((acc, zt, t) => acc + factors[j][i * 4 + t] * zt, 0));
    });
    const front = [0, 1, 2].map((i) => [f[0][i], f[1][i]]).filter((p) => p[0] < ref[0] && p[1] < ref[1]);
    const y = [Math.min(f[0][3], ref[0]), Math.min(f[1][3], ref[1])];
    const value = bruteForceImprovement(front, y, ref);
    sum += value;
    sumSquares += value * value;
  }
  const reference = sum / draws;
  const standardError = Math.sqrt((sumSquares / draws - reference ** 2) / draws);
  assert.ok(reference > 0.01, `the case has an improvement to find: ${reference}`);
  // the estimate's own error (8192 antithetic draws) is about the reference's
  assert.ok(Math.abs(estimate - reference) < 4 * 1.5 * standardError, `noisy EHVI ${estimate} vs brute force ${reference} ± ${standardError}`);
  // and the plug-in (posterior means as the front) differs from both: the front's uncertainty matters here
  const plugIn = new ExactEhvi((await surrogate.predict(X, 3)).mean, 3, 2, ref).evaluate(mean, variance.map(Math.sqrt), 1)[0];
  assert.ok(Math.abs(plugIn - reference) > 8 * standardError, `plug-in ${plugIn} vs ${reference}`);
  surrogate.dispose();
});

test('a noisy batch proposes by noisy EHVI, with outcome constraints too', async () => {
  const space = new SearchSpace(
    mdlSchema.parse({
      name: 'noisy batch',
      parameters: [0, 1].map((i) => ({ name: `x${i}`, type: 'continuous', bounds: [0, 1] })),
      objectives: [1, 2].map((j) => ({ name: `f${j}`, direction: 'minimize', reference: 2 })),
      optimizer: { budget: 30 },
    }),
  );
  const random = new Random(4);
  const n = 12;
  const X = uniform(random, n * 2);
  const Y = Float64Array.from({ length: n * 2 }, (_, k) => (k % 2 === 0 ? X[k] : 1 - X[k - 1] + X[k] * X[k]) + 0.05 * random.normal());
  const slack = Float64Array.from({ length: n }, (_, i) => 0.8 - X[i * 2 + 1]);
  const hyperparameters = [0, 1, 2].map(() => ({ lengthscales: Float64Array.of(0.5, 0.5), outputScale: 1, noise: 0.05 }));
  const plain = await proposeBatch({
    space,
    X,
    Y,
    n,
    m: 2,
    ref: [2, 2],
    q: 3,
    pending: [],
    acquisition: 'auto',
    random: new Random(1),
    surrogate: Surrogate.build(X, Y, n, 2, 2, hyperparameters.slice(0, 2)),
    baseline: 'predicted',
  });
  assert.equal(plain.acquisition, 'nehvi');
  assert.equal(plain.points.length, 3);
  const outputs = Float64Array.from({ length: n * 3 }, (_, k) => (k % 3 < 2 ? Y[Math.floor(k / 3) * 2 + (k % 3)] : slack[Math.floor(k / 3)]));
  const constrained = await proposeBatch({
    space,
    X,
    Y,
    n,
    m: 2,
    ref: [2, 2],
    q: 3,
    pending: [X.slice(0, 2)],
    acquisition: 'auto',
    random: new Random(1),
    surrogate: Surrogate.build(X, outputs, n, 2, 3, hyperparameters),
    constraints: 1,
    feasible: Uint8Array.from(slack, (v) => (v >= 0 ? 1 : 0)),
    baseline: 'predicted',
  });
  assert.equal(constrained.acquisition, 'constrained nehvi');
  // the picks keep to where the model expects the constraint x1 ≤ 0.8 to hold
  for (const x of constrained.points) assert.ok(x[1] < 0.9, `pick ${Array.from(x)}`);
});
