import assert from 'node:assert/strict';
import test from 'node:test';
import { hypervolume } from '../src/engine/hypervolume.js';
import { paretoIndices } from '../src/engine/pareto.js';
import { dtlz3, dtlz4, dtlz5, dtlz6 } from '../src/engine/problems/dtlz-more.js';
import { DTLZ7_REGIONS, dtlz7 } from '../src/engine/problems/dtlz7.js';
import type { TestProblem } from '../src/engine/problems/types.js';
import { ZDT6_LEAST_F1, zdt4, zdt6 } from '../src/engine/problems/zdt-more.js';
import { PUBLISHED_VALUES } from './support/published-values.js';

const close = (actual: number, expected: number, tol: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} differs from ${expected} by more than ${tol}`);

/** Native x -> unit cube through the problem's bounds (absent: already in [0, 1]). */
function toUnit(problem: TestProblem, x: number[], m: number): Float64Array {
  const bounds = problem.bounds?.(x.length, m);
  return Float64Array.from(x, (v, i) => (bounds ? (v - bounds[i][0]) / (bounds[i][1] - bounds[i][0]) : v));
}

function checkPublished(problem: TestProblem, key: string, m: number): void {
  for (const row of PUBLISHED_VALUES[key]) {
    const f = problem.evaluate(toUnit(problem, row.x, m), m);
    row.f.forEach((v, j) => close(f[j], v, 1e-9 * Math.max(1, Math.abs(v)), `${key} f${j + 1}`));
  }
}

/** Staircase hypervolume of the non-dominated part of a dense front sample (a lower bound of the true value). */
function sampledHv(front: Float64Array, m: number, ref: number[]): number {
  return hypervolume(front, front.length / m, m, ref);
}

test('ZDT4 and ZDT6 give the published values at pymoo reference inputs', () => {
  checkPublished(zdt4, 'zdt4', 2);
  checkPublished(zdt6, 'zdt6', 2);
  // ZDT4's x2..xd are natively in [-5, 5]
  assert.deepEqual(zdt4.bounds!(3, 2), [
    [0, 1],
    [-5, 5],
    [-5, 5],
  ]);
});

test('ZDT4 and ZDT6 fronts: attained where the distance variables vanish, on the published curves', () => {
  // ZDT4: x2..xd = 0 natively (0.5 on the cube) gives g = 1 + 10 * 9 + 9 * (0 - 10) = 1
  for (const f1 of [0, 0.25, 1]) {
    const x = new Float64Array(10).fill(0.5);
    x[0] = f1;
    const f = zdt4.evaluate(x, 2);
    close(f[1], 1 - Math.sqrt(f1), 1e-12, 'zdt4 front');
  }
  // ZDT6: pymoo's front starts at f1 = 0.2807753191 (rounded); x2..xd = 0 gives g = 1 and f2 = 1 - f1^2
  close(ZDT6_LEAST_F1, 0.2807753191, 1e-9, 'least f1');
  const front = zdt6.paretoFront(2, 101);
  close(front[0], ZDT6_LEAST_F1, 1e-15);
  for (let i = 0; i < 101; i++) close(front[2 * i + 1], 1 - front[2 * i] ** 2, 1e-14, 'zdt6 front');
  const x = new Float64Array(10);
  x[0] = 1 / 12;
  const f = zdt6.evaluate(x, 2);
  close(f[1], 1 - f[0] ** 2, 1e-14, 'zdt6 attained');
  // no x1 gives a smaller f1 than the least value
  for (let i = 0; i <= 100_000; i++) assert.ok(zdt6.evaluate(Float64Array.of(i / 100_000, 0), 2)[0] >= ZDT6_LEAST_F1 - 1e-15);
});

test('ZDT4 and ZDT6 maximum hypervolumes: closed forms agree with dense staircases', () => {
  close(zdt4.maxHypervolume!(2, [1.1, 1.1])!, 1.21 - 1 / 3, 1e-15);
  for (const [problem, ref] of [
    [zdt4, [1.1, 1.1]],
    [zdt6, [1.0719, 1.0133]],
    [zdt6, [2, 2]],
  ] as [TestProblem, number[]][]) {
    const exact = problem.maxHypervolume!(2, ref)!;
    const sampled = sampledHv(problem.paretoFront(2, 200_000), 2, ref);
    assert.ok(sampled <= exact + 1e-12 && exact - sampled < 1e-5, `${problem.name} at ${ref}: ${exact} vs staircase ${sampled}`);
  }
  assert.equal(zdt6.maxHypervolume!(2, [0.9, 1.1]), undefined);
});

test('DTLZ3-DTLZ7 give the published values at pymoo reference inputs (3 objectives, 10 variables)', () => {
  checkPublished(dtlz3, 'dtlz3', 3);
  checkPublished(dtlz4, 'dtlz4', 3);
  checkPublished(dtlz5, 'dtlz5', 3);
  checkPublished(dtlz6, 'dtlz6', 3);
  checkPublished(dtlz7, 'dtlz7', 3);
});

test('DTLZ3 and DTLZ4 reach the unit sphere where g = 0; DTLZ3 is 100 (k + ...) away from it elsewhere', () => {
  for (const [problem, x] of [
    [dtlz3, [0.3, 0.8, 0.5, 0.5, 0.5, 0.5, 0.5]],
    [dtlz4, [0.97, 0.99, 0.5, 0.5, 0.5, 0.5]],
  ] as [TestProblem, number[]][]) {
    const f = problem.evaluate(Float64Array.from(x), 3);
    close(f[0] ** 2 + f[1] ** 2 + f[2] ** 2, 1, 1e-12, problem.name);
  }
  // DTLZ3 with every distance variable at 0: each term is 0.25 - cos(-10 pi) = -0.75, so g = 100 (5 - 3.75)
  const f = dtlz3.evaluate(Float64Array.of(0, 0, 0, 0, 0, 0, 0), 3);
  close(f[0], 1 + 125, 1e-9, 'dtlz3 g');
});

test('DTLZ5 and DTLZ6 fronts: the degenerate curve at g = 0 (PlatEMO scaling), attained by the problems', () => {
  for (const m of [3, 4]) {
    const front = dtlz5.paretoFront(m, 3 === m ? 51 : 2001);
    if (m === 3) {
      for (let i = 0; i < 51; i++) {
        const [a, b, c] = [front[3 * i], front[3 * i + 1], front[3 * i + 2]];
        close(a * a + b * b + c * c, 1, 1e-12, 'sphere');
        close(a, b, 1e-12, 'f1 = f2 on the curve');
      }
    }
  }
  // at x_M = 0.5 (DTLZ5) or 0 (DTLZ6) every x2..x_{m-1} gives the same curve point
  for (const [problem, distance] of [
    [dtlz5, 0.5],
    [dtlz6, 0],
  ] as [TestProblem, number][]) {
    const a = problem.evaluate(Float64Array.of(0.3, 0.1, 0.9, distance, distance, distance), 4);
    const b = problem.evaluate(Float64Array.of(0.3, 0.8, 0.2, distance, distance, distance), 4);
    for (let j = 0; j < 4; j++) close(a[j], b[j], 1e-12, `${problem.name} degenerate`);
    // the curve's point at x1 = 0.3: (c/2, c/2, c/sqrt2, s) with c = cos(0.15 pi), s = sin(0.15 pi)
    const c = Math.cos(0.15 * Math.PI);
    [c / 2, c / 2, c * Math.SQRT1_2, Math.sin(0.15 * Math.PI)].forEach((v, j) => close(a[j], v, 1e-12, `${problem.name} curve`));
  }
});

test('DTLZ5/6 maximum hypervolume: closed form at m = 2, the curve integral at m = 3, a dense sample at m = 4', () => {
  close(dtlz5.maxHypervolume!(2, [1.1, 1.1])!, 1.21 - Math.PI / 4, 1e-12);
  const ref3 = [1.1 * Math.SQRT1_2, 1.1 * Math.SQRT1_2, 1.1];
  const exact3 = dtlz5.maxHypervolume!(3, ref3)!;
  const staircase3 = sampledHv(dtlz5.paretoFront(3, 200_001), 3, ref3);
  assert.ok(staircase3 <= exact3 && exact3 - staircase3 < 2e-5 * exact3, `m = 3: ${exact3} vs ${staircase3}`);
  // m = 4: points with g > 0 are not dominated by the curve (Ishibuchi et al. 2016): the sample's
  // hypervolume exceeds the curve's alone, and no random point dominates a curve point
  const ref4 = [0.55, 0.55, 1.1 * Math.SQRT1_2, 1.1];
  const sampled = dtlz5.maxHypervolume!(4, ref4)!;
  const curveOnly = sampledHv(curve4(20_001), 4, ref4);
  assert.ok(sampled > curveOnly * 1.0005 && sampled < curveOnly * 1.005, `sample ${sampled} vs curve ${curveOnly}`);
  // a point with g = 0.1 off the curve that no curve point dominates
  const off = dtlz5.evaluate(Float64Array.of(0, 1, 0, 0.5 + Math.sqrt(0.1), 0.5, 0.5, 0.5, 0.5), 4);
  const curve = curve4(20_001);
  for (let i = 0; i < 20_001; i++) assert.ok(!curve.subarray(4 * i, 4 * i + 4).every((v, j) => v <= off[j]), 'the curve dominates the off-curve point');
  const front = dtlz5.paretoFront(4, 400);
  let state = 7;
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  for (let k = 0; k < 3000; k++) {
    const f = dtlz5.evaluate(Float64Array.from({ length: 8 }, random), 4);
    for (let i = 0; i < 400; i++) {
      const p = front.subarray(4 * i, 4 * i + 4);
      assert.ok(!f.every((v, j) => v < p[j] - 1e-9), 'a random point strictly dominates a front point');
    }
  }
});

/** The DTLZ5 m = 4 curve alone: (c/2, c/2, c/sqrt2, s). */
function curve4(count: number): Float64Array {
  const out = new Float64Array(4 * count);
  for (let i = 0; i < count; i++) {
    const t = ((i / (count - 1)) * Math.PI) / 2;
    out.set([Math.cos(t) / 2, Math.cos(t) / 2, Math.cos(t) * Math.SQRT1_2, Math.sin(t)], 4 * i);
  }
  return out;
}

test('DTLZ7: the front intervals match the published ones and the front points are attained and non-dominated', () => {
  // PlatEMO's DTLZ7 intervals, 6 significant digits
  const published = [
    [0, 0.251412],
    [0.631627, 0.859401],
  ];
  assert.equal(DTLZ7_REGIONS.length, 2);
  DTLZ7_REGIONS.forEach(([a, b], k) => {
    close(a, published[k][0], 1e-6, 'start');
    close(b, published[k][1], 1e-6, 'end');
  });
  for (const m of [2, 3]) {
    const count = 500;
    const front = dtlz7.paretoFront(m, count);
    assert.equal(paretoIndices(front, count, m).length, count, `m = ${m}: front points dominate each other`);
    for (let i = 0; i < count; i += 50) {
      // x_M = 0 gives g = 1: the front point itself
      const x = new Float64Array(m + 4);
      for (let j = 0; j < m - 1; j++) x[j] = front[i * m + j];
      const f = dtlz7.evaluate(x, m);
      for (let j = 0; j < m; j++) close(f[j], front[i * m + j], 1e-12, `m = ${m} attained`);
    }
  }
});

test('DTLZ7 maximum hypervolume: the separable integral agrees with dense staircases', () => {
  for (const [m, count, tol] of [
    [2, 400_000, 2e-5],
    [3, 300_000, 3e-3],
  ] as [number, number, number][]) {
    const ref = [...Array<number>(m - 1).fill(0.9454), 2 * m * 1.05];
    const exact = dtlz7.maxHypervolume!(m, ref)!;
    const staircase = sampledHv(dtlz7.paretoFront(m, count), m, ref);
    assert.ok(staircase <= exact && exact - staircase < tol * exact, `m = ${m}: ${exact} vs ${staircase}`);
  }
  // a reference below the front's largest f_m cuts the formula's premise
  assert.equal(dtlz7.maxHypervolume!(2, [1, 3.9]), undefined);
});
