import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CmaEs, minimize, minimizeBatch, type MinimizeOptions } from '../src/engine/cmaes.js';
import { Random } from '../src/engine/random.js';
import { wasmInstance } from '../src/engine/wasm/load.js';
import { jacobiEigen } from './support/jacobi-eigen.js';

const sphere = (x: Float64Array): number => x.reduce((s, v) => s + v * v, 0);
const ellipsoid = (x: Float64Array): number => x.reduce((s, v, i) => s + 10 ** ((6 * i) / (x.length - 1)) * v * v, 0);
const rosenbrock = (x: Float64Array): number => {
  let s = 0;
  for (let i = 0; i + 1 < x.length; i++) s += 100 * (x[i] * x[i] - x[i + 1]) ** 2 + (1 - x[i]) ** 2;
  return s;
};
const rastrigin = (x: Float64Array): number => x.reduce((s, v) => s + v * v - 10 * Math.cos(2 * Math.PI * v) + 10, 0);

/** The benchmark protocol of the pycma reference numbers: mean uniform in [-4, 4]^n, sigma 2. */
function startMean(n: number, seed: number): Float64Array {
  const r = new Random(1000 + seed);
  return Float64Array.from({ length: n }, () => -4 + 8 * r.uniform());
}

function medianEvaluations(fn: (x: Float64Array) => number, n: number, seeds: number, budget: number): number {
  const evals: number[] = [];
  for (let s = 1; s <= seeds; s++) {
    const r = minimize(fn, { mean: startMean(n, s), sigma: 2, seed: s, maxEvaluations: budget, targetValue: 1e-8 });
    assert.equal(r.stopReason, 'target', `seed ${s} stopped by ${r.stopReason} at f = ${r.f}`);
    assert.ok(r.f <= 1e-8 && r.f === fn(r.x), 'reported f is the value of the reported x');
    evals.push(r.evaluations);
  }
  evals.sort((a, b) => a - b);
  return evals[evals.length >> 1];
}

// Reference medians measured with pycma on this protocol; the kernel must stay within 15%.
test('sphere n=10 reaches 1e-8 within 15% of pycma', () => {
  assert.ok(medianEvaluations(sphere, 10, 7, 3000) <= 1.15 * 1438);
});

test('ellipsoid (condition 1e6) n=10 reaches 1e-8 within 15% of pycma', () => {
  assert.ok(medianEvaluations(ellipsoid, 10, 7, 8000) <= 1.15 * 4055);
});

test('Rosenbrock n=10 reaches 1e-8 (with restarts where needed) within 15% of pycma', () => {
  assert.ok(medianEvaluations(rosenbrock, 10, 7, 40000) <= 1.15 * 4871);
});

test('the first population is m + sigma z with z standard normal', () => {
  const n = 25;
  const lambda = 4000;
  const mean = Float64Array.from({ length: n }, (_, j) => j - 12);
  const es = new CmaEs({ mean, sigma: 0.5, populationSize: lambda, seed: 7 });
  const X = es.ask();
  const z = Float64Array.from(X, (x, k) => (x - mean[k % n]) / 0.5);
  const N = z.length;
  const m1 = z.reduce((s, v) => s + v, 0) / N;
  const m2 = z.reduce((s, v) => s + v * v, 0) / N;
  const m4 = z.reduce((s, v) => s + v ** 4, 0) / N;
  // Standard errors at N = 1e5: 0.003 (mean), 0.0045 (variance), 0.03 (fourth moment).
  assert.ok(Math.abs(m1) < 0.015, `mean ${m1}`);
  assert.ok(Math.abs(m2 - 1) < 0.02, `variance ${m2}`);
  assert.ok(Math.abs(m4 - 3) < 0.15, `fourth moment ${m4}`);
  const tail = z.filter((v) => Math.abs(v) > 3).length / N;
  assert.ok(Math.abs(tail - 0.0026998) < 0.0008, `P(|z| > 3) = ${tail}`);
  // Kolmogorov–Smirnov distance to the normal CDF, 1% critical value 1.63 / sqrt(N).
  const sorted = Float64Array.from(z).sort();
  let ks = 0;
  sorted.forEach((v, i) => {
    const cdf = normalCdf(v);
    ks = Math.max(ks, Math.abs(cdf - i / N), Math.abs(cdf - (i + 1) / N));
  });
  assert.ok(ks < 1.63 / Math.sqrt(N), `KS distance ${ks}`);
});

test('same seed gives identical samples and results; another seed differs', () => {
  const run = (seed: number) => {
    const es = new CmaEs({ mean: new Float64Array(6).fill(1), sigma: 0.7, seed });
    const samples: number[] = [];
    for (let g = 0; g < 30; g++) {
      const X = es.ask();
      samples.push(...X);
      const f = new Float64Array(es.populationSize);
      for (let i = 0; i < f.length; i++) f[i] = rosenbrock(X.subarray(i * 6, (i + 1) * 6));
      es.tell(f);
    }
    return { samples, mean: es.mean(), sigma: es.sigma };
  };
  const a = run(42);
  const b = run(42);
  assert.deepEqual(a.samples, b.samples);
  assert.deepEqual(a.mean, b.mean);
  assert.equal(a.sigma, b.sigma);
  const c = run(43);
  assert.notDeepEqual(a.samples.slice(0, 6), c.samples.slice(0, 6));

  const options: MinimizeOptions = { mean: startMean(8, 3), sigma: 2, seed: 5, maxEvaluations: 3000 };
  assert.deepEqual(minimize(rastrigin, options), minimize(rastrigin, options));
});

test('minimizeBatch equals minimize for the same seed, including a cut-short last generation', () => {
  const options: MinimizeOptions = { mean: startMean(5, 9), sigma: 2, seed: 11, maxEvaluations: 5003, restarts: 3 };
  const scalar = minimize(rastrigin, options);
  const batchSizes: number[] = [];
  const batch = minimizeBatch((population, lambda) => {
    batchSizes.push(lambda);
    assert.equal(population.length, lambda * 5);
    return Float64Array.from({ length: lambda }, (_, i) => rastrigin(population.subarray(i * 5, (i + 1) * 5)));
  }, options);
  assert.deepEqual(batch, scalar);
  assert.equal(batch.stopReason, 'maxevals');
  assert.ok(batch.restarts > 0);
  assert.equal(batch.evaluations, 5003);
  assert.equal(
    batchSizes.reduce((a, b) => a + b, 0),
    5003,
  );
  // The last generation was cut to the budget: 5003 is not a multiple of the population size.
  assert.ok(batchSizes[batchSizes.length - 1] < batchSizes[batchSizes.length - 2]);
});

test('every sample lies inside the bounds, and an optimum outside them is found on the boundary', () => {
  const n = 6;
  const lower = new Float64Array(n);
  const upper = new Float64Array(n).fill(1);
  let samples = 0;
  const shifted = (x: Float64Array): number => {
    for (let j = 0; j < n; j++) assert.ok(x[j] >= lower[j] && x[j] <= upper[j], `x[${j}] = ${x[j]}`);
    samples++;
    return x.reduce((s, v) => s + (v - 1.5) ** 2, 0);
  };
  // A sigma far larger than the box is capped at a third of its width.
  for (const sigma of [0.3, 20]) {
    const r = minimize(shifted, { mean: new Float64Array(n).fill(0.5), sigma, lower, upper, seed: 3, maxEvaluations: 6000, restarts: 0 });
    assert.ok(samples > 500);
    for (let j = 0; j < n; j++) assert.ok(Math.abs(r.x[j] - 1) < 1e-6, `sigma ${sigma}: x[${j}] = ${r.x[j]}`);
    assert.ok(Math.abs(r.f - n * 0.25) < 1e-9);
  }
});

test('samples stay inside the bounds while a random objective lets the mean wander', () => {
  const lower = Float64Array.from([-2, 0, 10]);
  const upper = Float64Array.from([-1, 1e-3, 1000]);
  const es = new CmaEs({ mean: [-1.5, 1e-3, 10], sigma: 1, lower, upper, seed: 6 });
  const r = new Random(4);
  const f = new Float64Array(es.populationSize);
  for (let g = 0; g < 300; g++) {
    const X = es.ask();
    X.forEach((x, k) => assert.ok(x >= lower[k % 3] && x <= upper[k % 3], `x = ${x}`));
    es.tell(f.map(() => r.uniform()));
    es.mean().forEach((x, j) => assert.ok(x >= lower[j] && x <= upper[j]));
  }
});

test('an interior optimum is found exactly with bounds, also from a mean on the boundary', () => {
  const target = Float64Array.from([0.3, 0.7, 0.05, 0.96, 0.5]);
  const fn = (x: Float64Array): number => x.reduce((s, v, j) => s + (v - target[j]) ** 2, 0);
  const r = minimize(fn, {
    mean: Float64Array.from([0, 1, 0, 1, 0]),
    sigma: 0.3,
    lower: new Float64Array(5),
    upper: new Float64Array(5).fill(1),
    seed: 1,
    maxEvaluations: 5000,
    targetValue: 1e-14,
  });
  assert.equal(r.stopReason, 'target');
  for (let j = 0; j < 5; j++) assert.ok(Math.abs(r.x[j] - target[j]) < 1e-6);
});

test('non-finite fitness ranks last and never makes the state NaN', () => {
  const n = 5;
  const es = new CmaEs({ mean: new Float64Array(n).fill(2), sigma: 1, seed: 8 });
  const lambda = es.populationSize;
  const r = new Random(2);
  const all = new Float64Array(lambda).fill(NaN);
  es.ask();
  es.tell(all);
  es.ask();
  es.tell(all.fill(-Infinity));
  assert.ok(Number.isFinite(es.sigma) && es.mean().every(Number.isFinite));
  assert.equal(es.best().f, Infinity);
  const f = new Float64Array(lambda);
  for (let g = 0; g < 400 && es.stopReason() === null; g++) {
    const X = es.ask();
    for (let i = 0; i < lambda; i++) {
      const u = r.uniform();
      f[i] = u < 0.1 ? NaN : u < 0.2 ? Infinity : u < 0.3 ? -Infinity : sphere(X.subarray(i * n, (i + 1) * n));
    }
    es.tell(f);
    assert.ok(Number.isFinite(es.sigma) && es.mean().every(Number.isFinite), `generation ${g}`);
  }
  assert.ok(es.best().f < 1e-8, `best ${es.best().f}`);
  assert.equal(es.best().f, sphere(es.best().x));
});

test('the eigen solver agrees with a Jacobi reference on random symmetric matrices', () => {
  const kernel = wasmInstance('cmaes').exports as unknown as {
    memory: { readonly buffer: ArrayBuffer };
    heapStart(): number;
    reserve(bytes: number): number;
    eigen(a: number, n: number, ld: number, values: number, scratch: number): number;
  };
  const r = new Random(5);
  const cases: { n: number; ld: number; matrix: Float64Array }[] = [];
  for (const [n, ld] of [
    [1, 1],
    [2, 2],
    [5, 6],
    [8, 8],
    [17, 18],
    [40, 41],
  ]) {
    const m = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) m[i * n + j] = m[j * n + i] = r.normal() * (i === j ? 10 : 1);
    }
    cases.push({ n, ld, matrix: m });
  }
  // Repeated eigenvalues: 2 I + u u^T has eigenvalue 2 with multiplicity n - 1.
  const u = Float64Array.from({ length: 9 }, () => r.normal());
  cases.push({ n: 9, ld: 10, matrix: Float64Array.from({ length: 81 }, (_, k) => (k % 10 === 0 ? 2 : 0) + u[Math.floor(k / 9)] * u[k % 9]) });
  // Already diagonal, with a zero row.
  cases.push({ n: 4, ld: 4, matrix: Float64Array.from([3, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 7]) });

  for (const { n, ld, matrix } of cases) {
    const base = kernel.heapStart();
    assert.equal(kernel.reserve((n * ld + 4 * n) * 8), 1);
    const a = new Float64Array(kernel.memory.buffer, base, n * ld);
    for (let i = 0; i < n; i++) for (let j = 0; j < ld; j++) a[i * ld + j] = j < n ? matrix[i * n + j] : 0;
    const valuesPtr = base + n * ld * 8;
    assert.equal(kernel.eigen(base, n, ld, valuesPtr, valuesPtr + n * 8), 1);
    const values = Array.from(new Float64Array(kernel.memory.buffer, valuesPtr, n));
    const vectors = Array.from({ length: n }, (_, j) => Array.from(a.subarray(j * ld, j * ld + n)));
    const reference = jacobiEigen(matrix, n);
    const scale = Math.max(1, ...reference.values.map(Math.abs));
    const sorted = [...values].sort((x, y) => x - y);
    sorted.forEach((v, k) => assert.ok(Math.abs(v - reference.values[k]) < 1e-12 * scale, `n=${n}: ${v} vs ${reference.values[k]}`));
    for (let j = 0; j < n; j++) {
      // A v = lambda v and V^T V = I hold for every eigenpair, also within repeated eigenvalues.
      for (let i = 0; i < n; i++) {
        let av = 0;
        for (let k = 0; k < n; k++) av += matrix[i * n + k] * vectors[j][k];
        assert.ok(Math.abs(av - values[j] * vectors[j][i]) < 1e-12 * scale, `n=${n}: residual`);
      }
      for (let k = 0; k < n; k++) {
        const d = vectors[j].reduce((s, v, i) => s + v * vectors[k][i], 0);
        assert.ok(Math.abs(d - (j === k ? 1 : 0)) < 1e-12, `n=${n}: orthonormality`);
      }
      // Simple eigenvalues fix the vector up to sign: it must match the reference's.
      const k = sorted.indexOf(values[j]);
      const gap = Math.min(...reference.values.filter((_, i) => i !== k).map((v) => Math.abs(v - reference.values[k])));
      if (gap > 1e-3 * scale) {
        const d = vectors[j].reduce((s, v, i) => s + v * reference.vectors[k][i], 0);
        assert.ok(Math.abs(Math.abs(d) - 1) < 1e-9, `n=${n}: eigenvector ${j}`);
      }
    }
  }
});

test('IPOP restarts help on Rastrigin n=5', () => {
  const options: MinimizeOptions = { mean: startMean(5, 2), sigma: 2, seed: 2, maxEvaluations: 200000, targetValue: 1e-8 };
  const single = minimize(rastrigin, { ...options, restarts: 0 });
  const ipop = minimize(rastrigin, options);
  assert.notEqual(single.stopReason, 'target');
  assert.ok(ipop.restarts > 0);
  assert.ok(ipop.f < single.f, `IPOP ${ipop.f} vs single run ${single.f}`);
  assert.ok(ipop.f < 1e-8, `IPOP reached ${ipop.f} after ${ipop.restarts} restarts`);
});

test('a flat objective ends the run by tolfun', () => {
  const es = new CmaEs({ mean: new Float64Array(3), sigma: 1, seed: 1 });
  const zeros = new Float64Array(es.populationSize);
  let g = 0;
  while (es.stopReason() === null && g++ < 1000) {
    es.ask();
    es.tell(zeros);
  }
  assert.equal(es.stopReason(), 'tolfun');
  // 10 + ceil(30 n / lambda) generations of history are needed first.
  assert.equal(es.generation, 10 + Math.ceil(90 / es.populationSize));
});

test('a converged run stops on its own', () => {
  const r = minimize(sphere, { mean: new Float64Array(4).fill(3), sigma: 1, seed: 4, maxEvaluations: 1e6, restarts: 0 });
  assert.ok(['tolfun', 'tolx'].includes(r.stopReason), r.stopReason);
  assert.ok(r.f < 1e-12);
});

test('the ask/tell protocol and options are checked', () => {
  const es = new CmaEs({ mean: [0, 0], sigma: 1, seed: 1 });
  assert.throws(() => es.tell(new Float64Array(es.populationSize)), /without a preceding ask/);
  es.ask();
  assert.throws(() => es.tell([1, 2]), /needs 6 fitness values/);
  assert.throws(() => new CmaEs({ mean: [0], sigma: 0, seed: 1 }), /sigma/);
  assert.throws(() => new CmaEs({ mean: [0], sigma: 1, seed: 1, lower: [0] }), /both/);
  assert.throws(() => new CmaEs({ mean: [2], sigma: 1, seed: 1, lower: [0], upper: [1] }), /outside/);
  assert.throws(() => new CmaEs({ mean: [0.5], sigma: 1, seed: 1, lower: [1], upper: [0] }), /lower < upper/);
  assert.throws(() => new CmaEs({ mean: [0], sigma: 1, seed: 1, populationSize: 1 }), /populationSize/);
  assert.throws(() => minimize(sphere, { mean: [0], sigma: 1, seed: 1, maxEvaluations: 0 }), /maxEvaluations/);
});

test('the non-active variant converges too, and the active update is faster on the ellipsoid', () => {
  const evals = (active: boolean) =>
    minimize(ellipsoid, { mean: startMean(8, 1), sigma: 2, seed: 1, maxEvaluations: 20000, targetValue: 1e-8, restarts: 0, active });
  const plain = evals(false);
  const active = evals(true);
  assert.equal(plain.stopReason, 'target');
  assert.equal(active.stopReason, 'target');
  assert.ok(active.evaluations < plain.evaluations);
});

/** Normal CDF via erfc (Numerical Recipes erfcc, |error| < 1.2e-7). */
function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}
