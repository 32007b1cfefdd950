import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrontImprovement } from '../src/engine/acquisition/front-improvement.js';
import { antitheticNormals, MonteCarloEhvi, monteCarloDraws, sampleMeans } from '../src/engine/acquisition/mc-ehvi.js';
import { hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { NondominatedBoxes } from '../src/engine/hypervolume-boxes.js';
import { ExpectedBoxImprovement } from '../src/engine/hypervolume-boxes-expected.js';
import { expectedPositivePart } from '../src/engine/normal.js';
import { Random } from '../src/engine/random.js';
import { samplesNearFront } from './support/box-samples.js';
import { makeCloud, makeFront } from './support/fronts.js';

/** Fronts of 60 to 200 points at m = 4 to 6, as a many-objective campaign holds them. */
const FRONTS: [m: number, n: number, shape: 'spherical' | 'random'][] = [
  [4, 200, 'spherical'],
  [4, 120, 'random'],
  [5, 150, 'spherical'],
  [5, 60, 'random'],
  [6, 100, 'spherical'],
  [6, 60, 'random'],
];

/** Candidates' posterior moments near a front: a front point scaled by 0.85 to 1.15, sd up to `sd`. */
function momentsNear(front: Float64Array, n: number, m: number, q: number, sd: number, seed: number): { mean: Float64Array; std: Float64Array } {
  const random = new Random(seed);
  const mean = new Float64Array(q * m);
  const std = new Float64Array(q * m);
  for (let i = 0; i < q; i++) {
    const row = Math.floor(random.uniform() * n);
    const factor = 0.85 + 0.3 * random.uniform();
    for (let j = 0; j < m; j++) {
      mean[i * m + j] = front[row * m + j] * factor;
      std[i * m + j] = sd * (0.2 + random.uniform());
    }
  }
  return { mean, std };
}

test('improvements from the boxes equal the WASM kernel (WFG, an independent algorithm) on fronts of 60 to 200 points, m = 4, 5, 6', () => {
  for (const [m, n, shape] of FRONTS) {
    const front = makeFront(shape, n, m, 10 * m + n);
    const ref = new Array<number>(m).fill(1.1);
    const boxes = new NondominatedBoxes(front, n, m, ref);
    // samples around front points (about half improve), and points across the whole box
    const Y = new Float64Array([...samplesNearFront(front, n, m, 20, 8, 0.05, m + n), ...makeCloud(100, m, m * n, -0.1, 1.2)]);
    const rows = Y.length / m;
    const fast = boxes.improvements(Y, rows);
    const kernel = hypervolumeImprovements(front, n, m, ref, Y, rows);
    let improving = 0;
    for (let i = 0; i < rows; i++) {
      assert.ok(Math.abs(fast[i] - kernel[i]) <= 1e-12 * 1.1 ** m, `m=${m} n=${n} row ${i}: ${fast[i]} against ${kernel[i]}`);
      if (kernel[i] > 0) improving++;
    }
    assert.ok(improving > rows / 5 && improving < rows, `m=${m} n=${n}: ${improving} of ${rows} improve, so both zero and positive values are checked`);
  }
});

test('the expected improvement over the boxes, in closed form: the box below ref with no front, the improvement itself at sd 0', () => {
  // no front: one box, [−∞, ref]; E Π_j (r_j − Y_j)^+ = Π_j σ_j h((r_j − μ_j) / σ_j) for independent objectives
  const m = 4;
  const ref = [1, 2, 1.5, 1.2];
  const empty = new ExpectedBoxImprovement(new NondominatedBoxes(new Float64Array(0), 0, m, ref));
  const mean = Float64Array.of(0.9, 1.5, 2, 0.3);
  const std = Float64Array.of(0.2, 1, 0.3, 0.01);
  const expected = ref.reduce((product, r, j) => product * std[j] * expectedPositivePart((r - mean[j]) / std[j]), 1);
  const [value] = empty.evaluate(mean, std, 1);
  assert.ok(expected > 0 && Math.abs(value - expected) <= 1e-6 * expected, `${value} against ${expected}`);

  for (const [m, n, shape] of FRONTS) {
    const front = makeFront(shape, n, m, 20 * m + n);
    const ref = new Array<number>(m).fill(1.1);
    const q = 200;
    const { mean } = momentsNear(front, n, m, q, 0, m * n);
    const values = new ExpectedBoxImprovement(new NondominatedBoxes(front, n, m, ref)).evaluate(mean, new Float64Array(q * m), q);
    const kernel = hypervolumeImprovements(front, n, m, ref, mean, q);
    for (let i = 0; i < q; i++)
      assert.ok(Math.abs(values[i] - kernel[i]) <= 1e-12 * 1.1 ** m, `m=${m} n=${n} candidate ${i}: ${values[i]} against ${kernel[i]}`);
  }
});

test('the expectation over the boxes equals the mean of the WASM kernel exact improvements over many samples of the same normal (within 4 standard errors), m = 4, 5, 6', () => {
  for (const [m, n, shape] of [
    [4, 200, 'spherical'],
    [5, 120, 'random'],
    [6, 60, 'spherical'],
  ] as const) {
    const front = makeFront(shape, n, m, 30 * m + n);
    const ref = new Array<number>(m).fill(1.1);
    const q = 4;
    const { mean, std } = momentsNear(front, n, m, q, 0.06, 7 * m);
    const values = new ExpectedBoxImprovement(new NondominatedBoxes(front, n, m, ref)).evaluate(mean, std, q);
    const samples = 6000;
    const base = antitheticNormals(samples, m, new Random(m));
    const draws = monteCarloDraws(mean, std, q, base, m);
    const exact = hypervolumeImprovements(front, n, m, ref, draws, q * samples);
    const means = sampleMeans(exact, q, samples);
    for (let i = 0; i < q; i++) {
      // antithetic pairs are not independent: the standard error from the pairs' means
      let sum = 0;
      let squares = 0;
      for (let s = 0; s < samples; s += 2) {
        const pair = (exact[i * samples + s] + exact[i * samples + s + 1]) / 2;
        sum += pair;
        squares += pair * pair;
      }
      const pairs = samples / 2;
      const error = Math.sqrt(Math.max(squares / pairs - (sum / pairs) ** 2, 0) / pairs);
      assert.ok(means[i] > 0, `m=${m} candidate ${i} improves`);
      assert.ok(
        Math.abs(values[i] - means[i]) <= 4 * error + 1e-12,
        `m=${m} n=${n} candidate ${i}: boxes ${values[i]} against the kernel's ${means[i]} ± ${error}`,
      );
    }
  }
});

test('Monte Carlo EHVI takes the expectation over the boxes while they are affordable: 60 points at m = 5', () => {
  const [m, n] = [5, 60];
  const front = makeFront('random', n, m, 61);
  const ref = new Array<number>(m).fill(1.1);
  const { mean, std } = momentsNear(front, n, m, 50, 0.05, 62);
  const kept = new FrontImprovement(front, n, m, ref, new Random(1));
  assert.equal(kept.method, 'boxes');
  const values = new MonteCarloEhvi(front, n, m, ref, 128, new Random(1)).evaluate(mean, std, 50);
  assert.deepEqual(values, new ExpectedBoxImprovement(new NondominatedBoxes(front, n, m, ref)).evaluate(mean, std, 50));
  assert.ok(values.some((v) => v > 0));
});

test('a kept front grown by believed points equals one built from the whole front, and hands over to the estimate past the affordable boxes', () => {
  for (const [m, n, shape] of [
    [4, 120, 'random'],
    [5, 60, 'random'],
    [6, 36, 'spherical'],
  ] as const) {
    const front = makeFront(shape, n, m, 40 * m + n);
    const ref = new Array<number>(m).fill(1.1);
    const start = n - 10;
    const kept = new FrontImprovement(front, start, m, ref, new Random(1));
    assert.equal(kept.method, 'boxes', `m=${m} n=${start}: affordable`);
    // the last 10 front points, a dominated point and one beyond ref (both refused), and one dominating a front point
    for (let i = start; i < n; i++) kept.add(front.subarray(i * m, i * m + m));
    kept.add(front.subarray(0, m).map((v) => v + 0.01));
    kept.add(front.subarray(m, 2 * m).map((v, j) => (j === 0 ? 1.2 : v)));
    const better = front.subarray(2 * m, 3 * m).map((v) => v * 0.99);
    kept.add(better);
    const whole = new Float64Array([...front, ...better]);
    const rebuilt = new FrontImprovement(whole, n + 1, m, ref, new Random(1));
    assert.equal(kept.size, rebuilt.size, `m=${m}: the same front points`);
    const q = 100;
    const { mean, std } = momentsNear(whole, n + 1, m, q, 0.05, 50 * m);
    const grown = kept.expected(mean, std, q);
    const built = rebuilt.expected(mean, std, q);
    for (let i = 0; i < q; i++)
      assert.ok(Math.abs(grown[i] - built[i]) <= 1e-12 * 1.1 ** m, `m=${m} candidate ${i}: grown ${grown[i]} against rebuilt ${built[i]}`);
  }

  // grown past the affordable boxes, the estimate takes over from the front as it then is
  const m = 5;
  const ref = new Array<number>(m).fill(1.1);
  const front = makeFront('spherical', 400, m, 3);
  const kept = new FrontImprovement(front, 20, m, ref, new Random(2));
  let added = 20;
  while (kept.method === 'boxes' && added < 400) kept.add(front.subarray(added * m, ++added * m));
  assert.equal(kept.method, 'estimate', `the estimate after ${added} points`);
  assert.ok(added > 40 && added < 400, `${added} points`);
  const { mean, std } = momentsNear(front, added, m, 8, 0.05, 9);
  const base = antitheticNormals(128, m, new Random(4));
  const draws = monteCarloDraws(mean, std, 8, base, m);
  const estimate = kept.improvements(draws, 8, 128);
  // the same as an estimate made from the grown front at once (the same directions: none were drawn before the hand-over)
  const fresh = new FrontImprovement(front, added, m, ref, new Random(2));
  assert.equal(fresh.method, 'estimate');
  assert.deepEqual(estimate, fresh.improvements(draws, 8, 128));
  const total = (values: Float64Array): number => values.reduce((a, b) => a + b, 0);
  const truth = total(hypervolumeImprovements(front, added, m, ref, draws, 8 * 128));
  assert.ok(truth > 0 && Math.abs(total(estimate) - truth) < 0.5 * truth, `estimate ${total(estimate)} against exact ${truth}`);
});
