import test from 'node:test';
import assert from 'node:assert/strict';
import { ExactEhvi } from '../src/engine/acquisition/ehvi.js';
import { expectedPositivePart, normalCdf, normalPdf } from '../src/engine/normal.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { Random } from '../src/engine/random.js';

test('normal cdf matches tabulated values, deep in the lower tail too', () => {
  const table: [number, number][] = [
    [0, 0.5],
    [1, 0.8413447460685429],
    [-1, 0.15865525393145707],
    [-2, 0.022750131948179195],
    [-5, 2.866515718791939e-7],
    [-10, 7.61985302416047e-24],
    [-30, 4.906713927148187e-198],
  ];
  for (const [z, expected] of table) {
    assert.ok(Math.abs(normalCdf(z) - expected) <= 1e-11 * expected, `Φ(${z})`);
  }
});

/** Composite Simpson's rule over [a, b] with `intervals` (even) steps. */
function simpson(f: (x: number) => number, a: number, b: number, intervals = 20_000): number {
  const h = (b - a) / intervals;
  let sum = f(a) + f(b);
  for (let i = 1; i < intervals; i++) sum += (i % 2 === 1 ? 4 : 2) * f(a + i * h);
  return (sum * h) / 3;
}

/** The standard normal density written out here, so the quadratures share no code with normal.ts. */
const density = (t: number) => Math.exp(-0.5 * t * t) / Math.sqrt(2 * Math.PI);

test('expected positive part is E[(Z + z)^+] by quadrature, and stays positive where φ(z) + zΦ(z) cancels', () => {
  for (const z of [-3.5, -1, 0, 0.7, 2.5]) {
    // E[(Z + z)^+] = ∫_{-z}^{∞} (t + z) φ(t) dt; φ is below 1e-30 beyond t = 12
    const integral = simpson((t) => (t + z) * density(t), -z, 12);
    assert.ok(Math.abs(expectedPositivePart(z) - integral) < 1e-12 * integral, `h(${z}): ${expectedPositivePart(z)} vs ${integral}`);
  }
  // h(-8) = φ(8) - 8 Q(8) from tabulated φ(8) = 5.05227108353689e-15, Q(8) = 6.22096057427178e-16
  const h8 = 5.05227108353689e-15 - 8 * 6.22096057427178e-16;
  assert.ok(Math.abs(expectedPositivePart(-8) - h8) < 1e-9 * h8 + 1e-28);
  // asymptotic series h(z) = φ(z)/z² (1 - 3/z² + 15/z⁴ - 105/z⁶ + ...) for z → -∞
  for (const z of [-15, -25, -35]) {
    const z2 = z * z;
    const series = (normalPdf(z) / z2) * (1 - 3 / z2 + 15 / z2 ** 2 - 105 / z2 ** 3);
    assert.ok(Math.abs(expectedPositivePart(z) / series - 1) < 1e-6, `h(${z})`);
  }
});

test('one-objective EHVI is the improvement over min(best, ref) integrated over the Gaussian', () => {
  const front = Float64Array.of(0.4, 0.7, 0.2);
  const ehvi = new ExactEhvi(front, 3, 1, [1]);
  for (const [mu, sigma] of [
    [0.5, 0.3],
    [0.1, 0.05],
    [-0.4, 1.2],
    [1.5, 0.4],
  ]) {
    // the improvement of y is (0.2 - y)^+; the Gaussian is negligible below mu - 12 sigma
    const integral = simpson((y) => ((0.2 - y) * density((y - mu) / sigma)) / sigma, mu - 12 * sigma, 0.2);
    const [value] = ehvi.evaluate(Float64Array.of(mu), Float64Array.of(sigma), 1);
    assert.ok(Math.abs(value - integral) < 1e-10 * integral, `μ=${mu}, σ=${sigma}: ${value} vs ${integral}`);
  }
});

test('two-objective EHVI with no uncertainty is the exact hypervolume improvement', () => {
  const front = Float64Array.of(0.2, 0.8, 0.5, 0.5, 0.8, 0.1);
  const ref = [1, 1];
  const ehvi = new ExactEhvi(front, 3, 2, ref);
  const candidates = [
    [0.3, 0.3],
    [0.1, 0.95],
    [0.9, 0.9],
    [-0.5, 0.6],
    [1.2, 0.0],
  ];
  const base = hypervolume(front, 3, 2, ref);
  for (const c of candidates) {
    const [value] = ehvi.evaluate(Float64Array.from(c), Float64Array.of(1e-14, 1e-14), 1);
    const withC = hypervolume(Float64Array.from([...front, ...c]), 4, 2, ref);
    assert.ok(Math.abs(value - (withC - base)) < 1e-9, `candidate ${c}: ${value} vs ${withC - base}`);
  }
});

test('two-objective EHVI agrees with a Monte Carlo average of exact improvements', () => {
  const random = new Random(11);
  const front = Float64Array.of(0.1, 0.9, 0.3, 0.6, 0.45, 0.45, 0.7, 0.2);
  const ref = [1.1, 1.1];
  const ehvi = new ExactEhvi(front, 4, 2, ref);
  const base = hypervolume(front, 4, 2, ref);
  const mean = Float64Array.of(0.4, 0.5);
  const std = Float64Array.of(0.15, 0.25);
  const [exact] = ehvi.evaluate(mean, std, 1);
  const samples = 40_000;
  let sum = 0;
  let sumSq = 0;
  const joined = new Float64Array(front.length + 2);
  joined.set(front);
  for (let s = 0; s < samples; s++) {
    joined[8] = mean[0] + std[0] * random.normal();
    joined[9] = mean[1] + std[1] * random.normal();
    const hvi = hypervolume(joined, 5, 2, ref) - base;
    sum += hvi;
    sumSq += hvi * hvi;
  }
  const mc = sum / samples;
  const stderr = Math.sqrt((sumSq / samples - mc * mc) / samples);
  assert.ok(Math.abs(exact - mc) < 4 * stderr, `exact ${exact} vs Monte Carlo ${mc} ± ${stderr}`);
});

test('EHVI is batched: q candidates give the same values as one at a time', () => {
  const front = Float64Array.of(0.2, 0.8, 0.5, 0.5, 0.8, 0.1);
  const ehvi = new ExactEhvi(front, 3, 2, [1, 1]);
  const mean = Float64Array.of(0.3, 0.3, 0.9, 0.05, 0.6, 0.6);
  const std = Float64Array.of(0.1, 0.2, 0.05, 0.05, 0.3, 0.01);
  const batch = ehvi.evaluate(mean, std, 3);
  for (let i = 0; i < 3; i++) {
    const [one] = ehvi.evaluate(mean.subarray(2 * i, 2 * i + 2), std.subarray(2 * i, 2 * i + 2), 1);
    assert.equal(batch[i], one);
    assert.ok(one > 0);
  }
});
