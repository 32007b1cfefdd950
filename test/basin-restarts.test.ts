import test from 'node:test';
import assert from 'node:assert/strict';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { basinFunnel, basinMoves, LENGTH_SPENT } from '../src/engine/strategies/trust-region/basins.js';
import { centerPreference } from '../src/engine/strategies/trust-region/centers.js';
import { LENGTH_MIN, regionSettings, updateRegions, type RegionMemory, type TrustRegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import type { Observations } from '../src/engine/strategies/types.js';

const space = new SearchSpace(
  mdlSchema.parse({
    parameters: [
      { name: 'a', type: 'continuous', bounds: [0, 1] },
      { name: 'b', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1 },
      { name: 'f2', direction: 'minimize', reference: 1 },
    ],
    optimizer: { budget: 20 },
  }),
);

/** Two objectives, every point outside the reference box (1, 1): the distance to it is what improves. */
function observations(rows: { id: string; x: [number, number]; y: [number, number] }[]): Observations {
  return {
    d: 2,
    m: 2,
    n: rows.length,
    X: Float64Array.from(rows.flatMap((r) => r.x)),
    Y: Float64Array.from(rows.flatMap((r) => r.y)),
    ids: rows.map((r) => r.id),
    iterations: Int32Array.from(rows.map(() => 1)),
    c: 0,
    C: new Float64Array(0),
    feasible: Uint8Array.from(rows.map(() => 1)),
    failed: [],
    ref: [1, 1],
    noisy: false,
  };
}

function region(center: string, length: number): RegionMemory {
  return { center, length, successes: 0, failures: 0, weights: null, hyperparameters: null };
}

const frameOf = (o: Observations) => new ReachFrame(o.Y, o.n, o.m, o.ref!, o.feasible);
const scaleOf = (o: Observations) => frameOf(o).scale;

test("the funnel is CMA-ES's weighted recombination of the best half of the minima, and their spread", () => {
  // four minima, best first: mu = 2, weights ln 2.5 and ln 2.5 − ln 2 over their sum
  const minima = [
    [0.5, 0.2],
    [0.3, 0.6],
    [0.9, 0.9],
    [0.1, 0.1],
  ];
  const funnel = basinFunnel(minima, 2)!;
  const w1 = Math.log(2.5) / (2 * Math.log(2.5) - Math.log(2));
  const w2 = 1 - w1;
  assert.ok(Math.abs(funnel.mean[0] - (w1 * 0.5 + w2 * 0.3)) < 1e-12);
  assert.ok(Math.abs(funnel.mean[1] - (w1 * 0.2 + w2 * 0.6)) < 1e-12);
  // two points' weighted spread: sqrt(w1 w2) |a − b|; the box is twice its geometric mean
  assert.ok(Math.abs(funnel.sd[0] - Math.sqrt(w1 * w2) * 0.2) < 1e-12);
  assert.ok(Math.abs(funnel.sd[1] - Math.sqrt(w1 * w2) * 0.4) < 1e-12);
  assert.ok(Math.abs(funnel.length - 2 * Math.sqrt(w1 * w2) * Math.sqrt(0.08)) < 1e-12);
  assert.equal(basinFunnel([[0.5, 0.5]], 2), null, 'one minimum has no spread to sample');
});

test('a batch that improves nothing counts as a stall; one that gets closer to the box resets it', () => {
  const base = [
    { id: 'a', x: [0.2, 0.2] as [number, number], y: [3, 3] as [number, number] },
    { id: 'b', x: [0.8, 0.8] as [number, number], y: [4, 4] as [number, number] },
  ];
  const memory: TrustRegionMemory = {
    regions: [region('a', 0.4), region('b', 0.4)],
    lastBatch: { ids: ['c', 'd'], regions: [0, 1] },
    retired: [],
    restarts: 0,
    stalled: 2,
  };
  const worse = observations([...base, { id: 'c', x: [0.25, 0.2], y: [3.5, 3.5] }, { id: 'd', x: [0.75, 0.8], y: [5, 5] }]);
  assert.equal(updateRegions(memory, worse, regionSettings(2, 8), scaleOf(worse)).stalled, 3);
  const closer = observations([...base, { id: 'c', x: [0.25, 0.2], y: [2, 2] }, { id: 'd', x: [0.75, 0.8], y: [5, 5] }]);
  assert.equal(updateRegions(memory, closer, regionSettings(2, 8), scaleOf(closer)).stalled, 0);
});

test('at a stall every spent region but the leader moves to the basin start; without a stall none does', () => {
  const o = observations([
    { id: 'best', x: [0.5, 0.2], y: [2, 2] },
    { id: 'second', x: [0.3, 0.6], y: [3, 3] },
    { id: 'third', x: [0.9, 0.9], y: [4, 4] },
    { id: 'old', x: [0.1, 0.1], y: [5, 5] },
  ]);
  let rankings = 0;
  const preference = () => {
    rankings++;
    return centerPreference(o.Y, o.n, o.m, o.ref!, scaleOf(o));
  };
  const spent = LENGTH_SPENT / 2;
  // the leader is spent too, and stays; 'third' is spent and moves; 'second' still searches
  const memory: TrustRegionMemory = {
    regions: [region('third', spent), region('best', spent), region('second', 0.3)],
    lastBatch: null,
    retired: ['old'],
    restarts: 1,
    stalled: 1,
  };
  const moves = basinMoves(memory, o, frameOf(o), space, preference, new Random(1));
  assert.deepEqual(
    moves.map((m) => m.region),
    [0],
  );
  // the first start is the funnel of the minima best, second, third, old: the weighted mean of best and second
  const funnel = basinFunnel(
    [
      [0.5, 0.2],
      [0.3, 0.6],
      [0.9, 0.9],
      [0.1, 0.1],
    ],
    2,
  )!;
  assert.deepEqual(Array.from(moves[0].point), Array.from(funnel.mean));
  assert.equal(moves[0].length, funnel.length);
  assert.equal(rankings, 1);
  assert.deepEqual(basinMoves({ ...memory, stalled: 0 }, o, frameOf(o), space, preference, new Random(1)), [], 'no stall, no move');
  assert.equal(rankings, 1, 'the rows are ranked only once the rule applies');
  const searching = { ...memory, regions: [region('third', 2 * LENGTH_SPENT), region('best', spent), region('second', 0.3)] };
  assert.deepEqual(basinMoves(searching, o, frameOf(o), space, preference, new Random(1)), [], 'no spent region but the leader');
  // once a point is inside the reference box, the regions stay on the front
  const inside = observations([
    { id: 'best', x: [0.5, 0.2], y: [0.5, 0.5] },
    { id: 'second', x: [0.3, 0.6], y: [3, 3] },
    { id: 'third', x: [0.9, 0.9], y: [4, 4] },
    { id: 'old', x: [0.1, 0.1], y: [5, 5] },
  ]);
  assert.deepEqual(
    basinMoves(memory, inside, frameOf(inside), space, () => centerPreference(inside.Y, inside.n, inside.m, inside.ref!, scaleOf(inside)), new Random(1)),
    [],
  );
  // a region that TuRBO's rule just restarted (a fresh box) moves as well
  const restarted = { ...searching, collapsed: [0] };
  assert.deepEqual(
    basinMoves(restarted, o, frameOf(o), space, preference, new Random(1)).map((m) => m.region),
    [0],
  );
});

test('a moved region starts afresh on its evaluated start, retiring its old centre; an unevaluated start is dropped', () => {
  const o = observations([
    { id: 'best', x: [0.5, 0.2], y: [2, 2] },
    { id: 'third', x: [0.9, 0.9], y: [4, 4] },
    { id: 'start', x: [0.46, 0.28], y: [6, 6] },
  ]);
  const memory: TrustRegionMemory = {
    regions: [region('third', LENGTH_SPENT / 2), region('best', 0.4)],
    lastBatch: null,
    retired: [],
    restarts: 0,
    moves: [{ id: 'start', region: 0, length: 0.15 }],
  };
  const next = updateRegions(memory, o, regionSettings(2, 8), scaleOf(o));
  assert.equal(next.regions[0].center, 'start');
  assert.equal(next.regions[0].length, 0.15);
  assert.deepEqual(next.retired, ['third']);
  assert.equal(next.restarts, 1);
  assert.equal(next.moves, undefined);
  assert.equal(next.regions[1].center, 'best');
  const lost = updateRegions({ ...memory, moves: [{ id: 'failed', region: 0, length: 0.15 }] }, o, regionSettings(2, 8), scaleOf(o));
  assert.equal(lost.regions[0].center, 'third');
  assert.ok(lost.regions[0].length > LENGTH_MIN);
});
