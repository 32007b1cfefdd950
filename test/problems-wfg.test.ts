import assert from 'node:assert/strict';
import test from 'node:test';
import { hypervolume } from '../src/engine/hypervolume.js';
import type { TestProblem } from '../src/engine/problems/types.js';
import { disconnectedShape, mixedShape, reduceNonSeparable, shape } from '../src/engine/problems/wfg-functions.js';
import { wfg1, wfg2, wfg3, wfg4, wfg5, wfg6, wfg7, wfg8, wfg9 } from '../src/engine/problems/wfg.js';
import { PUBLISHED_VALUES } from './support/published-values.js';

const close = (actual: number, expected: number, tol: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} differs from ${expected} by more than ${tol}`);

const ALL = [wfg1, wfg2, wfg3, wfg4, wfg5, wfg6, wfg7, wfg8, wfg9];

let state = 12345;
const random = (): number => (state = (state * 48271) % 2147483647) / 2147483647;

test('WFG1-9 give the published values at pymoo reference inputs (2 and 3 objectives, k = 4, l = 2)', () => {
  for (const m of [2, 3]) {
    for (const problem of ALL) {
      for (const row of PUBLISHED_VALUES[`${problem.name}-m${m}`]) {
        // z_i in [0, 2i] natively
        const bounds = problem.bounds!(row.x.length, m);
        assert.deepEqual(bounds[2], [0, 6]);
        const f = problem.evaluate(
          Float64Array.from(row.x, (v, i) => v / bounds[i][1]),
          m,
        );
        row.f.forEach((v, j) => close(f[j], v, 1e-9 * Math.max(1, Math.abs(v)), `${problem.name} m=${m} f${j + 1}`));
      }
    }
  }
});

test('WFG building blocks: hand-computed shapes and reductions', () => {
  // concave at x = (0.5): h1 = sin(pi/4), h2 = cos(pi/4); linear at (0.25, 0.5): 0.125, 0.125, 0.75
  const concave = shape('concave', [0.5], 2);
  close(concave[0], Math.SQRT1_2, 1e-15);
  close(concave[1], Math.SQRT1_2, 1e-15);
  assert.deepEqual(Array.from(shape('linear', [0.25, 0.5], 3)), [0.125, 0.125, 0.75]);
  // mixed and disconnected start at 1 and end at 0
  close(mixedShape(0, 1, 5), 1, 1e-15);
  close(mixedShape(1, 1, 5), 0, 1e-15);
  close(disconnectedShape(1, 1, 1, 5), 0, 1e-15);
  // r_nonsep of (0.2, 0.6) with A = 2: (0.2 + 0.4 + 0.6 + 0.4) / (2/2 * 1 * (1 + 4 - 2)) = 1.6 / 3
  close(reduceNonSeparable([0.2, 0.6], 0, 2, 2), 1.6 / 3, 1e-15);
  assert.throws(() => wfg2.evaluate(new Float64Array(7), 2), /even number/);
  assert.throws(() => wfg4.evaluate(new Float64Array(4), 2), /4 position variables/);
});

/** The Pareto-optimal distance variables of the WFG paper (table XIV's footnotes), in unit-cube coordinates. */
function optimal(problem: TestProblem, positions: number[], n: number): Float64Array {
  const k = positions.length;
  const y = new Float64Array(n);
  y.set(positions);
  const param = (u: number) => 0.02 + 49.98 * (0.98 / 49.98 - (1 - 2 * u) * Math.abs(Math.floor(0.5 - u) + 0.98 / 49.98));
  if (problem === wfg8) {
    for (let i = k; i < n; i++) {
      let mean = 0;
      for (let j = 0; j < i; j++) mean += y[j] / i;
      y[i] = 0.35 ** (1 / param(mean));
    }
  } else if (problem === wfg9) {
    y[n - 1] = 0.35;
    for (let i = n - 2; i >= k; i--) {
      let mean = 0;
      for (let j = i + 1; j < n; j++) mean += y[j] / (n - i - 1);
      y[i] = 0.35 ** (1 / (0.02 + 1.96 * mean));
    }
  } else y.fill(0.35, k);
  return y;
}

test('WFG fronts: Pareto-optimal points satisfy each front equation', () => {
  for (const m of [2, 3]) {
    for (const problem of ALL) {
      for (let trial = 0; trial < 20; trial++) {
        const positions = Array.from({ length: 4 }, () => (trial === 0 ? 0.5 : random()));
        const f = problem.evaluate(optimal(problem, positions, 24), m);
        if ([wfg4, wfg5, wfg6, wfg7, wfg8, wfg9].includes(problem)) {
          // the sphere scaled by 2m along objective m
          close(
            f.reduce((s, v, i) => s + (v / (2 * (i + 1))) ** 2, 0),
            1,
            1e-9,
            `${problem.name} m=${m} sphere`,
          );
        } else if (m === 2) {
          // f1 = 2 (1 - cos(u pi/2)) fixes u; then f2 = 4 h(u); WFG3: the line f1/2 + f2/4 = 1
          const u = (Math.acos(1 - f[0] / 2) * 2) / Math.PI;
          const expected = problem === wfg1 ? 4 * mixedShape(u, 1, 5) : problem === wfg2 ? 4 * disconnectedShape(u, 1, 1, 5) : 4 * (1 - f[0] / 2);
          close(f[1], expected, 1e-9, `${problem.name} m=2`);
        } else if (problem === wfg3) {
          // the degenerate line (u, 2u, 6 - 6u)
          close(f[1], 2 * f[0], 1e-9, 'wfg3 f2 = 2 f1');
          close(f[2], 6 - 6 * f[0], 1e-9, 'wfg3 f3 = 6 - 6 f1');
        }
      }
    }
  }
});

test('WFG maximum hypervolumes: integrals and closed forms agree with dense staircases of their fronts', () => {
  const cases: [TestProblem, number, number[], number][] = [
    [wfg1, 2, [2.2, 4.4], 1e-5],
    [wfg2, 2, [2.2, 4.4], 1e-5],
    [wfg3, 2, [2.2, 4.4], 5e-5],
    [wfg4, 2, [2.2, 4.4], 1e-4],
    [wfg1, 3, [2.2, 4.4, 6.6], 2e-3],
    [wfg2, 3, [2.2, 4.4, 6.6], 2e-3],
    [wfg4, 3, [2.2, 4.4, 6.6], 6e-3],
  ];
  for (const [problem, m, ref, tol] of cases) {
    const exact = problem.maxHypervolume!(m, ref)!;
    const count = m === 2 ? 100_000 : 40_000;
    const staircase = hypervolume(problem.paretoFront(m, count), count, m, ref);
    assert.ok(staircase <= exact * (1 + 1e-9) && exact - staircase < tol * exact, `${problem.name} m=${m}: ${exact} vs staircase ${staircase}`);
  }
  // WFG3's line cuts a triangle of area 2 * 4 / 2 off the box
  close(wfg3.maxHypervolume!(2, [2.2, 4.4])!, 2.2 * 4.4 - 4, 1e-12);
  // the concave fronts: the box minus prod(2m) times the unit ball's orthant
  close(wfg9.maxHypervolume!(2, [2.2, 4.4])!, 2.2 * 4.4 - 8 * (Math.PI / 4), 1e-12);
  assert.equal(wfg1.maxHypervolume!(2, [1.5, 4.4]), undefined);
});

test('WFG fronts keep their extremes and no random design dominates a front point', () => {
  for (const problem of [wfg1, wfg2, wfg3, wfg4]) {
    for (const m of [2, 3]) {
      const count = 300;
      const front = problem.paretoFront(m, count);
      // the ideal is 0 and the nadir (WFG3 at m = 3 aside) is 2m in every objective
      for (let j = 0; j < m; j++) {
        let lo = Infinity;
        let hi = -Infinity;
        for (let i = 0; i < count; i++) {
          lo = Math.min(lo, front[i * m + j]);
          hi = Math.max(hi, front[i * m + j]);
        }
        close(lo, 0, 1e-9, `${problem.name} m=${m} ideal`);
        if (!(problem === wfg3 && m === 3)) close(hi, 2 * (j + 1), 1e-3, `${problem.name} m=${m} nadir`);
      }
      for (let trial = 0; trial < 300; trial++) {
        const f = problem.evaluate(Float64Array.from({ length: 24 }, random), m);
        for (let i = 0; i < count; i++) {
          assert.ok(!front.subarray(i * m, i * m + m).every((v, j) => f[j] < v - 1e-9), `${problem.name} m=${m}: a random design dominates front point ${i}`);
        }
      }
    }
  }
});

test('WFG3 at 3 objectives: points off the degenerate line are Pareto-optimal, so the front sample exceeds the line', () => {
  // t_M = 0.2 widens x2 around 0.5: at x1 = 0.9 the point (x_M + 2 x1 x2, x_M + 4 x1 (1 - x2), x_M + 6 (1 - x1))
  // with x2 = 0.6 is not dominated by any (u, 2u, 6 - 6u)
  const p = [0.2 + 2 * 0.9 * 0.6, 0.2 + 4 * 0.9 * 0.4, 0.2 + 6 * 0.1];
  for (let i = 0; i <= 100_000; i++) {
    const u = i / 100_000;
    assert.ok(!(u <= p[0] && 2 * u <= p[1] && 6 - 6 * u <= p[2]), `the line dominates the off-line point at u = ${u}`);
  }
  const ref = [2.2, 2.2, 6.6];
  let line = 0;
  // the line's hypervolume in closed form: at height z the line reaches down to u = 1 - z/6
  const steps = 100_000;
  for (let i = 0; i < steps; i++) {
    const z = ((i + 0.5) / steps) * 6;
    const u = 1 - z / 6;
    line += ((ref[0] - u) * (ref[1] - 2 * u) * 6) / steps;
  }
  line += ref[0] * ref[1] * (ref[2] - 6);
  assert.ok(wfg3.maxHypervolume!(3, ref)! > line * 1.001, `${wfg3.maxHypervolume!(3, ref)} vs the line's ${line}`);
});
