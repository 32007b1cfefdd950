import test from 'node:test';
import assert from 'node:assert/strict';
import { MonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi.js';
import { ParegoAcquisition } from '../src/engine/acquisition/parego.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { Random } from '../src/engine/random.js';

const front3 = Float64Array.of(0.2, 0.6, 0.7, 0.5, 0.3, 0.6, 0.7, 0.6, 0.2, 0.4, 0.4, 0.4);
const ref3 = [1, 1, 1];

test('Monte Carlo EHVI without uncertainty is the exact 3-objective improvement', () => {
  const acq = new MonteCarloEhvi(front3, 4, 3, ref3, 16, new Random(1));
  const base = hypervolume(front3, 4, 3, ref3);
  for (const c of [
    [0.3, 0.3, 0.3],
    [0.1, 0.9, 0.9],
    [0.95, 0.95, 0.95],
    [1.5, 0, 0],
  ]) {
    const [value] = acq.evaluate(Float64Array.from(c), new Float64Array(3), 1);
    const exact = hypervolume(Float64Array.from([...front3, ...c]), 5, 3, ref3) - base;
    assert.ok(Math.abs(value - exact) < 1e-12, `candidate ${c}: ${value} vs ${exact}`);
  }
});

test('Monte Carlo EHVI converges to an independent large-sample estimate', () => {
  const mean = Float64Array.of(0.35, 0.4, 0.45);
  const std = Float64Array.of(0.1, 0.1, 0.2);
  const [estimate] = new MonteCarloEhvi(front3, 4, 3, ref3, 512, new Random(2)).evaluate(mean, std, 1);
  const random = new Random(99);
  const base = hypervolume(front3, 4, 3, ref3);
  let sum = 0;
  const samples = 20_000;
  const joined = new Float64Array(15);
  joined.set(front3);
  for (let s = 0; s < samples; s++) {
    for (let j = 0; j < 3; j++) joined[12 + j] = mean[j] + std[j] * random.normal();
    sum += hypervolume(joined, 5, 3, ref3) - base;
  }
  const reference = sum / samples;
  assert.ok(Math.abs(estimate - reference) < 0.08 * reference, `${estimate} vs ${reference}`);
});

test('ParEGO rewards candidates that improve the scalarized best and ignores dominated ones', () => {
  const Y = Float64Array.of(0, 1, 0.5, 0.5, 1, 0);
  const acq = new ParegoAcquisition(Y, 3, 2, new Random(3), 64);
  const std = Float64Array.of(1e-9, 1e-9, 1e-9, 1e-9);
  const [dominating, dominated] = acq.evaluate(Float64Array.of(-0.2, -0.2, 2, 2), std, 2);
  assert.ok(dominating > 0.05, `dominating candidate scored ${dominating}`);
  assert.equal(dominated, 0);
});
