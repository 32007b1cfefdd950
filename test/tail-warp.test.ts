import test from 'node:test';
import assert from 'node:assert/strict';
import { compressTails, tailWarp, TAIL_RATIO, warpValue } from '../src/engine/campaign/tail-warp.js';
import { Random } from '../src/engine/random.js';
import type { Observations } from '../src/engine/strategies/types.js';

const column = (values: number[]): Float64Array => Float64Array.from(values);

test('a column spanning orders of magnitude is warped from its upper quartile, on the interquartile scale (hand-computed)', () => {
  // sorted: 0 0 0 0 0 1 1 2 1e6 -> q1 = 0, q3 = 1 (index 6), IQR 1; spread max(1, ref 5 - 0) = 5
  const warp = tailWarp(column([1, 0, 0, 1e6, 0, 2, 0, 1, 0]), 9, 1, 0, 5);
  assert.deepEqual(warp, { knee: 1, scale: 1 });
  assert.equal(warpValue(0.5, warp), 0.5);
  assert.equal(warpValue(1, warp), 1);
  assert.ok(Math.abs(warpValue(2, warp) - (1 + Math.log(2))) < 1e-15);
  assert.ok(Math.abs(warpValue(1e6, warp) - (1 + Math.log(1e6))) < 1e-12);
  assert.ok(Number.isNaN(warpValue(Number.NaN, warp)));
});

test('a column that is mostly one value (no violation) takes the median excess as its scale', () => {
  // ten zeros, then 3, 5 and 1e8: q1 = q3 = 0 (index 9 of 13), so the scale is the median of 3, 5, 1e8
  const warp = tailWarp(column([0, 0, 3, 0, 0, 1e8, 0, 5, 0, 0, 0, 0, 0]), 13, 1, 0, 10);
  assert.deepEqual(warp, { knee: 0, scale: 5 });
});

test('bounded columns keep their values: a normal sample, an exponential one, and one crowded at 0 whose rest lies near the reference', () => {
  const random = new Random(3);
  const normal = Float64Array.from({ length: 100 }, () => random.normal());
  const exponential = Float64Array.from({ length: 100 }, () => -Math.log(1 - random.uniform()));
  // DTLZ4-like: most values within 1e-12 of 0, the others spread up to three times the reference 1.1
  const crowded = Float64Array.from({ length: 100 }, (_, i) => (i % 5 === 0 ? 3.3 * random.uniform() : 1e-12 * random.uniform()));
  assert.equal(tailWarp(normal, 100, 1, 0), null);
  assert.equal(tailWarp(exponential, 100, 1, 0), null);
  assert.equal(tailWarp(crowded, 100, 1, 0, 1.1), null);
  // without the reference the crowded column's spread below the knee is tiny, and it is warped
  assert.notEqual(tailWarp(crowded, 100, 1, 0), null);
});

test('the largest value must lie more than TAIL_RATIO spreads beyond the knee, and 8 rows are needed', () => {
  // sorted 0..7 and one top value t: q1 = 2, q3 = 6 (n = 9), IQR 4; without a reference the
  // spread is the knee less the smallest value, 6, and the scale the IQR
  const rows = (top: number) => column([0, 1, 2, 3, 4, 5, 6, 7, top]);
  assert.equal(tailWarp(rows(6 + TAIL_RATIO * 6), 9, 1, 0), null);
  assert.deepEqual(tailWarp(rows(6 + TAIL_RATIO * 6 + 1e-9), 9, 1, 0), { knee: 6, scale: 4 });
  assert.equal(tailWarp(column([0, 1, 2, 3, 4, 5, 1e9]), 7, 1, 0), null);
});

test('the warp keeps order, Pareto dominance and membership of the reference box', () => {
  const random = new Random(11);
  const n = 60;
  const Y = Float64Array.from({ length: n }, () => Math.exp(20 * random.uniform()) - 1);
  const warp = tailWarp(Y, n, 1, 0, 1e7);
  assert.ok(warp, 'a log-uniform column over 20 e-folds is heavy-tailed');
  assert.ok(warp.knee < 1e7, 'the reference lies in the warped tail');
  const warped = Array.from(Y, (v) => warpValue(v, warp));
  const ref = warpValue(1e7, warp);
  for (let a = 0; a < n; a++) {
    assert.equal(warped[a] < ref, Y[a] < 1e7);
    for (let b = 0; b < n; b++) assert.equal(warped[a] < warped[b], Y[a] < Y[b]);
  }
});

function observations(Y: number[], m: number, ref: number[] | null, noisy: boolean): Observations {
  const n = Y.length / m;
  return {
    d: 1,
    m,
    n,
    X: new Float64Array(n),
    Y: Float64Array.from(Y),
    ids: Array.from({ length: n }, (_, i) => `e${i}`),
    iterations: new Int32Array(n),
    c: 0,
    C: new Float64Array(0),
    feasible: new Uint8Array(n).fill(1),
    failed: [],
    partial: { X: new Float64Array(2), Y: Float64Array.of(0.5, 1e7, Number.NaN, 4), n: 2 },
    ref,
    noisy,
  };
}

test('compressTails warps the heavy column of the rows, the partial rows and the reference alike, and leaves the rest', () => {
  // column 0 bounded, column 1 heavy: 0 0 0 0 0 1 1 2 1e6 (knee 1, scale 1, as above)
  const heavy = [1, 0, 0, 1e6, 0, 2, 0, 1, 0];
  const Y = heavy.flatMap((v, i) => [i / 8, v]);
  const o = observations(Y, 2, [1.1, 5], false);
  const model = compressTails(o);
  for (let i = 0; i < 9; i++) {
    assert.equal(model.Y[2 * i], i / 8);
    assert.equal(model.Y[2 * i + 1], heavy[i] > 1 ? 1 + Math.log(heavy[i]) : heavy[i]);
  }
  assert.deepEqual(model.ref, [1.1, 1 + Math.log(5)]);
  assert.equal(model.partial!.Y[1], 1 + Math.log(1e7));
  assert.ok(Number.isNaN(model.partial!.Y[2]));
  assert.equal(model.partial!.Y[3], 1 + Math.log(4));
  // the campaign's own observations are untouched
  assert.equal(o.Y[7], 1e6);
  assert.deepEqual(o.ref, [1.1, 5]);
});

test('compressTails returns a noisy campaign, and one without heavy tails, as it is', () => {
  const heavy = [1, 0, 0, 1e6, 0, 2, 0, 1, 0];
  const noisy = observations(heavy, 1, [5], true);
  assert.equal(compressTails(noisy), noisy);
  const bounded = observations([0.1, 0.5, 0.2, 0.9, 0.3, 0.7, 0.4, 0.6, 0.8], 1, [1.1], false);
  assert.equal(compressTails(bounded), bounded);
});
