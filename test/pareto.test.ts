import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paretoIndices, paretoMask } from '../src/engine/pareto.js';
import { Random } from '../src/engine/random.js';
import { makeCloud, makeFront } from './support/fronts.js';

/** O(n^2 m) definition: dominated when another row is <= everywhere and < somewhere. */
function bruteMask(points: Float64Array, n: number, m: number): Uint8Array {
  const mask = new Uint8Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n && mask[i]; k++) {
      let le = true;
      let lt = false;
      for (let j = 0; j < m; j++) {
        const a = points[k * m + j];
        const b = points[i * m + j];
        if (a > b) le = false;
        if (a < b) lt = true;
      }
      if (le && lt) mask[i] = 0;
    }
  }
  return mask;
}

/** Integer coordinates in [0, levels): many ties and exact duplicates. */
function gridCloud(n: number, m: number, levels: number, seed: number): Float64Array {
  const rng = new Random(seed);
  return Float64Array.from({ length: n * m }, () => rng.int(levels));
}

test('hand-checked masks', () => {
  assert.deepEqual([...paretoMask(Float64Array.from([3, 1, 2, 1]), 4, 1)], [0, 1, 0, 1]);
  // (1,1) dominates (2,2) and (1,2); (0,3) and (3,0) are incomparable with it.
  const p2 = Float64Array.from([2, 2, 1, 1, 1, 2, 0, 3, 3, 0]);
  assert.deepEqual([...paretoMask(p2, 5, 2)], [0, 1, 0, 1, 1]);
  // Identical rows are all kept; rows equal in some objectives but worse in one are dropped.
  const p3 = Float64Array.from([1, 1, 1, 1, 1, 1, 1, 1, 2, 0, 5, 5]);
  assert.deepEqual([...paretoMask(p3, 4, 3)], [1, 1, 0, 1]);
  const p4 = Float64Array.from([0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0]);
  assert.deepEqual([...paretoMask(p4, 3, 4)], [1, 0, 1]);
  assert.deepEqual([...paretoIndices(p2, 5, 2)], [1, 3, 4]);
  assert.equal(paretoMask(new Float64Array(0), 0, 3).length, 0);
});

test('agrees with the brute-force definition on clouds with ties and duplicates, m = 1..7', () => {
  for (let m = 1; m <= 7; m++) {
    for (let s = 0; s < 4; s++) {
      const n = 300;
      const tied = gridCloud(n, m, 3 + s, 10 * m + s);
      assert.deepEqual(paretoMask(tied, n, m), bruteMask(tied, n, m), `grid m=${m} seed=${s}`);
      const smooth = makeCloud(n, m, 20 * m + s);
      assert.deepEqual(paretoMask(smooth, n, m), bruteMask(smooth, n, m), `cloud m=${m} seed=${s}`);
    }
  }
});

test('keeps every point of a non-dominated front and handles infinities', () => {
  for (const m of [2, 3, 5]) {
    const front = makeFront('spherical', 200, m, m);
    assert.equal(paretoIndices(front, 200, m).length, 200);
  }
  const inf = Float64Array.from([Infinity, 0, 0, 0, 0, Infinity, 0, 0, 1, 1, 1, 1, -Infinity, 2, 2, 2]);
  assert.deepEqual(paretoMask(inf, 4, 4), bruteMask(inf, 4, 4));
  assert.deepEqual(paretoMask(inf, 8, 2), bruteMask(inf, 8, 2));
});

test('indices are the ascending positions of the mask', () => {
  const cloud = gridCloud(500, 3, 6, 5);
  const mask = paretoMask(cloud, 500, 3);
  const expected = [...mask].flatMap((v, i) => (v ? [i] : []));
  assert.deepEqual([...paretoIndices(cloud, 500, 3)], expected);
});

test('tens of thousands of points are filtered quickly', () => {
  for (const m of [2, 3, 4]) {
    const n = 30000;
    const cloud = makeCloud(n, m, 3 * m);
    const start = performance.now();
    const mask = paretoMask(cloud, n, m);
    const seconds = (performance.now() - start) / 1000;
    assert.ok(seconds < 5, `m=${m}: ${seconds} s`);
    // Spot-check against the definition for a sample of rows.
    for (let i = 0; i < n; i += 1499) {
      let dominated = false;
      for (let k = 0; k < n && !dominated; k++) {
        let le = true;
        let lt = false;
        for (let j = 0; j < m; j++) {
          if (cloud[k * m + j] > cloud[i * m + j]) le = false;
          if (cloud[k * m + j] < cloud[i * m + j]) lt = true;
        }
        dominated = le && lt;
      }
      assert.equal(mask[i], dominated ? 0 : 1, `m=${m} row ${i}`);
    }
  }
});

test('a front of ten thousand mutually non-dominated points is filtered quickly', () => {
  for (const m of [4, 6]) {
    const n = 10000;
    const front = makeFront('spherical', n, m, 9 * m);
    // One dominated copy of the first point, pushed outwards.
    const points = Float64Array.from([...front, ...front.subarray(0, m).map((v) => v + 0.01)]);
    const start = performance.now();
    const mask = paretoMask(points, n + 1, m);
    const seconds = (performance.now() - start) / 1000;
    assert.ok(seconds < 5, `m=${m}: ${seconds} s`);
    assert.equal(
      mask.subarray(0, n).reduce((a, b) => a + b, 0),
      n,
    );
    assert.equal(mask[n], 0);
  }
});

test('rejects malformed input', () => {
  assert.throws(() => paretoMask(Float64Array.from([1, NaN]), 1, 2), /point 0 objective 1 is NaN/);
  assert.throws(() => paretoMask(Float64Array.from([1, 2]), 2, 2), /fewer than 2 x 2/);
  assert.throws(() => paretoMask(Float64Array.from([1, 2]), 1, 0), /positive integer/);
});
