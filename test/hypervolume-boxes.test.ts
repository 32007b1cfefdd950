import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hypervolume, hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { NondominatedBoxes } from '../src/engine/hypervolume-boxes.js';
import { Random } from '../src/engine/random.js';
import { bruteHypervolumeSlicing } from './support/brute-hypervolume.js';
import { makeCloud, makeFront, toRows } from './support/fronts.js';

const pts = (rows: number[][]): Float64Array => Float64Array.from(rows.flat());

function assertClose(actual: number, expected: number, what: string, tolerance: number): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: got ${actual}, expected ${expected} (difference ${Math.abs(actual - expected)})`);
}

/** HV(front ∪ {y}) − HV(front) by recursive slicing (test/support), sharing nothing with the boxes; `base` is HV(front). */
function bruteImprovement(rows: number[][], ref: number[], y: number[], base: number): number {
  return bruteHypervolumeSlicing([...rows, y], ref) - base;
}

/** Σ over the boxes of their volume inside [floor, ∞): the boxes' volume above a finite lower bound. */
function volumeAbove(boxes: NondominatedBoxes, floor: number[]): number {
  const { count, lower, upper } = boxes.boxes();
  const m = floor.length;
  let total = 0;
  for (let b = 0; b < count; b++) {
    let v = 1;
    for (let j = 0; j < m; j++) v *= Math.max(0, upper[b * m + j] - Math.max(lower[b * m + j], floor[j]));
    total += v;
  }
  return total;
}

/** A random front with what real data holds: dominated rows, a repeated row, rows on or beyond ref, a row sharing coordinates with another. */
function messyFront(m: number, n: number, seed: number): number[][] {
  const rng = new Random(seed);
  const rows = toRows(makeCloud(n, m, seed, 0, 1), n, m);
  rows.push([...rows[0]]);
  rows.push(rows[1].map((v, j) => (j === 0 ? 1 : v)));
  rows.push(rows[2].map((v, j) => (j === m - 1 ? 1.3 : v)));
  rows.push(rows[3].map((v, j) => (j === 0 ? rows[4][0] : v * 0.9)));
  return rows.sort(() => rng.uniform() - 0.5);
}

/** Candidates for a front: random ones in and around the reference box, and the cases with known answers. */
function candidatesFor(rows: number[][], ref: number[], seed: number, count: number): number[][] {
  const m = ref.length;
  const candidates = toRows(makeCloud(count, m, seed, -0.2, 1.2), count, m);
  const inside = rows.filter((p) => p.every((v, j) => v < ref[j]));
  candidates.push([...inside[0]]); // a front point again: 0
  candidates.push(inside[1].map((v) => v + 0.05)); // dominated by the front: 0
  candidates.push(inside[2].map((v, j) => (j === 1 ? ref[j] + 0.1 : v * 0.5))); // beyond ref in one objective: 0
  candidates.push(ref.map(() => -0.5)); // dominates everything
  return candidates;
}

test('hand-computed boxes and improvements: a 2-objective staircase', () => {
  const boxes = new NondominatedBoxes(
    pts([
      [2, 2],
      [1, 3],
      [3, 1],
    ]),
    3,
    2,
    [4, 4],
  );
  const { count, lower, upper } = boxes.boxes();
  const listed = Array.from({ length: count }, (_, b) => [lower[2 * b], lower[2 * b + 1], upper[2 * b], upper[2 * b + 1]]).sort((a, b) => a[2] - b[2]);
  // one vertical strip per step: (l1, u1) x (-inf, u2)
  assert.deepEqual(listed, [
    [-Infinity, -Infinity, 1, 4],
    [1, -Infinity, 2, 3],
    [2, -Infinity, 3, 2],
    [3, -Infinity, 4, 1],
  ]);
  assert.equal(boxes.improvement([0, 0]), 16 - 6);
  // [1.5, 4]^2 holds 6.25, of which the front dominates 4 + 0.5 + 0.5
  assert.equal(boxes.improvement([1.5, 1.5]), 1.25);
  assert.equal(boxes.improvement([3.5, 0.5]), 0.25);
  assert.equal(boxes.improvement([2, 2]), 0, 'a front point adds nothing');
  assert.equal(boxes.improvement([2.5, 3.5]), 0, 'dominated by (2, 2)');
  assert.equal(boxes.improvement([4, 0]), 0, 'on the reference point');
});

test('hand-computed improvements in 3 objectives, in general position and with ties', () => {
  // three boxes of volume 6 overlapping pairwise in 2 and together in 1: HV = 18 - 6 + 1 = 13
  const general = new NondominatedBoxes(
    pts([
      [1, 2, 3],
      [2, 3, 1],
      [3, 1, 2],
    ]),
    3,
    3,
    [4, 4, 4],
  );
  assert.equal(general.count, 7, '2n + 1 local upper bounds');
  assert.equal(general.improvement([0, 0, 0]), 64 - 13);
  assert.equal(general.improvement([1, 1, 1]), 27 - 13);
  assert.equal(general.improvement([2, 2, 2]), 1, 'the cube [2, 3)^3 is all that [2, 4]^3 leaves open');
  assert.equal(general.improvement([2.5, 2.5, 2.5]), 0.125);
  // the unit corners: open region (−∞, 1)^3 plus the slabs where an objective is below 0 (ties in every objective)
  const ties = new NondominatedBoxes(
    pts([
      [0, 0, 1],
      [0, 1, 0],
      [1, 0, 0],
    ]),
    3,
    3,
    [2, 2, 2],
  );
  assert.equal(ties.improvement([0, 0, 0]), 8 - 7);
  assert.equal(ties.improvement([-1, -1, -1]), 27 - 7);
  assert.equal(ties.improvement([0.5, 0.5, 0.5]), 0.125);
  // z1 in [-1, 0): all of [0.5, 2]^2; z1 in [0, 1): only [0.5, 1)^2
  assert.equal(ties.improvement([-1, 0.5, 0.5]), 2.25 + 0.25);
  assert.equal(ties.improvement([0.5, 0.5, 1.5]), 0, 'dominated by (0, 0, 1)');
  assert.equal(ties.improvement([1, 1, 1]), 0);
});

test('one objective: a single box below the best value', () => {
  const boxes = new NondominatedBoxes(pts([[3], [1], [2], [7]]), 4, 1, [5]);
  assert.equal(boxes.count, 1);
  assert.deepEqual(Array.from(boxes.boxes().upper), [1]);
  assert.deepEqual(Array.from(boxes.improvements(pts([[0], [0.5], [1], [2]]), 4)), [1, 0.5, 0, 0]);
  assert.equal(new NondominatedBoxes(new Float64Array(0), 0, 1, [5]).improvement([2]), 3, 'no front: the whole segment to ref');
});

test('improvements equal brute force and the WASM kernel on messy random fronts, m = 2..6', () => {
  for (let m = 2; m <= 6; m++) {
    for (let seed = 0; seed < 3; seed++) {
      const rows = messyFront(m, m <= 4 ? 12 : 7, 100 * m + seed);
      const ref = new Array<number>(m).fill(1);
      const boxes = new NondominatedBoxes(pts(rows), rows.length, m, ref);
      const candidates = candidatesFor(rows, ref, 7 * m + seed, 30);
      const fast = boxes.improvements(pts(candidates), candidates.length);
      const kernel = hypervolumeImprovements(pts(rows), rows.length, m, ref, pts(candidates), candidates.length);
      const base = bruteHypervolumeSlicing(rows, ref);
      candidates.forEach((y, i) => {
        const what = `m=${m} seed=${seed} candidate ${i}`;
        assertClose(fast[i], bruteImprovement(rows, ref, y, base), `${what} against brute force`, 1e-12);
        assertClose(fast[i], kernel[i], `${what} against the kernel`, 1e-12);
        assert.equal(boxes.improvement(y), fast[i], `${what}: one at a time as in bulk`);
      });
      const k = candidates.length;
      assert.deepEqual([fast[k - 4], fast[k - 3], fast[k - 2]], [0, 0, 0], `m=${m}: a front point, a dominated one and one beyond ref add nothing`);
      assertClose(fast[k - 1], 1.5 ** m - hypervolume(pts(rows), rows.length, m, ref), `m=${m}: a point dominating everything`, 1e-12);
    }
  }
});

test('integer fronts full of ties and repeats: brute force, the kernel, and any insertion order agree, m = 2..6', () => {
  for (let m = 2; m <= 6; m++) {
    for (let s = 0; s < 12; s++) {
      const rng = new Random(500 * m + s);
      const levels = 2 + rng.int(4);
      const rows = Array.from({ length: 3 + rng.int(m <= 4 ? 20 : 9) }, () => Array.from({ length: m }, () => rng.int(levels)));
      const ref = new Array<number>(m).fill(s % 2 === 0 ? levels : levels - 1);
      const built = new NondominatedBoxes(pts(rows), rows.length, m, ref);
      const grown = new NondominatedBoxes(new Float64Array(0), 0, m, ref);
      for (const i of rows.map((_, i) => i).sort(() => rng.uniform() - 0.5)) grown.add(rows[i]);
      const candidates = Array.from({ length: 25 }, () => Array.from({ length: m }, () => rng.int(2 * levels + 2) / 2 - 0.5));
      const kernel = hypervolumeImprovements(pts(rows), rows.length, m, ref, pts(candidates), candidates.length);
      const base = bruteHypervolumeSlicing(rows, ref);
      candidates.forEach((y, i) => {
        const expected = bruteImprovement(rows, ref, y, base);
        const what = `m=${m} case ${s} candidate ${y.join(',')}`;
        assertClose(built.improvement(y), expected, `${what}, built at once`, 1e-12);
        assertClose(grown.improvement(y), expected, `${what}, grown by add`, 1e-12);
        assertClose(kernel[i], expected, `${what}, kernel`, 1e-12);
      });
    }
  }
});

test('a decomposition grown by add equals one built at once: the same boxes and improvements, and volume [ideal, ref] − HV', () => {
  for (let m = 2; m <= 6; m++) {
    const n = m <= 4 ? 60 : 30;
    const front = makeFront('random', n, m, 40 + m);
    const dominated = makeCloud(n, m, 50 + m, 0.5, 1.2);
    const all = new Float64Array([...front, ...dominated]);
    const ref = Array.from({ length: m }, (_, j) => 1 + 0.05 * j);
    const built = new NondominatedBoxes(all, 2 * n, m, ref);
    const grown = new NondominatedBoxes(new Float64Array(0), 0, m, ref);
    const rng = new Random(m);
    const order = Array.from({ length: 2 * n }, (_, i) => i).sort(() => rng.uniform() - 0.5);
    const accepted = order.map((i) => grown.add(all.subarray(i * m, i * m + m))).filter(Boolean).length;
    assert.ok(accepted < 2 * n, `m=${m}: dominated points are refused (${accepted} of ${2 * n} accepted)`);
    assert.equal(grown.revision, accepted, 'each accepted point is one revision');
    assert.equal(grown.count, built.count, `m=${m}: the local upper bounds of a front in general position are unique`);
    const candidates = makeCloud(300, m, 60 + m, 0.1, 1.1);
    const a = built.improvements(candidates, 300);
    const b = grown.improvements(candidates, 300);
    const kernel = hypervolumeImprovements(all, 2 * n, m, ref, candidates, 300);
    for (let i = 0; i < 300; i++) {
      assertClose(b[i], a[i], `m=${m} candidate ${i}: grown against built`, 1e-13);
      assertClose(a[i], kernel[i], `m=${m} candidate ${i}: against the kernel`, 1e-12);
    }
    const ideal = Array.from({ length: m }, (_, j) => Math.min(...toRows(all, 2 * n, m).map((p) => p[j])));
    const box = ideal.reduce((v, l, j) => v * (ref[j] - l), 1);
    const open = box - hypervolume(all, 2 * n, m, ref);
    assertClose(volumeAbove(built, ideal), open, `m=${m}: built boxes' volume above the ideal point`, 1e-12);
    assertClose(volumeAbove(grown, ideal), open, `m=${m}: grown boxes' volume above the ideal point`, 1e-12);
  }
});

test('the boxes are disjoint, lie in the open region and fill it: pairwise, by volume, and point by point', () => {
  for (let m = 2; m <= 6; m++) {
    const rows = messyFront(m, m <= 4 ? 14 : 8, 900 + m);
    const ref = new Array<number>(m).fill(1);
    const boxes = new NondominatedBoxes(pts(rows), rows.length, m, ref);
    const { count, lower, upper } = boxes.boxes();
    const inside = rows.filter((p) => p.every((v, j) => v < ref[j]));
    for (let a = 0; a < count; a++) {
      // ties (the messy front shares a coordinate between two rows) may leave a box of zero width
      for (let j = 0; j < m; j++) assert.ok(lower[a * m + j] <= upper[a * m + j], `m=${m}: box ${a} is not inverted in objective ${j}`);
      const strictlyBelow = inside.some((p) => p.every((v, j) => v < upper[a * m + j]));
      assert.ok(!strictlyBelow, `m=${m}: no front point lies strictly below box ${a}'s upper corner`);
      for (let b = a + 1; b < count; b++) {
        let overlap = true;
        for (let j = 0; j < m && overlap; j++) overlap = Math.max(lower[a * m + j], lower[b * m + j]) < Math.min(upper[a * m + j], upper[b * m + j]);
        assert.ok(!overlap, `m=${m}: boxes ${a} and ${b} overlap`);
      }
    }
    const floor = new Array<number>(m).fill(-0.25);
    const open = 1.25 ** m - bruteHypervolumeSlicing(rows, ref);
    assertClose(volumeAbove(boxes, floor), open, `m=${m}: volume above ${floor[0]}`, 1e-12);
    const rng = new Random(m);
    for (let s = 0; s < 2000; s++) {
      const z = Array.from({ length: m }, () => -0.25 + 1.25 * rng.uniform());
      const holders = Array.from({ length: count }, (_, b) => b).filter((b) => z.every((v, j) => lower[b * m + j] < v && v < upper[b * m + j]));
      const dominated = inside.some((p) => p.every((v, j) => v <= z[j]));
      assert.equal(holders.length, dominated ? 0 : 1, `m=${m}: point ${z.join(',')} lies in ${holders.length} boxes`);
    }
  }
});

test('box counts: n + 1 at m = 2 and 2n + 1 at m = 3 for fronts in general position, each box of positive width', () => {
  for (const n of [10, 50, 200]) {
    for (const m of [2, 3]) {
      const boxes = new NondominatedBoxes(makeFront('spherical', n, m, n), n, m, new Array<number>(m).fill(1.1));
      assert.equal(boxes.count, m === 2 ? n + 1 : 2 * n + 1);
      const { lower, upper } = boxes.boxes();
      assert.ok(
        lower.every((l, k) => l < upper[k]),
        `m=${m} n=${n}: no empty box`,
      );
    }
  }
});

test('add refuses points outside the reference box or weakly dominated, and bad input is an Error', () => {
  const boxes = new NondominatedBoxes(pts([[1, 2]]), 1, 2, [3, 3]);
  assert.equal(boxes.add([3, 0]), false, 'on ref');
  assert.equal(boxes.add([1, 2]), false, 'a repeat');
  assert.equal(boxes.add([1, 2.5]), false, 'weakly dominated');
  assert.equal(boxes.add([Infinity, 0]), false, '+Infinity only drops the point');
  assert.equal(boxes.revision, 0);
  assert.equal(boxes.add([1, 1]), true, 'dominates the point at (1, 2)');
  assert.equal(boxes.revision, 1);
  assert.equal(boxes.improvement([0, 0]), 9 - 4);
  assert.throws(() => boxes.add([NaN, 0]), /row 0 objective 0 is NaN/);
  assert.throws(() => boxes.improvement([-Infinity, 0]), /candidate row 0 objective 0 is -Infinity/);
  assert.throws(() => boxes.improvements(new Float64Array(3), 2), /fewer than 2 x 2/);
  assert.throws(() => new NondominatedBoxes(pts([[1, 2]]), 1, 2, [3]), /reference point has 1 values but there are 2 objectives/);
  assert.throws(() => new NondominatedBoxes(pts([[1, NaN]]), 1, 2, [3, 3]), /front points row 0 objective 1 is NaN/);
});
