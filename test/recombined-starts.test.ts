import test from 'node:test';
import assert from 'node:assert/strict';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';
import { frontInside } from '../src/engine/acquisition/front-inside.js';
import { recombinedStarts } from '../src/engine/acquisition/recombined-starts.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';

// three continuous parameters and a categorical one (encoded: 3 + 3 coordinates)
const space = new SearchSpace(
  mdlSchema.parse({
    parameters: [
      { name: 'a', type: 'continuous', bounds: [0, 1] },
      { name: 'b', type: 'continuous', bounds: [0, 1] },
      { name: 'c', type: 'continuous', bounds: [0, 1] },
      { name: 'solvent', type: 'categorical', values: ['water', 'ethanol', 'toluene'] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1 },
      { name: 'f2', direction: 'minimize', reference: 1 },
      { name: 'f3', direction: 'minimize', reference: 1 },
    ],
    optimizer: { budget: 20 },
  }),
);

// three objectives, reference (1, 1, 1): rows 0 and 1 on the front inside the box; row 2
// dominated by row 0; row 3 outside
const Y = Float64Array.of(0.2, 0.6, 0.5, 0.6, 0.2, 0.5, 0.3, 0.7, 0.6, 0.1, 1.5, 0.1);
const ref = [1, 1, 1];
const X = Float64Array.of(...[0, 0, 0, 1, 0, 0], ...[1, 1, 1, 0, 1, 0], ...[0.5, 0.5, 0.5, 0, 0, 1], ...[0.25, 0.25, 0.25, 0, 0, 1]);

test('the parents are the designs inside the box that no feasible row dominates', () => {
  assert.deepEqual(frontInside(new ReachFrame(Y, 4, 3, ref)), [0, 1]);
  // row 3 moves inside and dominates rows 0 and 2: feasible, it hides both; infeasible, it is no parent and hides nothing
  const Y2 = Float64Array.of(0.2, 0.6, 0.5, 0.6, 0.2, 0.5, 0.3, 0.7, 0.6, 0.1, 0.5, 0.4);
  assert.deepEqual(frontInside(new ReachFrame(Y2, 4, 3, ref)), [1, 3]);
  assert.deepEqual(frontInside(new ReachFrame(Y2, 4, 3, ref, Uint8Array.of(1, 1, 1, 0))), [0, 1]);
});

test('a child takes each parameter whole from one of two front designs, about half from each', () => {
  const children = recombinedStarts(space, X, new ReachFrame(Y, 4, 3, ref), 200, new Random(3));
  assert.equal(children.length, 200);
  let fromSecond = 0;
  let mixed = 0;
  for (const child of children) {
    // continuous coordinates are 0 or 1: rows 2 and 3 (0.5, 0.25) never take part
    for (let j = 0; j < 3; j++) assert.ok(child[j] === 0 || child[j] === 1, `coordinate ${j} is ${child[j]}`);
    // the categorical block moves whole: water (row 0) or ethanol (row 1), never toluene, always one-hot
    const block = Array.from(child.subarray(3, 6));
    assert.ok(
      [
        [1, 0, 0],
        [0, 1, 0],
      ].some((v) => v.every((x, k) => x === block[k])),
      `block ${block}`,
    );
    const ones = child[0] + child[1] + child[2] + child[4];
    fromSecond += ones;
    if (ones > 0 && ones < 4) mixed++;
  }
  // 800 parameter draws: a child of two different parents (probability ½) takes each from the
  // second with probability ½, and a child of one parent drawn twice copies it; the share of row
  // 1's values is ½ by symmetry (sd about 0.028: a copied parent moves 4 at once)
  assert.ok(Math.abs(fromSecond / 800 - 0.5) < 0.08, `share from row 1 ${fromSecond / 800}`);
  // a mixture needs two different parents and not all-or-nothing: (1/2)(1 − 2/16) = 7/16 of children
  assert.ok(Math.abs(mixed / 200 - 7 / 16) < 0.12, `mixed children ${mixed / 200}`);
});

test('no children with fewer than two designs on the front inside the box, or with two objectives', () => {
  assert.deepEqual(recombinedStarts(space, X, new ReachFrame(Y, 4, 3, [0.5, 1, 1]), 8, new Random(1)), []);
  assert.deepEqual(recombinedStarts(space, X, new ReachFrame(Y, 4, 3, [0.1, 0.1, 0.1]), 8, new Random(1)), []);
  // two objectives (the first two columns): rows 0 and 1 are a front inside (1, 1), yet no child, and no draw is taken
  const two = Float64Array.of(0.2, 0.6, 0.6, 0.2, 0.3, 0.7, 0.1, 1.5);
  const random = new Random(7);
  assert.deepEqual(frontInside(new ReachFrame(two, 4, 2, [1, 1])), [0, 1]);
  assert.deepEqual(recombinedStarts(space, X, new ReachFrame(two, 4, 2, [1, 1]), 8, random), []);
  assert.equal(random.uniform(), new Random(7).uniform());
});
