import assert from 'node:assert/strict';
import test from 'node:test';
import { hypervolume } from '../src/engine/hypervolume.js';
import { paretoIndices } from '../src/engine/pareto.js';
import { realWorldReference } from '../src/engine/problems/re-common.js';
import { RE_FRONTS } from '../src/engine/problems/re-fronts.js';
import { re21, re22, re23 } from '../src/engine/problems/re2.js';
import { re36 } from '../src/engine/problems/re3.js';
import { testProblem } from '../src/engine/problems/registry.js';
import type { TestProblem } from '../src/engine/problems/types.js';
import { RE_REFERENCE_VALUES } from './support/re-reference-values.js';

const close = (actual: number, expected: number, tol: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} differs from ${expected} by more than ${tol}`);

const NAMES = ['re21', 're22', 're23', 're24', 're25', 're31', 're32', 're35', 're36', 're37', 're41', 're42', 're61'];

function atNative(problem: TestProblem, x: number[], m: number): Float64Array {
  const bounds = problem.bounds!(x.length, m);
  return problem.evaluate(
    Float64Array.from(x, (v, i) => (v - bounds[i][0]) / (bounds[i][1] - bounds[i][0])),
    m,
  );
}

let state = 99;
const random = (): number => (state = (state * 48271) % 2147483647) / 2147483647;

test('every RE problem gives the reference implementation values at seeded random inputs', () => {
  for (const name of NAMES) {
    const problem = testProblem(name)!;
    for (const row of RE_REFERENCE_VALUES[name]) {
      const f = atNative(problem, row.x, row.f.length);
      row.f.forEach((v, j) => close(f[j], v, 1e-10 * Math.max(1e-3, Math.abs(v)), `${name} f${j + 1}`));
    }
  }
});

test('RE hand-computed cases: the published ideal where it is attained, rounding and catalogues', () => {
  // RE21 at its lower bounds: 200 (2 + sqrt2 sqrt2 + sqrt(sqrt2) + 1), the published least volume
  close(atNative(re21, [1, Math.SQRT2, Math.SQRT2, 1], 2)[0], RE_FRONTS.re21.ideal[0], 1e-9, 'RE21 least f1');
  // RE21's least displacement: x1 = x2 = x4 = 3, x3 = sqrt2: 0.01 (2/3 + 2 sqrt2/3 - 2 + 2/3)
  close(atNative(re21, [3, 3, Math.SQRT2, 3], 2)[1], RE_FRONTS.re21.ideal[1], 1e-13, 'RE21 least f2');
  // RE22: area 0.33 snaps to the catalogue's 0.31; cost 29.4 * 0.31 + 0.6 * 10 * 30, and the
  // violations of x1 x3 - 7.735 x1^2 / x2 >= 180 and x3 / x2 <= 4
  const f22 = atNative(re22, [0.33, 10, 30], 2);
  close(f22[0], 29.4 * 0.31 + 180, 1e-12);
  close(f22[1], 180 - (0.31 * 30 - (7.735 * 0.31 * 0.31) / 10), 1e-9);
  // RE22's width 0 (its lower bound) gives a large finite violation, not Infinity
  assert.ok(Number.isFinite(atNative(re22, [1, 0, 10], 2)[1]));
  // RE23: thicknesses in multiples of 0.0625 in (x = 16.4 rounds to 16, i.e. 1 in)
  const f23 = atNative(re23, [16.4, 8, 50, 100], 2);
  close(f23[0], 0.6224 * 1 * 50 * 100 + 1.7781 * 0.5 * 2500 + 3.1661 * 100 + 19.84 * 50, 1e-9);
  // RE36: teeth 12, 12, 60, 60 (60/12)^2 = 25: error |6.931 - 25|, largest gear 60, violated by 25/6.931 - 1 - 0.5
  const f36 = atNative(re36, [12.2, 11.8, 59.6, 60], 3);
  close(f36[0], 25 - 6.931, 1e-12);
  assert.equal(f36[1], 60);
  close(f36[2], (25 - 6.931) / 6.931 - 0.5, 1e-12);
  assert.deepEqual(re36.integers, [0, 1, 2, 3]);
});

test('the thinned published fronts: non-dominated, holding the published ideal, below the recorded hypervolume', () => {
  for (const name of NAMES) {
    const front = RE_FRONTS[name];
    const m = front.ideal.length;
    const rows = front.front.length;
    assert.equal(rows, Math.min(40, front.frontSize), name);
    const flat = Float64Array.from(front.front.flat());
    assert.equal(paretoIndices(flat, rows, m).length, rows, `${name}: thinned front points dominate each other`);
    for (let j = 0; j < m; j++) {
      const least = Math.min(...front.front.map((p) => p[j]));
      close(least, front.ideal[j], 1e-5 * Math.max(1, Math.abs(least)), `${name} ideal ${j + 1}`);
    }
    const ref = realWorldReference(front);
    const thinned = hypervolume(flat, rows, m, ref);
    assert.ok(thinned <= front.frontHypervolume * (1 + 1e-12) && thinned > 0.2 * front.frontHypervolume, `${name}: ${thinned} vs ${front.frontHypervolume}`);
    // the problem reports the recorded maximum for that reference only
    const problem = testProblem(name)!;
    assert.equal(problem.maxHypervolume!(m, ref), front.frontHypervolume);
    assert.equal(
      problem.maxHypervolume!(
        m,
        ref.map((r) => r * 2),
      ),
      undefined,
    );
  }
});

test('random designs reach less hypervolume than the published fronts record', () => {
  for (const name of NAMES) {
    const problem = testProblem(name)!;
    const front = RE_FRONTS[name];
    const m = front.ideal.length;
    const d = problem.minDimension(m);
    const count = 3000;
    const values = new Float64Array(count * m);
    for (let i = 0; i < count; i++) values.set(problem.evaluate(Float64Array.from({ length: d }, random), m), i * m);
    const reached = hypervolume(values, count, m, realWorldReference(front));
    assert.ok(reached < front.frontHypervolume, `${name}: random ${reached} vs published ${front.frontHypervolume}`);
  }
});
