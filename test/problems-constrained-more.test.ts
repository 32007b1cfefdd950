import assert from 'node:assert/strict';
import test from 'node:test';
import { hypervolume } from '../src/engine/hypervolume.js';
import { compileConstraint } from '../src/engine/mdl/expression.js';
import { c1Dtlz1, c3Dtlz4 } from '../src/engine/problems/constrained-dtlz.js';
import { mw1, mw2, mw3, mw4 } from '../src/engine/problems/mw.js';
import { constr, osy } from '../src/engine/problems/osy-constr.js';
import { srn, tnk } from '../src/engine/problems/srn-tnk.js';
import type { TestProblem } from '../src/engine/problems/types.js';
import { PUBLISHED_VALUES } from './support/published-values.js';

const close = (actual: number, expected: number, tol: number, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} differs from ${expected} by more than ${tol}`);

const toUnit = (problem: TestProblem, x: number[], m: number): Float64Array => {
  const bounds = problem.bounds?.(x.length, m);
  return Float64Array.from(x, (v, i) => (bounds ? (v - bounds[i][0]) / (bounds[i][1] - bounds[i][0]) : v));
};

/** The problem's MDL constraint expressions, compiled by the MDL's own compiler: each gives its slack (>= 0 where satisfied) at native x. */
function inputConstraints(problem: TestProblem): ((x: number[]) => number)[] {
  const names = Array.from({ length: 6 }, (_, i) => `x${i + 1}`);
  return (problem.constraints ?? []).map((text) => {
    const compiled = compileConstraint(text, names);
    if (!compiled.ok) throw new Error(`${problem.name}: ${text} does not compile`);
    return (x: number[]) => compiled.constraint.slack(Object.fromEntries(x.map((v, i) => [names[i], v])));
  });
}

const outcomes = (problem: TestProblem, x: Float64Array, f: Float64Array): number[] => Array.from(problem.outcomes?.evaluate(x, f) ?? []);

let state = 2024;
const random = (): number => (state = (state * 48271) % 2147483647) / 2147483647;

test('C1-DTLZ1, C3-DTLZ4, TNK, OSY and MW1-4 give the published objectives and constraint violations', () => {
  const cases: [TestProblem, string, number][] = [
    [c1Dtlz1, 'c1-dtlz1', 3],
    [c3Dtlz4, 'c3-dtlz4', 3],
    [tnk, 'tnk', 2],
    [osy, 'osy', 2],
    [mw1, 'mw1', 2],
    [mw2, 'mw2', 2],
    [mw3, 'mw3', 2],
    [mw4, 'mw4', 3],
  ];
  for (const [problem, key, m] of cases) {
    for (const row of PUBLISHED_VALUES[key]) {
      const x = toUnit(problem, row.x, m);
      const f = problem.evaluate(x, m);
      row.f.forEach((v, j) => close(f[j], v, 1e-9 * Math.max(1, Math.abs(v)), `${key} f${j + 1}`));
      const slacks = outcomes(problem, x, f);
      const violated = slacks.reduce((s, v) => s + Math.max(0, -v), 0);
      if (problem === c3Dtlz4) {
        // one slack, the least of the m constraints: violated exactly when pymoo's sum is positive, never by more
        assert.equal(slacks[0] < 0, row.cv! > 0, `${key} feasibility`);
        assert.ok(-slacks[0] <= row.cv! + 1e-12);
      } else if (problem === tnk) {
        // pymoo writes the disc as 2 ((x1 - 0.5)^2 + (x2 - 0.5)^2) - 1 <= 0
        const disc = Math.max(0, -inputConstraints(tnk)[0](row.x) * 2);
        close(violated + disc, row.cv!, 1e-9, `${key} cv`);
      } else if (problem === osy) {
        // pymoo normalises OSY's six constraints by 2, 6, 2, 2, 4, 4
        const scales = [2, 6, 2, 2, 4, 4];
        const cv = inputConstraints(osy).reduce((s, g, i) => s + Math.max(0, -g(row.x) / scales[i]), 0);
        close(cv, row.cv!, 1e-9, `${key} cv`);
      } else close(violated, row.cv!, 1e-9 * Math.max(1, row.cv!), `${key} cv`);
    }
  }
});

test('SRN: hand-computed values; the front holds the published Pareto set and no feasible grid point dominates it', () => {
  // at x = (-2.5, 2.5): f1 = 2 + 20.25 + 2.25, f2 = -22.5 - 2.25
  const f = srn.evaluate(toUnit(srn, [-2.5, 2.5], 2), 2);
  close(f[0], 24.5, 1e-12);
  close(f[1], -24.75, 1e-12);
  const front = srn.paretoFront(2, 4000);
  const points = Array.from({ length: 4000 }, (_, i) => [front[2 * i], front[2 * i + 1]]);
  // the published set x1 = -2.5, x2 in [2.5, 14.79] (f1 + f2 = -0.25) is part of it, and so is
  // the stretch along the linear constraint down to f1 = 10.1 at x = (1.1, 3.7)
  assert.ok(points.filter(([a, b]) => Math.abs(a + b + 0.25) < 1e-6).length > 100, 'the published Pareto set');
  close(Math.min(...points.map((p) => p[0])), 10.1, 1e-6, 'least f1');
  assert.ok(Math.min(...points.map((p) => p[1])) < -212.8, 'the circle extends the front below f2 = -212.7');
  const feasible = inputConstraints(srn);
  const grid: number[][] = [];
  for (let i = 0; i <= 500; i++) {
    for (let j = 0; j <= 500; j++) {
      const x = [-20 + (40 * i) / 500, -20 + (40 * j) / 500];
      if (feasible.every((g) => g(x) >= 0)) grid.push(Array.from(srn.evaluate(toUnit(srn, x, 2), 2)));
    }
  }
  for (const p of points) assert.ok(!grid.some((g) => g[0] < p[0] - 1e-6 && g[1] < p[1] - 1e-6), `a grid point dominates (${p})`);
});

test('TNK: the front lies on the wavy circle inside the disc, in pieces, and no feasible point dominates it', () => {
  const front = tnk.paretoFront(2, 2000);
  const disc = inputConstraints(tnk)[0];
  for (let i = 0; i < 2000; i++) {
    const [a, b] = [front[2 * i], front[2 * i + 1]];
    close(tnk.outcomes!.evaluate(Float64Array.of(a / Math.PI, b / Math.PI), Float64Array.of(a, b))[0], 0, 1e-9, 'on the wavy circle');
    assert.ok(disc([a, b]) >= -1e-12, 'inside the disc');
  }
  // the front has gaps: consecutive f1 values jump
  let largest = 0;
  for (let i = 1; i < 2000; i++) largest = Math.max(largest, front[2 * i] - front[2 * i - 2]);
  assert.ok(largest > 0.05, 'disconnected');
  for (let k = 0; k < 20_000; k++) {
    const x = [Math.PI * random(), Math.PI * random()];
    const f = tnk.evaluate(toUnit(tnk, x, 2), 2);
    if (disc(x) < 0 || tnk.outcomes!.evaluate(toUnit(tnk, x, 2), f)[0] < 0) continue;
    for (let i = 0; i < 2000; i += 7) assert.ok(!(f[0] < front[2 * i] - 1e-9 && f[1] < front[2 * i + 1] - 1e-9));
  }
});

test("OSY: the front's five segments end where Deb's book says, and random feasible designs never dominate it", () => {
  const front = osy.paretoFront(2, 5000);
  const dominated = (x: number[]) => {
    const f = osy.evaluate(toUnit(osy, x, 2), 2);
    for (let i = 0; i < 5000; i++) if (front[2 * i] <= f[0] - 1e-6 && front[2 * i + 1] <= f[1] - 1e-6) return true;
    return false;
  };
  // segment CD, x = (x1, (x1 - 2)/3, 1, 0, 1, 0), starts at x1 = 4.056; segment DE, (0, 2, x3, 0, 1, 0), ends at x3 = 3.732
  assert.ok(dominated([3.95, 1.95 / 3, 1, 0, 1, 0]));
  assert.ok(!dominated([4.15, 2.15 / 3, 1, 0, 1, 0]));
  assert.ok(!dominated([0, 2, 3.6, 0, 1, 0]));
  assert.ok(dominated([0, 2, 3.9, 0, 1, 0]));
  const feasible = inputConstraints(osy);
  const bounds = osy.bounds!(6, 2);
  let tried = 0;
  while (tried < 3000) {
    const x = bounds.map(([lo, hi]) => lo + (hi - lo) * random());
    if (!feasible.every((g) => g(x) >= 0)) continue;
    tried++;
    const f = osy.evaluate(toUnit(osy, x, 2), 2);
    for (let i = 0; i < 5000; i += 5) assert.ok(!(f[0] < front[2 * i] - 1e-6 && f[1] < front[2 * i + 1] - 1e-6), `x = ${x} dominates the front`);
  }
  // the extremes of Deb's front: f1 from -274 to -42, f2 from 4 to 76
  close(Math.min(...front.filter((_, i) => i % 2 === 0)), -274, 1e-9);
  close(Math.max(...front.filter((_, i) => i % 2 === 0)), -42, 1e-9);
  close(Math.min(...front.filter((_, i) => i % 2 === 1)), 4, 1e-9);
  close(Math.max(...front.filter((_, i) => i % 2 === 1)), 76, 1e-9);
});

test('CONSTR: the front is feasible, attained, and its hypervolume integral agrees with a staircase', () => {
  const feasible = inputConstraints(constr);
  const front = constr.paretoFront(2, 1001);
  for (let i = 0; i < 1001; i += 10) {
    const x1 = front[2 * i];
    const x2 = x1 <= 2 / 3 ? 6 - 9 * x1 : 0;
    assert.ok(
      feasible.every((g) => g([x1, x2]) >= -1e-12),
      `x = (${x1}, ${x2}) infeasible`,
    );
    const f = constr.evaluate(toUnit(constr, [x1, x2], 2), 2);
    close(f[1], front[2 * i + 1], 1e-9, 'attained');
  }
  const ref = [1.0611, 9.8];
  const exact = constr.maxHypervolume!(2, ref)!;
  const dense = constr.paretoFront(2, 200_000);
  const staircase = hypervolume(dense, 200_000, 2, ref);
  assert.ok(staircase <= exact && exact - staircase < 1e-4, `${exact} vs ${staircase}`);
});

test('C1-DTLZ1 and C3-DTLZ4 fronts: feasible, on the constraint surface (C3), hypervolume integrals match staircases', () => {
  for (const m of [2, 3]) {
    const front = c1Dtlz1.paretoFront(m, 500);
    for (let i = 0; i < 500; i++) {
      const f = front.subarray(i * m, i * m + m);
      assert.ok(c1Dtlz1.outcomes!.evaluate(new Float64Array(0), f)[0] >= -1e-12, 'C1 front feasible');
    }
    const c3 = c3Dtlz4.paretoFront(m, 500);
    for (let i = 0; i < 500; i++) close(c3Dtlz4.outcomes!.evaluate(new Float64Array(0), c3.subarray(i * m, i * m + m))[0], 0, 1e-9, 'C3 on the boundary');
  }
  // C3-DTLZ4 at m = 2: the union of the two ellipses in the quadrant; each has area pi/2 and they
  // overlap in the region below both, int over the angle of r_min^2 / 2
  let overlap = 0;
  const n = 200_000;
  for (let i = 0; i < n; i++) {
    const a = ((i + 0.5) / n) * (Math.PI / 2);
    const r2 = 1 / (1 - 0.75 * Math.min(Math.cos(a) ** 2, Math.sin(a) ** 2));
    overlap += (r2 / 2) * (Math.PI / 2 / n);
  }
  close(c3Dtlz4.maxHypervolume!(2, [2.2, 2.2])!, 2.2 * 2.2 - (Math.PI - overlap), 1e-6, 'C3 m=2');
  const ref = [2.2, 2.2, 2.2];
  const staircase = hypervolume(c3Dtlz4.paretoFront(3, 60_000), 60_000, 3, ref);
  const exact = c3Dtlz4.maxHypervolume!(3, ref)!;
  assert.ok(staircase <= exact && exact - staircase < 3e-3 * exact, `${exact} vs ${staircase}`);
  // C1-DTLZ1's front is DTLZ1's, feasible throughout
  close(c1Dtlz1.maxHypervolume!(3, [0.55, 0.55, 0.55])!, 0.55 ** 3 - 0.5 ** 3 / 6, 1e-15);
});

test('MW fronts: feasible, on their published curves, with hypervolumes matching staircases', () => {
  // MW1: less than the whole line's 1.085 - 1 + 0.425 + 0.1 (1.085 - 0.15): the constraint cuts it
  const line = 1.085 - 1 + 0.425 + 0.1 * (1.085 - 0.15);
  const mw1Hv = mw1.maxHypervolume!(2, [1.1, 1.085])!;
  assert.ok(mw1Hv < line - 0.01 && mw1Hv > line - 0.05, `${mw1Hv} vs the line's ${line}`);
  // the least feasible points above the cuts are all dominated: the front is the line's feasible pieces (as pymoo's)
  const mw1Front = mw1.paretoFront(2, 2000);
  let gaps = 0;
  for (let i = 0; i < 2000; i++) {
    close(mw1Front[2 * i + 1], 1 - 0.85 * mw1Front[2 * i], 1e-12, 'MW1 on the line');
    if (i > 0 && mw1Front[2 * i] - mw1Front[2 * i - 2] > 0.01) gaps++;
  }
  assert.ok(gaps >= 3, `${gaps} gaps`);
  close(mw2.maxHypervolume!(2, [1.1, 1.1])!, 1.21 - 0.5, 1e-12);
  close(mw4.maxHypervolume!(3, [1.1, 1.1, 1.1])!, 1.331 - 1 / 6, 1e-12);
  for (const [problem, m] of [
    [mw1, 2],
    [mw2, 2],
    [mw3, 2],
    [mw4, 3],
  ] as [TestProblem, number][]) {
    const front = problem.paretoFront(m, 400);
    for (let i = 0; i < 400; i++) {
      const f = front.subarray(i * m, i * m + m);
      for (const s of outcomes(problem, new Float64Array(0), f)) assert.ok(s >= -1e-9, `${problem.name} front point ${i} infeasible`);
    }
  }
  // MW3: the line f1 + f2 = 1 where the second constraint allows, pushed out to its boundary elsewhere
  const front = mw3.paretoFront(2, 2000);
  let pushed = 0;
  for (let i = 0; i < 2000; i++) {
    const sum = front[2 * i] + front[2 * i + 1];
    if (sum > 1 + 1e-9) {
      pushed++;
      close(mw3.outcomes!.evaluate(new Float64Array(0), front.subarray(2 * i, 2 * i + 2))[1], 0, 1e-9, 'on the boundary');
    } else close(sum, 1, 1e-9, 'on the line');
  }
  assert.ok(pushed > 50 && pushed < 1950, `${pushed} of 2000 pushed out`);
  // attained: x1 = f1 and a g3 of 1 + (f1 + f2 - 1) (x_i = 1 - (x_{i-1} - 0.5)^2 makes each term 0)
  const x = new Float64Array(15);
  x[0] = 0.3;
  for (let i = 1; i < 15; i++) x[i] = 1 - (x[i - 1] - 0.5) ** 2;
  close(mw3.evaluate(x, 2)[1], 0.7, 1e-12, 'MW3 attains the line');
});
