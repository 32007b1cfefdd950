import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hypervolume, hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { hypervolumeImprovementsReference, hypervolumeReference } from '../reference/hypervolume.js';
import { Random } from '../src/engine/random.js';
import { bruteHypervolumeGrid, bruteHypervolumeSlicing, bruteHypervolumeSubsets } from './support/brute-hypervolume.js';
import { FRONT_SHAPES, makeCloud, makeFront, toRows } from './support/fronts.js';

const pts = (rows: number[][]): Float64Array => Float64Array.from(rows.flat());
const hv = (rows: number[][], ref: number[]): number => hypervolume(pts(rows), rows.length, ref.length, ref);

function assertClose(actual: number, expected: number, what: string, rel = 1e-12): void {
  const scale = Math.max(Math.abs(expected), 1e-300);
  assert.ok(
    Math.abs(actual - expected) <= rel * scale,
    `${what}: got ${actual}, expected ${expected} (relative error ${Math.abs(actual - expected) / scale})`,
  );
}

/** Both implementations, so every brute-force comparison checks the kernel and the baseline. */
const implementations = [
  ['wasm', hypervolume],
  ['reference', hypervolumeReference],
] as const;

test('hand-computed volumes in 1, 2 and 3 objectives', () => {
  for (const [name, f] of implementations) {
    const h = (rows: number[][], ref: number[]) => f(pts(rows), rows.length, ref.length, ref);
    assert.equal(h([[3], [1], [2]], [5]), 4, name);
    assert.equal(h([[0, 0]], [1, 1]), 1, name);
    // Two unit-by-two boxes overlapping in one unit square.
    assert.equal(h([[1, 2], [2, 1]], [3, 3]), 3, name);
    // L-shape: 2 + 2 - 1.
    assert.equal(h([[0, 1], [1, 0]], [2, 2]), 3, name);
    // Staircase of three points: columns of heights 3, 2, 1 under ref (3, 3).
    assert.equal(h([[0, 2], [1, 1], [2, 0]], [3, 3]), 6, name);
    assert.equal(h([[0, 0, 0]], [1, 1, 1]), 1, name);
    // 3-D L-shape: 4 + 2 - 1.
    assert.equal(h([[0, 0, 1], [1, 1, 0]], [2, 2, 2]), 5, name);
    // Three boxes 2x1x1 around a corner: 3*2 - 3*1 + 1.
    assert.equal(h([[0, 1, 1], [1, 0, 1], [1, 1, 0]], [2, 2, 2]), 4, name);
    // A 2x2x2 cube missing its upper-front-right unit cube, as 3 points plus one dominated.
    assert.equal(h([[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1]], [2, 2, 2]), 7, name);
  }
});

test('d points with one zero each (others 1, ref 2) have hypervolume d + 1 in every dimension', () => {
  for (let d = 2; d <= 10; d++) {
    const rows = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 0 : 1)));
    const ref = new Array<number>(d).fill(2);
    for (const [name, f] of implementations) {
      assertClose(f(pts(rows), d, d, ref), d + 1, `${name} d=${d}`);
    }
  }
});

test('matches inclusion-exclusion on random clouds with dominated points, d = 2..6', () => {
  for (let d = 2; d <= 6; d++) {
    for (let s = 0; s < 6; s++) {
      const n = 8;
      const cloud = makeCloud(n, d, 100 * d + s);
      const ref = new Array<number>(d).fill(0.95);
      const expected = bruteHypervolumeSubsets(toRows(cloud, n, d), ref);
      for (const [name, f] of implementations) assertClose(f(cloud, n, d, ref), expected, `${name} d=${d} seed=${s}`);
    }
  }
});

test('matches the grid decomposition on random non-dominated fronts, d = 2..8', () => {
  const cases: [number, number][] = [[2, 80], [3, 30], [4, 14], [5, 9], [6, 7], [7, 5], [8, 4]];
  for (const [d, n] of cases) {
    for (const shape of FRONT_SHAPES) {
      const front = makeFront(shape, n, d, 31 * d + n);
      const ref = new Array<number>(d).fill(1.1);
      const expected = bruteHypervolumeGrid(toRows(front, n, d), ref);
      for (const [name, f] of implementations) assertClose(f(front, n, d, ref), expected, `${name} ${shape} d=${d} n=${n}`);
    }
  }
});

test('matches the grid decomposition on integer clouds full of ties and duplicates, d = 2..6', () => {
  for (let d = 2; d <= 6; d++) {
    for (let s = 0; s < 60; s++) {
      const rng = new Random(1000 * d + s);
      const n = 2 + rng.int(d <= 4 ? 24 : 9);
      const levels = 2 + rng.int(4);
      const rows = Array.from({ length: n }, () => Array.from({ length: d }, () => rng.int(levels)));
      // Half the cases put some coordinates exactly on the reference point.
      const ref = new Array<number>(d).fill(s % 2 === 0 ? levels : levels - 1);
      const expected = bruteHypervolumeGrid(rows, ref);
      for (const [name, f] of implementations) assertClose(f(pts(rows), n, d, ref), expected, `${name} d=${d} case ${s}`);
    }
  }
});

test('matches the grid decomposition on larger integer clouds in 5 and 6 objectives (4-D limit-set pruning)', () => {
  // Few levels make many limited rows worse than p in one objective only, tied with each other.
  for (let d = 5; d <= 6; d++) {
    for (let s = 0; s < 20; s++) {
      const rng = new Random(7000 * d + s);
      const n = 10 + rng.int(30);
      const levels = 2 + rng.int(3);
      const rows = Array.from({ length: n }, () => Array.from({ length: d }, () => rng.int(levels)));
      const ref = new Array<number>(d).fill(levels);
      const expected = bruteHypervolumeGrid(rows, ref);
      for (const [name, f] of implementations) assertClose(f(pts(rows), n, d, ref), expected, `${name} d=${d} case ${s}`);
    }
  }
});

test('matches recursive slicing on larger fronts, d = 2..5', () => {
  const cases: [number, number][] = [[2, 400], [3, 120], [4, 40], [5, 14]];
  for (const [d, n] of cases) {
    for (const shape of FRONT_SHAPES) {
      const front = makeFront(shape, n, d, 7 * d + n);
      const ref = Array.from({ length: d }, (_, j) => 1 + 0.1 * j);
      const expected = bruteHypervolumeSlicing(toRows(front, n, d), ref);
      assertClose(hypervolume(front, n, d, ref), expected, `${shape} d=${d} n=${n}`);
    }
  }
});

test('WASM kernel and TypeScript reference agree on random fronts and clouds, d = 1..9', () => {
  for (let d = 1; d <= 9; d++) {
    const n = d <= 4 ? 150 : d <= 6 ? 40 : 16;
    for (const shape of FRONT_SHAPES) {
      const front = makeFront(shape, n, d, 3 * d);
      const ref = new Array<number>(d).fill(1.05);
      assertClose(hypervolume(front, n, d, ref), hypervolumeReference(front, n, d, ref), `${shape} d=${d}`);
    }
    const cloud = makeCloud(n, d, 5 * d, -0.5, 1);
    const ref = new Array<number>(d).fill(0.9);
    assertClose(hypervolume(cloud, n, d, ref), hypervolumeReference(cloud, n, d, ref), `cloud d=${d}`);
  }
});

test('invariant to point order and to adding dominated points', () => {
  const rng = new Random(11);
  for (let d = 2; d <= 7; d++) {
    const n = d <= 4 ? 60 : 20;
    const front = makeFront('spherical', n, d, 17 * d);
    const ref = new Array<number>(d).fill(1.2);
    const expected = hypervolume(front, n, d, ref);
    const rows = toRows(front, n, d);
    rng.shuffle(rows);
    assertClose(hv(rows, ref), expected, `shuffled d=${d}`);
    // Dominated points: copies of front points pushed away from the origin, plus exact duplicates.
    const extra = rows.slice(0, 10).map((r) => r.map((v) => v + 0.05 * rng.uniform()));
    const mixed = [...rows, ...extra, ...rows.slice(0, 5)];
    rng.shuffle(mixed);
    assertClose(hv(mixed, ref), expected, `with dominated d=${d}`);
  }
});

test('edge cases: empty set, points on or beyond ref, duplicates, negative coordinates', () => {
  for (const [name, f] of implementations) {
    const h = (rows: number[][], ref: number[]) => f(pts(rows), rows.length, ref.length, ref);
    assert.equal(f(new Float64Array(0), 0, 3, [1, 1, 1]), 0, name);
    assert.equal(h([[0.5, 0.5, 0.5]], [1, 1, 1]), 0.125, name);
    // On the reference point in one objective, or beyond it: no volume.
    assert.equal(h([[1, 0, 0]], [1, 1, 1]), 0, name);
    assert.equal(h([[2, 0, 0], [0, 1, 0]], [1, 1, 1]), 0, name);
    assert.equal(h([[0, 0, 0], [2, -5, -5]], [1, 1, 1]), 1, name);
    assert.equal(h([[1, 1, 1, 1, 1]], [1, 1, 1, 1, 1]), 0, name);
    // Duplicates count once.
    assert.equal(h([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], [1, 1]), 0.25, name);
    assert.equal(h([[0, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 0, 1, 1, 1]], [2, 2, 2, 2, 2]), 3, name);
    // Negative coordinates and a negative reference point.
    assert.equal(h([[-1, -1]], [1, 1]), 4, name);
    assert.equal(h([[-3, -2, -4]], [-1, -1, -1]), 6, name);
    // Points tied in one objective.
    assert.equal(h([[0, 1], [0, 0.5], [1, 0.5]], [2, 2]), 3, name);
  }
});

test('rejects malformed input with a clear error', () => {
  assert.throws(() => hypervolume(pts([[0, 0]]), 1, 2, [1]), /reference point has 1 values but there are 2 objectives/);
  assert.throws(() => hypervolume(pts([[0, NaN]]), 1, 2, [1, 1]), /row 0 objective 1 is NaN/);
  assert.throws(() => hypervolume(pts([[0, 0]]), 1, 2, [1, NaN]), /reference point value 1 is NaN/);
  assert.throws(() => hypervolume(pts([[0, 0]]), 2, 2, [1, 1]), /fewer than 2 x 2/);
  assert.throws(() => hypervolume(pts([[0, -Infinity]]), 1, 2, [1, 1]), /below \+Infinity|-Infinity/);
  // +Infinity only drops its row.
  assert.equal(hypervolume(pts([[0, Infinity], [0, 0]]), 2, 2, [1, 1]), 1);
});

test('hypervolumeImprovements equals HV(front + c) - HV(front), d = 1..6', () => {
  for (let d = 1; d <= 6; d++) {
    const n = d <= 3 ? 40 : d === 4 ? 25 : 12;
    const q = 60;
    const front = makeFront('random', n, d, 13 * d);
    // Mix in a dominated point and one outside ref, which the front filtering must ignore.
    const withJunk = Float64Array.from([...front, ...new Array<number>(d).fill(0.99), ...new Array<number>(d).fill(2)]);
    const ref = new Array<number>(d).fill(1.1);
    const candidates = makeCloud(q, d, 29 * d, -0.1, 1.2);
    // Some candidates exactly on front points (improvement 0).
    candidates.set(front.subarray(0, d), 0);
    candidates.set(front.subarray(d, 2 * d), d);
    const base = hypervolume(withJunk, n + 2, d, ref);
    const got = hypervolumeImprovements(withJunk, n + 2, d, ref, candidates, q);
    const reference = hypervolumeImprovementsReference(withJunk, n + 2, d, ref, candidates, q);
    assert.equal(got.length, q);
    for (let i = 0; i < q; i++) {
      const c = candidates.subarray(i * d, (i + 1) * d);
      const joined = Float64Array.from([...withJunk, ...c]);
      const expected = hypervolume(joined, n + 3, d, ref) - base;
      const scale = Math.max(base, 1e-300);
      assert.ok(got[i] >= 0, `d=${d} candidate ${i} negative`);
      assert.ok(Math.abs(got[i] - expected) <= 1e-12 * scale, `d=${d} candidate ${i}: ${got[i]} vs ${expected}`);
      assertClose(reference[i], got[i], `reference d=${d} candidate ${i}`);
    }
    assert.equal(got[0], 0, `d=${d}: a candidate on the front adds nothing`);
    assert.equal(got[1], 0, `d=${d}: a candidate on the front adds nothing`);
  }
});

test('hypervolumeImprovements with ties: integer fronts and candidates, d = 2..5', () => {
  for (let d = 2; d <= 5; d++) {
    const rng = new Random(50 + d);
    const n = 20;
    const q = 40;
    const front = Float64Array.from({ length: n * d }, () => rng.int(4));
    const candidates = Float64Array.from({ length: q * d }, () => rng.int(5));
    const ref = new Array<number>(d).fill(4);
    const base = hypervolume(front, n, d, ref);
    const got = hypervolumeImprovements(front, n, d, ref, candidates, q);
    for (let i = 0; i < q; i++) {
      const joined = Float64Array.from([...front, ...candidates.subarray(i * d, (i + 1) * d)]);
      const expected = bruteHypervolumeGrid(toRows(joined, n + 1, d), ref) - bruteHypervolumeGrid(toRows(front, n, d), ref);
      assert.ok(Math.abs(got[i] - expected) <= 1e-12 * base, `d=${d} candidate ${i}: ${got[i]} vs ${expected}`);
    }
  }
});

test('hypervolumeImprovements against an empty front is the box volume', () => {
  for (const d of [1, 2, 3, 4, 5]) {
    const ref = new Array<number>(d).fill(1);
    const c = new Array<number>(d).fill(0.5);
    const got = hypervolumeImprovements(new Float64Array(0), 0, d, ref, Float64Array.from([...c, ...ref]), 2);
    assertClose(got[0], 0.5 ** d, `d=${d}`);
    assert.equal(got[1], 0, `d=${d}: a candidate on ref adds nothing`);
  }
});

test('larger fronts stay consistent (kernel vs reference, improvements vs differences)', () => {
  const cases: [number, number][] = [[3, 2000], [4, 400], [5, 120]];
  for (const [d, n] of cases) {
    const front = makeFront('linear', n, d, d);
    const ref = new Array<number>(d).fill(1.01);
    const base = hypervolume(front, n, d, ref);
    assertClose(base, hypervolumeReference(front, n, d, ref), `d=${d} n=${n}`);
    const c = makeCloud(3, d, 77, 0.05, 0.4);
    const gains = hypervolumeImprovements(front, n, d, ref, c, 3);
    for (let i = 0; i < 3; i++) {
      const joined = Float64Array.from([...front, ...c.subarray(i * d, (i + 1) * d)]);
      const expected = hypervolume(joined, n + 1, d, ref) - base;
      assert.ok(Math.abs(gains[i] - expected) <= 1e-12 * base, `d=${d} candidate ${i}: ${gains[i]} vs ${expected}`);
    }
  }
});
