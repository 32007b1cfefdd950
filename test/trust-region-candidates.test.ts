import test from 'node:test';
import assert from 'node:assert/strict';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';
import { DONOR_SHARE, donorRows, regionCandidates } from '../src/engine/strategies/trust-region/candidates.js';
import type { RegionMemory } from '../src/engine/strategies/trust-region/regions.js';

const space = new SearchSpace(
  mdlSchema.parse({
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
      { name: 'x3', type: 'continuous', bounds: [0, 1] },
      { name: 'x4', type: 'continuous', bounds: [0, 1] },
      { name: 'phase', type: 'categorical', values: ['a', 'b', 'c'] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    optimizer: { budget: 100 },
  }),
);
const d = space.dimension; // 4 continuous + 3 one-hot
// the centre in the middle of the cube with phase a; its box is [0.3, 0.7] in every coordinate
const center = Float64Array.of(0.5, 0.5, 0.5, 0.5, 1, 0, 0);
const region: RegionMemory = { center: 'e0', length: 0.4, successes: 0, failures: 0, weights: null, hyperparameters: null };
// a front point partly outside the box, with phase c
const donor = Float64Array.of(0.9, 0.6, 0.1, 0.35, 0, 0, 1);
// the donor's values clipped into the box
const clipped = [0.7, 0.6, 0.3, 0.35];

/**
 * Of the candidates that moved some number: how many, and how many moved every such number to the
 * donor's clipped value (a uniform redraw does so with probability 0); and whether every one of
 * those that changed its phase took the donor's.
 */
function recombined(X: Float64Array, count: number): { moved: number; fromDonor: number; donorPhase: boolean } {
  let moved = 0;
  let fromDonor = 0;
  let donorPhase = true;
  for (let i = 0; i < count; i++) {
    const x = X.subarray(i * d, (i + 1) * d);
    const changed = [0, 1, 2, 3].filter((j) => x[j] !== center[j]);
    if (changed.length === 0) continue;
    moved++;
    if (!changed.every((j) => x[j] === clipped[j])) continue;
    fromDonor++;
    if (x[4] !== 1 && x[6] !== 1) donorPhase = false;
  }
  return { moved, fromDonor, donorPhase };
}

test('a share of the candidates takes its redrawn parameters from a front point, clipped into the box', () => {
  const count = 4000;
  const { X, count: made } = regionCandidates(space, center, region, count, new Random(7), [donor]);
  assert.equal(made, count);
  for (let i = 0; i < made; i++) {
    for (let j = 0; j < 4; j++) {
      assert.ok(X[i * d + j] >= 0.3 - 1e-12 && X[i * d + j] <= 0.7 + 1e-12, `candidate ${i} leaves the box in x${j + 1}`);
    }
  }
  const { moved, fromDonor, donorPhase } = recombined(X, made);
  // whether a candidate recombines is drawn apart from which parameters it changes: binomial
  const sd = Math.sqrt(moved * DONOR_SHARE * (1 - DONOR_SHARE));
  assert.ok(Math.abs(fromDonor - DONOR_SHARE * moved) < 5 * sd, `${fromDonor} of ${moved}`);
  assert.ok(DONOR_SHARE > 0 && DONOR_SHARE < 1, 'recombined and uniform candidates both occur');
  assert.ok(donorPhase, "a recombined candidate that changes its phase takes the donor's");
});

test('without front points every redrawn parameter is uniform in the box', () => {
  const { X, count } = regionCandidates(space, center, region, 2000, new Random(7));
  const { moved, fromDonor } = recombined(X, count);
  assert.ok(moved > 1000, `${moved} candidates moved a number`);
  assert.equal(fromDonor, 0);
});

test('donor rows: the whole front for several regions, its rows inside the reference box for a lone region', () => {
  // four rows, two objectives (minimized), reference (1, 1): rows 0, 1 and 3 are the front, row 2
  // is dominated by row 1; row 0 lies beyond the reference in f2, row 3 in f1
  const Y = Float64Array.of(0.2, 1.5, 0.5, 0.5, 0.6, 0.7, 1.2, 0.1);
  const frame = new ReachFrame(Y, 4, 2, [1, 1]);
  assert.deepEqual(
    donorRows(Y, 4, 2, frame, 3).sort((a, b) => a - b),
    [0, 1, 3],
  );
  assert.deepEqual(donorRows(Y, 4, 2, frame, 1), [1]);
  // a front wholly outside the box gives a lone region no donor: it draws as TuRBO does
  const outside = Float64Array.of(1.1, 2, 2, 1.1);
  assert.deepEqual(donorRows(outside, 2, 2, new ReachFrame(outside, 2, 2, [1, 1]), 1), []);
  assert.equal(donorRows(outside, 2, 2, new ReachFrame(outside, 2, 2, [1, 1]), 2).length, 2);
});
