import test from 'node:test';
import assert from 'node:assert/strict';
import { DenseLikelihood } from '../src/engine/gp/likelihood.js';
import { multiStartFit } from '../src/engine/gp/multistart.js';
import { HyperparameterSpace } from '../src/engine/gp/priors.js';
import { fitIterations } from '../src/engine/strategies/trust-region/models.js';
import { sinusoids, uniformPoints } from './support/gp-fixtures.js';

const n = 40;
const d = 4;
const X = uniformPoints(n, d, 3);
const raw = Float64Array.from({ length: n }, (_, i) => sinusoids(X.subarray(i * d, i * d + d), d));
const mean = raw.reduce((a, b) => a + b, 0) / n;
const sd = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
const y = raw.map((v) => (v - mean) / sd);

/** The likelihood, counting the evaluations made without a gradient (screening) and with one. */
function counted() {
  const dense = new DenseLikelihood(X, y, n, d);
  const calls = { screened: 0, withGradient: 0 };
  const logLikelihood = (theta: Float64Array, gradient?: Float64Array): number => {
    if (gradient) calls.withGradient++;
    else calls.screened++;
    return dense.evaluate(theta, gradient);
  };
  return { calls, logLikelihood };
}

test('a refit warm-started into its only run screens no random starts; a cold fit screens 4 per run and the default', () => {
  const space = new HyperparameterSpace(d);
  const cold = counted();
  const first = multiStartFit(cold.logLikelihood, n, space, { seed: 1, restarts: 2, maxIterations: 30 });
  assert.equal(cold.calls.screened, 1 + 4 * 2);
  const warm = counted();
  const refit = multiStartFit(warm.logLikelihood, n, space, { seed: 2, restarts: 1, maxIterations: 30, initial: first.hyperparameters });
  assert.equal(warm.calls.screened, 0);
  assert.ok(warm.calls.withGradient > 0);
  // the refit starts at the optimum on the same data: it ends no worse than the cold fit
  assert.ok(refit.logMarginalLikelihood >= first.logMarginalLikelihood - 1e-6, `${refit.logMarginalLikelihood} vs ${first.logMarginalLikelihood}`);
  // a warm start beside a second run still screens, for that run's start
  const both = counted();
  multiStartFit(both.logLikelihood, n, space, { seed: 3, restarts: 2, maxIterations: 30, initial: first.hyperparameters });
  assert.equal(both.calls.screened, 1 + 4 * 2);
});

test('local fits keep their iterations up to the cost of 200 rows in 100 dimensions, and scale down as n²d grows beyond', () => {
  assert.equal(fitIterations(60, 200, 100), 60);
  assert.equal(fitIterations(60, 100, 200), 60, 'n²d = 2·10⁶: under the cost');
  assert.equal(fitIterations(60, 200, 200), 30, 'twice the cost: half the iterations');
  assert.equal(fitIterations(60, 200, 150), 40);
  assert.equal(fitIterations(60, 400, 200), 20, 'never below 20');
  assert.equal(fitIterations(10, 400, 200), 10, 'nor above what was asked');
  assert.equal(fitIterations(60, 30, 6), 60);
});
