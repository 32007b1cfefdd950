import assert from 'node:assert/strict';
import test from 'node:test';
import { batteryCathode } from '../src/engine/problems/battery-cathode.js';
import { bnh } from '../src/engine/problems/bnh.js';
import { branin, braninCurrin, currin } from '../src/engine/problems/branin-currin.js';
import { dtlz1, dtlz2 } from '../src/engine/problems/dtlz.js';
import { arcLengthSpread, polylineHypervolume2d } from '../src/engine/problems/fronts.js';
import { testProblem, builtinNames } from '../src/engine/problems/registry.js';
import { waterMembrane } from '../src/engine/problems/water-membrane.js';
import { ZDT3_REGIONS, zdt1, zdt2, zdt3 } from '../src/engine/problems/zdt.js';
import { Random } from '../src/engine/random.js';

const close = (actual: number, expected: number, tol = 1e-12, what = ''): void =>
  assert.ok(Math.abs(actual - expected) <= tol, `${what} ${actual} differs from ${expected} by more than ${tol}`);

const point = (...values: number[]): Float64Array => Float64Array.from(values);
const filled = (n: number, v: number): Float64Array => new Float64Array(n).fill(v);

/** Whether a weakly dominates b with at least one strict improvement (minimization). */
function dominates(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  let strict = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) strict = true;
  }
  return strict;
}

function rows(flat: Float64Array, m: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let i = 0; i < flat.length; i += m) out.push(flat.subarray(i, i + m));
  return out;
}

/** Brute-force O(n^2) check that no row dominates another. */
function assertMutuallyNonDominated(front: Float64Array[], what: string): void {
  for (let i = 0; i < front.length; i++) {
    for (let j = 0; j < front.length; j++) {
      if (i !== j && dominates(front[i], front[j])) assert.fail(`${what}: front point ${i} dominates ${j}`);
    }
  }
}

/** The non-dominated points of a two-objective set by sorting on f1 and sweeping (ties: smaller f2 first). */
function sweepFront(points: Float64Array[]): Float64Array[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Float64Array[] = [];
  for (const p of sorted) if (out.length === 0 || p[1] < out[out.length - 1][1]) out.push(p);
  return out;
}

/** Staircase hypervolume of a two-objective point set (minimization), by sorting on f1. */
function staircaseHv(points: Float64Array[], ref: [number, number]): number {
  const sorted = points.filter((p) => p[0] < ref[0] && p[1] < ref[1]).sort((a, b) => a[0] - b[0]);
  let best = ref[1];
  let area = 0;
  for (let i = 0; i < sorted.length; i++) {
    best = Math.min(best, sorted[i][1]);
    const next = i + 1 < sorted.length ? sorted[i + 1][0] : ref[0];
    area += (next - sorted[i][0]) * (ref[1] - best);
  }
  return area;
}

test('the registry lists every builtin and looks names up case-insensitively', () => {
  assert.deepEqual(builtinNames(), [
    'zdt1',
    'zdt2',
    'zdt3',
    'dtlz1',
    'dtlz2',
    'branin-currin',
    'bnh',
    'c2-dtlz2',
    'constrained-branin-currin',
    'zdt4',
    'zdt6',
    'dtlz3',
    'dtlz4',
    'dtlz5',
    'dtlz6',
    'dtlz7',
    'wfg1',
    'wfg2',
    'wfg3',
    'wfg4',
    'wfg5',
    'wfg6',
    'wfg7',
    'wfg8',
    'wfg9',
    're21',
    're22',
    're23',
    're24',
    're25',
    're31',
    're32',
    're35',
    're36',
    're37',
    're41',
    're42',
    're61',
    'c1-dtlz1',
    'c3-dtlz4',
    'srn',
    'tnk',
    'osy',
    'constr',
    'mw1',
    'mw2',
    'mw3',
    'mw4',
    'water-membrane',
    'battery-cathode',
    'water-splitting-catalyst',
    'electrolyte-formulation',
    'perovskite-solar-cell',
    'alloy-design',
    'polymer-membrane',
  ]);
  assert.equal(testProblem('ZDT1'), zdt1);
  assert.equal(testProblem('nope'), undefined);
});

test('polyline hypervolume and arc-length spread on a straight front', () => {
  const line = point(0, 1, 0.5, 0.5, 1, 0);
  // box minus the triangle under f2 = 1 - f1
  close(polylineHypervolume2d(line, [2, 2]), 4 - 0.5, 1e-15);
  // only f1 in [0.2, 0.8] lies below f2 = 0.8: int (f1 - 0.2) = 0.18
  close(polylineHypervolume2d(line, [0.8, 0.8]), 0.18, 1e-15);
  close(polylineHypervolume2d(line, [0.5, 0.5]), 0, 1e-15);
  // beyond the last sample the front stays at its last f2
  close(polylineHypervolume2d(point(0, 1, 1, 0.5), [2, 1]), 0.25 + 0.5, 1e-15);
  const samples = new Float64Array(2 * 1001);
  for (let i = 0; i <= 1000; i++) samples.set([i / 1000, 1 - i / 1000], 2 * i);
  assert.deepEqual(
    Array.from(arcLengthSpread(samples, 5)).map((v) => Math.round(v * 1000) / 1000),
    [0, 1, 0.25, 0.75, 0.5, 0.5, 0.75, 0.25, 1, 0],
  );
});

test('ZDT1-3 match the published definitions at hand-computed points', () => {
  // x = 0: f1 = 0, g = 1, so h = 1 for all three
  for (const p of [zdt1, zdt2, zdt3]) assert.deepEqual(Array.from(p.evaluate(filled(6, 0), 2)), [0, 1]);
  // x = (1, 0, ...): g = 1, f2 = h(1, 1): 0 for ZDT1 and ZDT2, 1 - 1 - sin(10 pi) ~ 0 for ZDT3
  close(zdt1.evaluate(point(1, 0, 0), 2)[1], 0);
  close(zdt2.evaluate(point(1, 0, 0), 2)[1], 0);
  close(zdt3.evaluate(point(1, 0, 0), 2)[1], 0, 1e-14);
  // d = 30, x = 1: g = 1 + 9 * 29 / 29 = 10
  close(zdt1.evaluate(filled(30, 1), 2)[1], 10 * (1 - Math.sqrt(0.1)));
  close(zdt2.evaluate(filled(30, 1), 2)[1], 10 * (1 - 0.01));
  close(zdt3.evaluate(filled(30, 1), 2)[1], 10 * (1 - Math.sqrt(0.1) - 0.1 * Math.sin(10 * Math.PI)));
  // ZDT3 at f1 = 0.05, g = 1 + 9 * (0.5 + 0.5) / 2 = 5.5
  const f = zdt3.evaluate(point(0.05, 0.5, 0.5), 2);
  close(f[1], 5.5 * (1 - Math.sqrt(0.05 / 5.5) - (0.05 / 5.5) * Math.sin(0.5 * Math.PI)));
  assert.throws(() => zdt1.evaluate(point(0.5), 2), /at least 2 variables/);
  assert.throws(() => zdt1.evaluate(point(0.5, 0.5), 3), /2 objectives/);
});

test('ZDT fronts satisfy the front equations, are attained at x2..xd = 0 and are non-dominated', () => {
  const shapes: [typeof zdt1, (f1: number) => number][] = [
    [zdt1, (f1) => 1 - Math.sqrt(f1)],
    [zdt2, (f1) => 1 - f1 * f1],
    [zdt3, (f1) => 1 - Math.sqrt(f1) - f1 * Math.sin(10 * Math.PI * f1)],
  ];
  for (const [problem, shape] of shapes) {
    const front = rows(problem.paretoFront(2, 101), 2);
    assert.equal(front.length, 101);
    for (const f of front) {
      close(f[1], shape(f[0]), 1e-12, problem.name);
      const attained = problem.evaluate(point(f[0], 0, 0, 0), 2);
      close(attained[1], f[1], 1e-12, problem.name);
    }
    assertMutuallyNonDominated(front, problem.name);
  }
  const zdt1Front = rows(zdt1.paretoFront(2, 11), 2);
  assert.deepEqual([zdt1Front[0][0], zdt1Front[10][0]], [0, 1]);
});

test('ZDT3 front has the five published disconnected pieces and no dense curve point dominates it', () => {
  // the f1 intervals as tabulated in pymoo (pymoo.problems.multi.zdt.ZDT3), 10 significant digits
  const published = [
    [0, 0.0830015349],
    [0.182228728, 0.2577623634],
    [0.4093136748, 0.4538821041],
    [0.6183967944, 0.6525117038],
    [0.8233317983, 0.8518328654],
  ];
  assert.equal(ZDT3_REGIONS.length, 5);
  ZDT3_REGIONS.forEach(([a, b], k) => {
    close(a, published[k][0], 2e-9, `region ${k} start`);
    close(b, published[k][1], 2e-9, `region ${k} end`);
  });
  const curve: Float64Array[] = [];
  for (let i = 0; i <= 200000; i++) {
    const t = i / 200000;
    curve.push(point(t, 1 - Math.sqrt(t) - t * Math.sin(10 * Math.PI * t)));
  }
  const front = rows(zdt3.paretoFront(2, 400), 2);
  let sorted = 0;
  // a curve point dominating a front point implies a non-dominated curve point doing so
  const curveFront = sweepFront(curve);
  for (const f of front) {
    for (const c of curveFront) {
      if (c[0] < f[0] - 1e-12 && c[1] < f[1] - 1e-12) assert.fail(`curve point (${c[0]}, ${c[1]}) dominates front point (${f[0]}, ${f[1]})`);
    }
    assert.ok(
      ZDT3_REGIONS.some(([a, b]) => f[0] >= a && f[0] <= b),
      `f1 = ${f[0]} lies in a gap`,
    );
    if (sorted > 0) assert.ok(f[0] >= front[sorted - 1][0]);
    sorted++;
  }
  // every piece is sampled
  for (const [a, b] of ZDT3_REGIONS) assert.ok(front.some((f) => f[0] >= a && f[0] <= b));
});

test('ZDT maximum hypervolumes match the analytic areas and a dense staircase', () => {
  close(zdt1.maxHypervolume!(2, [1.1, 1.1])!, 1.21 - 1 / 3, 1e-14);
  close(zdt2.maxHypervolume!(2, [1.1, 1.1])!, 1.21 - 2 / 3, 1e-14);
  close(zdt1.maxHypervolume!(2, [1, 1])!, 2 / 3, 1e-14);
  for (const problem of [zdt1, zdt2, zdt3]) {
    for (const ref of [
      [1.1, 1.1],
      [2, 1.5],
    ] as [number, number][]) {
      const dense = rows(problem.paretoFront(2, 100001), 2);
      close(problem.maxHypervolume!(2, ref)!, staircaseHv(dense, ref), 1e-4, `${problem.name} at ${ref}`);
    }
  }
  assert.equal(zdt1.maxHypervolume!(2, [0.5, 1.1]), undefined);
});

test('DTLZ1 and DTLZ2 match the published definitions', () => {
  // DTLZ2, x_M = 0.5 (g = 0): f lies on the unit sphere, x1 = x2 = 0 gives (1, 0, 0)
  const onSphere = dtlz2.evaluate(point(0, 0, 0.5, 0.5, 0.5), 3);
  close(onSphere[0], 1);
  close(onSphere[1], 0);
  close(onSphere[2], 0);
  // x1 = 1/3, x2 = 1/2 with g = 0: (cos(pi/6) cos(pi/4), cos(pi/6) sin(pi/4), sin(pi/6))
  const f = dtlz2.evaluate(point(1 / 3, 1 / 2, 0.5, 0.5), 3);
  close(f[0], Math.cos(Math.PI / 6) * Math.SQRT1_2);
  close(f[1], Math.cos(Math.PI / 6) * Math.SQRT1_2);
  close(f[2], 0.5);
  // x_M = 1 with k = 3: g = 3 * 0.25, so the norm is 1.75
  const far = dtlz2.evaluate(point(0.3, 0.7, 1, 1, 1), 3);
  close(Math.hypot(...far), 1.75);
  // DTLZ1, x = 0 with n = 7, m = 3, k = 5: g = 100 (5 + 5 (0.25 - cos(-10 pi))) = 125, f = (0, 0, 0.5 * 126)
  assert.deepEqual(Array.from(dtlz1.evaluate(filled(7, 0), 3)), [0, 0, 63]);
  // x_M = 0.5: g = 100 (k - k) = 0, so f = 0.5 (x1 x2, x1 (1 - x2), 1 - x1)
  const linear = dtlz1.evaluate(point(0.2, 0.6, 0.5, 0.5, 0.5), 3);
  close(linear[0], 0.5 * 0.2 * 0.6);
  close(linear[1], 0.5 * 0.2 * 0.4);
  close(linear[2], 0.5 * 0.8);
  assert.throws(() => dtlz2.evaluate(point(0.5, 0.5), 3), /at least 3 variables/);
  assert.equal(dtlz2.minDimension(4), 4);
});

test('DTLZ fronts are on the simplex or sphere, attained at x_M = 0.5, and non-dominated', () => {
  const random = new Random(11);
  for (const m of [2, 3, 5]) {
    const linear = rows(dtlz1.paretoFront(m, 60), m);
    const sphere = rows(dtlz2.paretoFront(m, 60), m);
    assert.equal(linear.length, 60);
    for (const f of linear) {
      close(
        f.reduce((s, v) => s + v, 0),
        0.5,
        1e-12,
        'DTLZ1 sum',
      );
      assert.ok(f.every((v) => v >= 0));
    }
    for (const f of sphere) {
      close(
        f.reduce((s, v) => s + v * v, 0),
        1,
        1e-12,
        'DTLZ2 sum of squares',
      );
      assert.ok(f.every((v) => v >= 0));
    }
    assertMutuallyNonDominated(linear, `dtlz1 m=${m}`);
    assertMutuallyNonDominated(sphere, `dtlz2 m=${m}`);
    // any x with x_M = 0.5 lands on the front
    for (let trial = 0; trial < 20; trial++) {
      const x = new Float64Array(m + 4).fill(0.5);
      for (let i = 0; i < m - 1; i++) x[i] = random.uniform();
      close(
        dtlz1.evaluate(x, m).reduce((s, v) => s + v, 0),
        0.5,
        1e-9,
      );
      close(
        dtlz2.evaluate(x, m).reduce((s, v) => s + v * v, 0),
        1,
        1e-12,
      );
    }
  }
});

test('DTLZ maximum hypervolumes: closed forms and a Monte Carlo check', () => {
  close(dtlz2.maxHypervolume!(2, [1.1, 1.1])!, 0.42460183660255, 1e-13);
  close(dtlz2.maxHypervolume!(3, [1.1, 1.1, 1.1])!, 1.331 - Math.PI / 6, 1e-13);
  // the unit 4-ball has volume pi^2 / 2, of which 1/16 lies in the positive orthant
  close(dtlz2.maxHypervolume!(4, [1, 1, 1, 1])!, 1 - Math.PI ** 2 / 32, 1e-13);
  close(dtlz1.maxHypervolume!(2, [1, 1])!, 1 - 0.125, 1e-14);
  close(dtlz1.maxHypervolume!(3, [1, 1, 1])!, 1 - 0.125 / 6, 1e-14);
  assert.equal(dtlz2.maxHypervolume!(2, [0.9, 1.1]), undefined);
  // estimate the DTLZ2 m = 3 volume dominated by a dense front sample
  const front = rows(dtlz2.paretoFront(3, 3000), 3);
  const random = new Random(5);
  const samples = 20000;
  let hits = 0;
  for (let s = 0; s < samples; s++) {
    const p = [1.1 * random.uniform(), 1.1 * random.uniform(), 1.1 * random.uniform()];
    if (front.some((f) => f[0] <= p[0] && f[1] <= p[1] && f[2] <= p[2])) hits++;
  }
  close((hits / samples) * 1.331, dtlz2.maxHypervolume!(3, [1.1, 1.1, 1.1])!, 0.03, 'Monte Carlo');
});

test('Branin-Currin matches BoTorch at known points', () => {
  // Branin's three global minimizers, value 10 / (8 pi) = 0.397887...
  for (const [u1, u2] of [
    [-Math.PI, 12.275],
    [Math.PI, 2.275],
    [3 * Math.PI, 2.475],
  ]) {
    const f = braninCurrin.evaluate(point((u1 + 5) / 15, u2 / 15), 2);
    close(f[0], 0.39788735772973816, 1e-12);
  }
  close(branin(-5, 15), (15 - (5.1 / (4 * Math.PI ** 2)) * 25 - 25 / Math.PI - 6) ** 2 + 10 * (1 - 1 / (8 * Math.PI)) * Math.cos(-5) + 10);
  // Currin at x2 = 1: (1 - e^-0.5) * numer/denom; at x2 = 0 the factor is 1
  close(currin(0, 1), 3 * (1 - Math.exp(-0.5)));
  close(currin(1, 1), (6352 / 624) * (1 - Math.exp(-0.5)));
  close(currin(0.5, 0), 1868.5 / 159.5);
  assert.throws(() => braninCurrin.evaluate(point(0.5, 0.5, 0.5), 2), /exactly 2 variables/);
});

test('Branin-Currin front is non-dominated by a dense grid and its hypervolume brackets the numerical estimates', () => {
  const front = rows(braninCurrin.paretoFront(2, 300), 2);
  assert.equal(front.length, 300);
  assertMutuallyNonDominated(front, 'branin-currin');
  close(front[0][0], 0.39788735772973816, 1e-9, 'front starts at the Branin minimum');
  close(front[299][1], 3 * (1 - Math.exp(-0.5)), 1e-9, 'front ends at the Currin minimum');
  const n = 513;
  const grid: Float64Array[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) grid.push(braninCurrin.evaluate(point(i / (n - 1), j / (n - 1)), 2));
  }
  // a grid point dominating a front point implies a non-dominated grid point doing so
  const gridFront = sweepFront(grid);
  for (const f of front) {
    for (const g of gridFront) {
      if (g[0] < f[0] - 1e-9 && g[1] < f[1] - 1e-9) assert.fail(`grid point (${g[0]}, ${g[1]}) dominates (${f[0]}, ${f[1]})`);
    }
  }
  const hv = braninCurrin.maxHypervolume!(2, [18, 6])!;
  // BoTorch's constant is the hypervolume of an NSGA-II population, so a lower bound
  assert.ok(hv >= 59.36011874867746, `${hv} is below BoTorch's estimate`);
  // the grid's non-dominated points give a lower bound, their trapezoid an estimate that converges from below
  const stair = staircaseHv(gridFront, [18, 6]);
  let trapezoid = 0;
  for (let i = 0; i + 1 < gridFront.length; i++) {
    trapezoid += (gridFront[i + 1][0] - gridFront[i][0]) * (6 - (gridFront[i][1] + gridFront[i + 1][1]) / 2);
  }
  trapezoid += (18 - gridFront[gridFront.length - 1][0]) * (6 - gridFront[gridFront.length - 1][1]);
  assert.ok(hv > stair && hv > trapezoid, `${hv} is not above the grid estimates ${stair}, ${trapezoid}`);
  assert.ok(hv - trapezoid < 0.05, `${hv} is too far above the grid trapezoid ${trapezoid}`);
});

test('BNH matches its definition; its front satisfies both constraints and no feasible point dominates it', () => {
  assert.deepEqual(Array.from(bnh.evaluate(point(0, 0), 2)), [0, 50]);
  assert.deepEqual(Array.from(bnh.evaluate(point(1, 1), 2)), [136, 4]);
  assert.deepEqual(Array.from(bnh.evaluate(point(0.5, 0.5), 2)), [4 * 6.25 + 4 * 2.25, 6.25 + 12.25]);
  // MDL's ^ is JavaScript's ** (the expressions use it only on parenthesised bases)
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the check runs the problem's own constraint text as JavaScript
  const constraints = bnh.constraints!.map((c) => new Function('x1', 'x2', `return ${c.replaceAll('^', '**')};`) as (x1: number, x2: number) => boolean);
  assert.equal(constraints.length, 2);
  assert.ok(!constraints[0](0, 3), '(0, 3) lies outside the first circle');
  assert.ok(!constraints[1](7, -1), '(7, -1) lies inside the second circle');
  assert.ok(constraints[0](5, 3) && constraints[1](5, 3));
  const front = rows(bnh.paretoFront(2, 200), 2);
  assertMutuallyNonDominated(front, 'bnh');
  for (const f of front) {
    // invert f1 along the Pareto set to recover x and check the constraints there
    const [x1, x2] = f[0] <= 72 ? [Math.sqrt(f[0] / 8), Math.sqrt(f[0] / 8)] : [Math.sqrt((f[0] - 36) / 4), 3];
    close(f[1], (x1 - 5) ** 2 + (x2 - 5) ** 2, 1e-9, 'front equation');
    assert.ok(constraints[0](x1, x2) && constraints[1](x1, x2), `(${x1}, ${x2}) violates a constraint`);
  }
  const feasible: Float64Array[] = [];
  for (let i = 0; i <= 250; i++) {
    for (let j = 0; j <= 150; j++) {
      const [x1, x2] = [(5 * i) / 250, (3 * j) / 150];
      if (constraints[0](x1, x2) && constraints[1](x1, x2)) feasible.push(bnh.evaluate(point(x1 / 5, x2 / 3), 2));
    }
  }
  const feasibleFront = sweepFront(feasible);
  for (const f of front) {
    for (const g of feasibleFront) {
      if (g[0] < f[0] - 1e-9 && g[1] < f[1] - 1e-9) assert.fail(`feasible (${g[0]}, ${g[1]}) dominates (${f[0]}, ${f[1]})`);
    }
  }
  const hv = bnh.maxHypervolume!(2, [140, 50])!;
  // the box minus the area under the front up to f1 = 136 and under f2 = 4 from 136 to 140
  close(hv, 7000 - (1368 + 992 / 3) - 4 * 4, 1e-9);
  close(hv, staircaseHv(rows(bnh.paretoFront(2, 100000), 2), [140, 50]), 0.05, 'dense staircase');
  assert.ok(staircaseHv(feasible, [140, 50]) < hv);
  // a reference inside the front's range falls back to integrating the sampled front
  const inner = bnh.maxHypervolume!(2, [100, 30])!;
  close(inner, staircaseHv(rows(bnh.paretoFront(2, 100000), 2), [100, 30]), 0.05, 'inner reference');
});

type Values = Record<string, number | string>;

/** Random in-range inputs for a simulator, from its own parameter list. */
function randomInputs(simulator: typeof waterMembrane, random: Random): Values {
  const values: Values = {};
  for (const p of simulator.parameters) {
    if (p.type === 'categorical') values[p.name] = p.values![random.int(p.values!.length)];
    else values[p.name] = p.bounds![0] + random.uniform() * (p.bounds![1] - p.bounds![0]);
  }
  return values;
}

test('domain simulators are deterministic, finite over random inputs, and reject bad inputs with the parameter named', () => {
  const random = new Random(3);
  for (const simulator of [waterMembrane, batteryCathode]) {
    for (let i = 0; i < 2000; i++) {
      const values = randomInputs(simulator, random);
      const out = simulator.evaluate(values);
      assert.deepEqual(Object.keys(out).sort(), simulator.objectives.map((o) => o.name).sort());
      for (const v of Object.values(out)) if (!Number.isFinite(v)) assert.fail(`${simulator.name} gave ${v} at ${JSON.stringify(values)}`);
      assert.deepEqual(simulator.evaluate({ ...values }), out);
    }
  }
  const membrane: Values = { amine_monomer: 'MPD', monomer_concentration: 2, cure_temperature_c: 80, active_layer_thickness_nm: 100, filler_loading: 0.1 };
  assert.throws(() => waterMembrane.evaluate({ ...membrane, active_layer_thickness_nm: 500 }), /active_layer_thickness_nm = 500 is outside/);
  assert.throws(() => waterMembrane.evaluate({ ...membrane, amine_monomer: 'PEI' }), /amine_monomer = "PEI" is not one of/);
  const { filler_loading: _, ...missing } = membrane;
  assert.throws(() => waterMembrane.evaluate(missing), /needs parameter 'filler_loading'/);
  assert.throws(
    () => batteryCathode.evaluate({ ni_frac: 0, mn_frac: 0, co_frac: 0, calcination_temperature_c: 800, particle_size_um: 5 }),
    /at least one share must be positive/,
  );
});

test('water-membrane follows the documented trends', () => {
  const base: Values = { amine_monomer: 'MPD', monomer_concentration: 2, cure_temperature_c: 80, active_layer_thickness_nm: 100, filler_loading: 0.1 };
  const at = (change: Values) => waterMembrane.evaluate({ ...base, ...change });
  for (const monomer of ['MPD', 'PIP']) {
    // thinner selective layer: higher permeance, lower rejection (defects, polarization)
    for (let l = 30; l < 300; l += 10) {
      const thin = at({ amine_monomer: monomer, active_layer_thickness_nm: l });
      const thick = at({ amine_monomer: monomer, active_layer_thickness_nm: l + 10 });
      assert.ok(thin.water_permeance > thick.water_permeance && thin.salt_rejection < thick.salt_rejection, `${monomer} at ${l} nm`);
    }
    // more amine: denser layer, lower permeance, higher rejection
    for (let c = 0.5; c < 4; c += 0.25) {
      const lean = at({ amine_monomer: monomer, monomer_concentration: c });
      const rich = at({ amine_monomer: monomer, monomer_concentration: c + 0.25 });
      assert.ok(lean.water_permeance > rich.water_permeance && lean.salt_rejection < rich.salt_rejection, `${monomer} at ${c} wt%`);
    }
    // filler opens water channels
    for (let i = 0; i < 8; i++) {
      assert.ok(
        at({ amine_monomer: monomer, filler_loading: (i + 1) * 0.05 }).water_permeance >
          at({ amine_monomer: monomer, filler_loading: i * 0.05 }).water_permeance,
      );
    }
  }
  // piperazine (NF) layers pass more water and less salt than MPD (RO) layers
  assert.ok(at({ amine_monomer: 'PIP' }).water_permeance > at({}).water_permeance);
  assert.ok(at({ amine_monomer: 'PIP' }).salt_rejection < at({}).salt_rejection);
  // rejection peaks at an interior cure temperature and an interior filler loading
  const cure = [40, 60, 80, 100, 120].map((t) => at({ cure_temperature_c: t }).salt_rejection);
  assert.ok(cure[2] > cure[0] && cure[2] > cure[4], `cure sweep ${cure}`);
  const filler = [0, 0.1, 0.4].map((f) => at({ filler_loading: f }).salt_rejection);
  assert.ok(filler[1] > filler[0] && filler[1] > filler[2], `filler sweep ${filler}`);
  // the MPD base case sits in the range reported for commercial brackish-water RO membranes
  const reference = at({});
  assert.ok(reference.water_permeance > 1 && reference.water_permeance < 5 && reference.salt_rejection > 98.5);
});

test('battery-cathode follows the documented trends', () => {
  const at = (ni: number, mn: number, co: number, t: number, d: number) =>
    batteryCathode.evaluate({ ni_frac: ni, mn_frac: mn, co_frac: co, calcination_temperature_c: t, particle_size_um: d });
  const optimum = (ni: number) => 990 - 290 * ni;
  for (const d of [2, 8, 20]) {
    for (const co of [0, 0.1, 0.2]) {
      for (let ni = 0.3; ni + co <= 0.85 + 1e-9 && ni <= 0.84; ni += 0.02) {
        const mn = 1 - ni - co;
        const step = Math.min(0.01, mn);
        if (step <= 0) continue;
        // Ni for Mn, calcined at or below the richer composition's optimum: more energy, shorter life
        for (const dt of [0, -50, -150]) {
          const t = Math.max(650, optimum(ni + step) + dt);
          const lean = at(ni, mn, co, t, d);
          const rich = at(ni + step, mn - step, co, t, d);
          assert.ok(rich.specific_energy > lean.specific_energy, `energy at ni=${ni}, co=${co}, T=${t}, d=${d}`);
          assert.ok(rich.cycle_life < lean.cycle_life, `cycle life at ni=${ni}, co=${co}, T=${t}, d=${d}`);
          // Co for Mn: costlier; Mn for Co at Ni <= 0.8: longer life
          const cobalt = at(ni, mn - step, co + step, t, d);
          assert.ok(cobalt.material_cost > lean.material_cost, `cost at ni=${ni}, co=${co}`);
          if (ni <= 0.8) assert.ok(cobalt.cycle_life < lean.cycle_life, `Mn stabilisation at ni=${ni}, co=${co}, T=${t}`);
        }
      }
    }
  }
  // unnormalised shares are divided by their sum
  assert.deepEqual(at(0.66, 0.22, 0.22, 800, 10), at(0.6, 0.2, 0.2, 800, 10));
  // calcination sweet spot: NMC622 energy and life peak inside [650, 1000] °C, Ni-rich peaks lower
  const sweep = (ni: number, mn: number, co: number) => {
    let best = { energy: -Infinity, t: 0 };
    for (let t = 650; t <= 1000; t += 5) {
      const e = at(ni, mn, co, t, 10).specific_energy;
      if (e > best.energy) best = { energy: e, t };
    }
    return best.t;
  };
  const t622 = sweep(0.6, 0.2, 0.2);
  const t811 = sweep(0.8, 0.1, 0.1);
  assert.ok(t622 > 700 && t622 < 950 && t811 < t622, `optima ${t622}, ${t811}`);
  // particle size: NMC811 cycle life peaks at an interior size
  const life = [1, 6, 30].map((d) => at(0.8, 0.1, 0.1, optimum(0.8), d).cycle_life);
  assert.ok(life[1] > life[0] && life[1] > life[2], `particle sweep ${life}`);
});
