import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latinHypercube } from '../src/engine/design.js';
import { validateMdl } from '../src/engine/mdl/index.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';

function space(parameters: unknown[], constraints: unknown[] = []): SearchSpace {
  const result = validateMdl({
    parameters,
    constraints,
    objectives: [{ name: 'f', direction: 'maximize' }],
    optimizer: { budget: 100 },
  });
  if (!result.ok) assert.fail(JSON.stringify(result.errors));
  return new SearchSpace(result.mdl);
}

function cube(dimensions: number): SearchSpace {
  return space(Array.from({ length: dimensions }, (_, i) => ({ name: `x${i}`, type: 'continuous', bounds: [0, 1] })));
}

function rows(design: Float64Array, d: number): Float64Array[] {
  return Array.from({ length: design.length / d }, (_, i) => design.subarray(i * d, (i + 1) * d));
}

function minDistance(design: Float64Array, d: number): number {
  const points = rows(design, d);
  let best = Infinity;
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      best = Math.min(best, Math.hypot(...points[i].map((v, c) => v - points[j][c])));
    }
  }
  return best;
}

/** Textbook random Latin hypercube (McKay, Beckman & Conover 1979), independent of the code under test. */
function plainLatinHypercube(n: number, d: number, random: Random): Float64Array {
  const out = new Float64Array(n * d);
  for (let c = 0; c < d; c++) {
    const order = Array.from({ length: n }, (_, i) => i);
    random.shuffle(order);
    for (let i = 0; i < n; i++) out[i * d + c] = (order[i] + random.uniform()) / n;
  }
  return out;
}

test('continuous designs put exactly one point in each stratum of every dimension', () => {
  for (const [n, d] of [
    [17, 3],
    [40, 6],
    [2, 1],
    [1, 4],
  ]) {
    const design = latinHypercube(cube(d), n, new Random(n * 31 + d));
    assert.equal(design.length, n * d);
    for (let c = 0; c < d; c++) {
      const strata = rows(design, d)
        .map((p) => Math.floor(p[c] * n))
        .sort((a, b) => a - b);
      assert.deepEqual(
        strata,
        Array.from({ length: n }, (_, i) => i),
        `dimension ${c}`,
      );
    }
  }
});

test('maximin optimisation beats a plain random Latin hypercube on average', () => {
  const n = 20;
  const d = 3;
  let ours = 0;
  let plain = 0;
  for (let seed = 0; seed < 10; seed++) {
    ours += minDistance(latinHypercube(cube(d), n, new Random(seed)), d);
    plain += minDistance(plainLatinHypercube(n, d, new Random(1000 + seed)), d);
  }
  assert.ok(ours > 1.5 * plain, `mean min distance ${ours / 10} vs plain ${plain / 10}`);
});

test('the same seed gives the same design; another seed another one', () => {
  const s = space([
    { name: 'x', type: 'continuous', bounds: [0, 5] },
    { name: 'n', type: 'integer', bounds: [1, 100], scale: 'log' },
    { name: 'c', type: 'categorical', values: ['a', 'b', 'c'] },
  ]);
  const a = latinHypercube(s, 15, new Random(42));
  assert.deepEqual(latinHypercube(s, 15, new Random(42)), a);
  assert.notDeepEqual(latinHypercube(s, 15, new Random(43)), a);
});

test('mixed designs are snapped, balanced over categories and free of duplicates', () => {
  const s = space([
    { name: 'x', type: 'continuous', bounds: [0, 5] },
    { name: 'n', type: 'integer', bounds: [0, 4] },
    { name: 'c', type: 'categorical', values: ['a', 'b', 'c'] },
  ]);
  const design = latinHypercube(s, 9, new Random(5));
  const points = rows(design, s.dimension);
  for (const p of points) assert.deepEqual(s.snap(p), p);
  const counts = new Map<string, number>();
  for (const p of points) {
    const c = s.decode(p).c as string;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  assert.deepEqual([...counts.values()], [3, 3, 3], 'nine points over three values: three each');
  assert.equal(new Set(points.map((p) => p.join(','))).size, 9);
});

test('designs respect constraints: a composition equality plus a nonlinear rule', () => {
  const s = space(
    [
      { name: 'li_frac', type: 'continuous', bounds: [0, 1] },
      { name: 'ni_frac', type: 'continuous', bounds: [0.3, 0.9] },
      { name: 'co_frac', type: 'continuous', bounds: [0, 1] },
      { name: 'temperature', type: 'continuous', bounds: [600, 1000] },
      { name: 'dopant', type: 'categorical', values: ['Al', 'Mg', 'Ti'] },
    ],
    [{ expression: 'li_frac + ni_frac + co_frac == 1' }, { expression: 'temperature * co_frac <= 250' }],
  );
  const started = performance.now();
  const design = latinHypercube(s, 50, new Random(3));
  assert.ok(performance.now() - started < 5000, 'a 50-point constrained design is quick');
  const points = rows(design, s.dimension);
  for (const p of points) {
    const v = s.decode(p);
    const sum = (v.li_frac as number) + (v.ni_frac as number) + (v.co_frac as number);
    assert.ok(Math.abs(sum - 1) <= 1e-6, `composition sums to ${sum}`);
    assert.ok((v.temperature as number) * (v.co_frac as number) <= 250);
    assert.equal(s.violation(v), 0);
  }
  assert.equal(new Set(points.map((p) => p.join(','))).size, 50);
});

test('small finite spaces repeat points only when there are fewer feasible points than requested', () => {
  const s = space(
    [
      { name: 'a', type: 'integer', bounds: [0, 2] },
      { name: 'b', type: 'categorical', values: ['x', 'y'] },
    ],
    [{ expression: 'a <= 1' }],
  );
  const key = (p: Float64Array) => JSON.stringify(s.decode(p));
  // Feasible: a in {0, 1} times b in {x, y}: four points.
  const three = rows(latinHypercube(s, 3, new Random(1)), s.dimension).map(key);
  assert.equal(new Set(three).size, 3);
  const eight = rows(latinHypercube(s, 8, new Random(1)), s.dimension).map(key);
  const counts = new Map<string, number>();
  for (const k of eight) counts.set(k, (counts.get(k) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort(), ['{"a":0,"b":"x"}', '{"a":0,"b":"y"}', '{"a":1,"b":"x"}', '{"a":1,"b":"y"}']);
  assert.deepEqual([...counts.values()], [2, 2, 2, 2]);
});

test('an empty feasible set and a bad count are clear errors', () => {
  const impossible = space(
    [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    [{ expression: 'x * y >= 2' }],
  );
  assert.throws(() => latinHypercube(impossible, 5, new Random(1)), /feasible set looks empty/);
  const finiteImpossible = space([{ name: 'n', type: 'integer', bounds: [0, 3] }], [{ expression: 'n >= 5' }]);
  assert.throws(() => latinHypercube(finiteImpossible, 2, new Random(1)), /feasible set looks empty/);
  assert.throws(() => latinHypercube(cube(2), 2.5, new Random(1)), /whole number/);
  assert.throws(() => latinHypercube(cube(2), -1, new Random(1)), /whole number/);
  assert.equal(latinHypercube(cube(2), 0, new Random(1)).length, 0);
});
