import test from 'node:test';
import assert from 'node:assert/strict';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';

// four rows, two objectives, reference (1, 1): rows 0 and 3 inside, row 2 inside but infeasible
const Y = Float64Array.of(0.5, 0.8, 3, 0.2, 0.1, 0.1, 0.9, 0.95);
const feasible = Uint8Array.of(1, 1, 0, 1);

test('the reach frame scales each objective from the best successful value to the worse of the reference and the worst', () => {
  const frame = new ReachFrame(Y, 4, 2, [1, 1], feasible);
  // objective 1: best 0.1 (the infeasible row counts), worst 3 beyond the reference: 2.9; objective 2: 0.1 to the reference 1: 0.9
  assert.ok(Math.abs(frame.scale[0] - 2.9) < 1e-12);
  assert.ok(Math.abs(frame.scale[1] - 0.9) < 1e-12);
  // a constant column with the reference on it spans nothing: unit 1
  assert.deepEqual(Array.from(new ReachFrame(Float64Array.of(1, 2), 1, 2, [1, 2]).scale), [1, 1]);
});

test('the reach frame counts the feasible rows strictly inside the box', () => {
  const frame = new ReachFrame(Y, 4, 2, [1, 1], feasible);
  assert.deepEqual(frame.feasibleRows, [0, 1, 3]);
  assert.equal(frame.inside, 2, 'rows 0 and 3; row 2 is infeasible, row 1 misses objective 1');
  assert.equal(new ReachFrame(Y, 4, 2, [1, 1]).inside, 3, 'every row feasible without a mask');
  assert.equal(new ReachFrame(Y, 4, 2, [0.9, 0.95], feasible).inside, 1, 'on the reference is not inside');
  // row by row, by the same rule (a lone trust region's donors are the front's rows inside)
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => frame.isInside(i)),
    [true, false, false, true],
  );
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => new ReachFrame(Y, 4, 2, [0.9, 0.95]).isInside(i)),
    [true, false, true, false],
  );
});

test('the reach frame hands over to hypervolume improvement at m points inside for local search, 3m for global', () => {
  const none = new ReachFrame(Float64Array.of(2, 2, 3, 3), 2, 2, [1, 1]);
  assert.equal(none.picks(4, 'local'), 4);
  assert.equal(none.picks(4, 'global'), 4);
  const two = new ReachFrame(Y, 4, 2, [1, 1], feasible);
  assert.equal(two.picks(5, 'local'), 2, '2 inside = m: half the batch');
  assert.equal(two.picks(5, 'global'), 2);
  const rows = Float64Array.from({ length: 14 }, (_, k) => 0.1 * (k % 2 === 0 ? k / 2 : 7 - (k - 1) / 2) + 0.01);
  const three = new ReachFrame(rows, 7, 2, [1, 1]);
  assert.equal(three.inside, 7);
  assert.equal(three.picks(4, 'local'), 0, '7 > m = 2');
  assert.equal(three.picks(4, 'global'), 0, '7 > 3m = 6');
  const six = new ReachFrame(rows.subarray(0, 12), 6, 2, [1, 1]);
  assert.equal(six.picks(4, 'local'), 0);
  assert.equal(six.picks(4, 'global'), 2, '6 ≤ 3m');
});

test('the global search mixes reach picks in again when the latest iteration put nothing inside the box', () => {
  // the 7 rows inside from above, then 2 rows of iteration 3 outside the box: (1.5, 0.2) and (0.4, 1.1)
  const rows = Float64Array.from({ length: 14 }, (_, k) => 0.1 * (k % 2 === 0 ? k / 2 : 7 - (k - 1) / 2) + 0.01);
  const Y9 = Float64Array.of(...rows, 1.5, 0.2, 0.4, 1.1);
  const missed = new ReachFrame(Y9, 9, 2, [1, 1], null, Int32Array.of(0, 1, 1, 1, 1, 2, 2, 3, 3));
  assert.equal(missed.inside, 7);
  assert.equal(missed.latestMissed, true);
  assert.equal(missed.picks(4, 'global'), 2, 'beyond 3m, but the latest iteration missed: half the batch');
  assert.equal(missed.picks(4, 'local'), 0, 'trust regions hand over at m as before');
  // one row of the latest iteration inside (the first, renumbered 3): hypervolume alone decides
  const hit = new ReachFrame(Y9, 9, 2, [1, 1], null, Int32Array.of(3, 1, 1, 1, 1, 2, 2, 3, 3));
  assert.equal(hit.latestMissed, false);
  assert.equal(hit.picks(4, 'global'), 0);
  // an infeasible row inside counts as a miss
  const infeasible = new ReachFrame(Y9, 9, 2, [1, 1], Uint8Array.of(0, 1, 1, 1, 1, 1, 1, 1, 1), Int32Array.of(3, 1, 1, 1, 1, 2, 2, 3, 3));
  assert.equal(infeasible.latestMissed, true);
  // rows of the warm start (iteration 0) alone are no iteration of the campaign's; no iterations, no rule
  assert.equal(new ReachFrame(Y9, 9, 2, [1, 1], null, new Int32Array(9)).latestMissed, false);
  assert.equal(new ReachFrame(Y9, 9, 2, [1, 1]).latestMissed, false);
  // nothing inside: every pick is a reach pick, as before
  assert.equal(new ReachFrame(Float64Array.of(2, 2, 3, 3), 2, 2, [1, 1], null, Int32Array.of(1, 2)).picks(4, 'global'), 4);
  // judged by other values and restricted to rows, the iterations go along
  assert.equal(missed.judgedBy(Y9.map((v) => v * 0.5)).latestMissed, false, 'halved, the latest rows are inside');
  assert.equal(missed.restrictedTo([0, 1, 7, 8]).latestMissed, true);
  assert.equal(missed.restrictedTo([0, 1, 2, 3]).latestMissed, false, 'the latest kept iteration is 1, inside');
});

test('the closest feasible row is the lowest achievement in the frame scale or an aimed one', () => {
  const frame = new ReachFrame(Y, 4, 2, [1, 1], feasible);
  // achievements: row 0 max(−0.5/2.9, −0.2/0.9) = −0.172; row 1 max(2/2.9, −0.8/0.9) = 0.690; row 3 max(−0.1/2.9, −0.05/0.9) = −0.034
  assert.ok(Math.abs(frame.achievementOf(0) + 0.5 / 2.9) < 1e-12);
  assert.equal(frame.closest(), 0);
  // two rows trading off, (0.2, 0.9) and (0.9, 0.2): tied at −0.125 in the frame's scale 0.8, the first taken;
  // aimed along the second objective (its unit ten times larger): −0.0125 against −0.1, the second
  const pair = new ReachFrame(Float64Array.of(0.2, 0.9, 0.9, 0.2), 2, 2, [1, 1]);
  assert.equal(pair.closest(), 0);
  assert.equal(pair.closest([0.8, 8]), 1);
  assert.equal(new ReachFrame(Y, 4, 2, [1, 1], Uint8Array.of(0, 0, 0, 0)).closest(), -1);
});

test('a frame judged by other values, or restricted to some rows, follows the same rule', () => {
  const frame = new ReachFrame(Y, 4, 2, [1, 1], feasible);
  assert.equal(frame.judgedBy(Y), frame);
  const predicted = Float64Array.of(0.5, 0.8, 3, 0.2, 0.1, 0.1, 1.2, 0.95);
  const judged = frame.judgedBy(predicted);
  assert.equal(judged.inside, 1, 'row 3 predicted outside');
  assert.deepEqual(judged.feasibleRows, [0, 1, 3]);
  assert.equal(frame.restrictedTo([0, 1, 2, 3]), frame);
  const kept = frame.restrictedTo([3, 0]);
  assert.deepEqual(Array.from(kept.Y), [0.9, 0.95, 0.5, 0.8]);
  assert.equal(kept.inside, 2);
  assert.ok(Math.abs(kept.scale[0] - 0.5) < 1e-12, 'the kept rows span 0.5 to the reference 1');
});
