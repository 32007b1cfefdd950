import test from 'node:test';
import assert from 'node:assert/strict';
import { MonteCarloEhvi } from '../src/engine/acquisition/mc-ehvi.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import { hypervolumeImprovements } from '../src/engine/hypervolume.js';
import { affordableBoxes, FrontImprovement, improvementMethod } from '../src/engine/acquisition/front-improvement.js';
import { EXACT_IMPROVEMENT_MAX_OBJECTIVES, ScalarizedImprovement, unitBallOrthant } from '../src/engine/hypervolume-scalarized.js';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { selectBatch } from '../src/engine/strategies/trust-region/selection.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/**
 * Hypervolume by inclusion–exclusion over every subset of the points (`n x m`, n ≤ 12): the union
 * of the boxes [p, ref) has volume Σ_T (−1)^{|T|+1} vol([max_T, ref)). Exponential, independent
 * of every algorithm under test.
 */
function inclusionExclusion(points: number[][], ref: readonly number[]): number {
  const n = points.length;
  const m = ref.length;
  let total = 0;
  for (let mask = 1; mask < 1 << n; mask++) {
    let volume = 1;
    let size = 0;
    for (let j = 0; j < m; j++) {
      let corner = -Infinity;
      for (let i = 0; i < n; i++) if ((mask >> i) & 1) corner = Math.max(corner, points[i][j]);
      volume *= Math.max(0, ref[j] - corner);
    }
    for (let i = 0; i < n; i++) size += (mask >> i) & 1;
    total += size % 2 === 1 ? volume : -volume;
  }
  return total;
}

function randomFront(random: Random, n: number, m: number): number[][] {
  return Array.from({ length: n }, () => Array.from({ length: m }, () => random.uniform()));
}

test('the volume of the unit ball’s positive orthant has its known values for m = 1..6', () => {
  const known = [1, Math.PI / 4, Math.PI / 6, Math.PI ** 2 / 32, Math.PI ** 2 / 60, Math.PI ** 3 / 384];
  known.forEach((v, i) => assert.ok(Math.abs(unitBallOrthant(i + 1) - v) < 1e-12, `m = ${i + 1}: ${unitBallOrthant(i + 1)} vs ${v}`));
});

test('exact hypervolume improvements at m = 4 and 5: a hand-computed case', () => {
  // front {(0.5, 0.5, 0.5, 0.5)}, ref 1: y = (0.25, 0.75, 0.75, 0.75) adds its box 0.75 · 0.25³
  // less the overlap [0.5, 1) × [0.75, 1)³ = 0.5 · 0.25³, i.e. 0.25⁴ = 0.00390625
  const [four] = hypervolumeImprovements(Float64Array.of(0.5, 0.5, 0.5, 0.5), 1, 4, [1, 1, 1, 1], Float64Array.of(0.25, 0.75, 0.75, 0.75), 1);
  assert.ok(Math.abs(four - 0.00390625) < 1e-15, `${four}`);
  // the same in five objectives with a fifth coordinate of 0 for y and 0.5 for the front point:
  // box 0.75 · 0.25³ · 1, overlap 0.5 · 0.25³ · 0.5, improvement 0.25³ · 0.5 = 0.0078125
  const [five] = hypervolumeImprovements(Float64Array.of(0.5, 0.5, 0.5, 0.5, 0.5), 1, 5, [1, 1, 1, 1, 1], Float64Array.of(0.25, 0.75, 0.75, 0.75, 0), 1);
  assert.ok(Math.abs(five - 0.0078125) < 1e-15, `${five}`);
});

test('exact hypervolume improvements at m = 4, 5 and 6 match inclusion–exclusion on random fronts', () => {
  const random = new Random(41);
  for (const m of [4, 5, 6]) {
    for (let trial = 0; trial < 20; trial++) {
      const front = randomFront(random, 7, m);
      const ref = Array<number>(m).fill(1.1);
      const y = Array.from({ length: m }, () => 0.9 * random.uniform());
      const expected = inclusionExclusion([...front, y], ref) - inclusionExclusion(front, ref);
      const [got] = hypervolumeImprovements(Float64Array.from(front.flat()), 7, m, ref, Float64Array.from(y), 1);
      assert.ok(Math.abs(got - expected) < 1e-12, `m = ${m}, trial ${trial}: ${got} vs ${expected}`);
    }
  }
});

test('the random-scalarization estimate converges to the exact improvement at m = 4, 5 and 6', () => {
  const random = new Random(42);
  for (const m of [4, 5, 6]) {
    const ref = Array<number>(m).fill(1.1);
    // an empty front: the improvement of the origin is the whole box, 1.1^m
    const alone = new ScalarizedImprovement(new Float64Array(0), 0, m, ref, 100_000, random);
    assert.ok(Math.abs(alone.improvement(new Float64Array(m)) / 1.1 ** m - 1) < 0.01, `m = ${m}: empty front`);
    for (let trial = 0; trial < 4; trial++) {
      // front points at 0.2 or above, y below: y is never dominated
      const front = randomFront(random, 6, m).map((p) => p.map((v) => 0.2 + 0.8 * v));
      const y = Array.from({ length: m }, () => 0.2 * random.uniform());
      const exact = inclusionExclusion([...front, y], ref) - inclusionExclusion(front, ref);
      const estimate = new ScalarizedImprovement(Float64Array.from(front.flat()), 6, m, ref, 100_000, random).improvement(y);
      assert.ok(Math.abs(estimate - exact) < 0.03 * exact, `m = ${m}, trial ${trial}: ${estimate} vs ${exact}`);
    }
  }
});

test('the scalarized estimate does not depend on the objectives’ units: objectives spanning 1e-3 to 1e6 give the exact improvement', () => {
  const random = new Random(45);
  const units = [1e-3, 1, 1e3, 1e6, 10];
  const m = units.length;
  for (let trial = 0; trial < 4; trial++) {
    const front = randomFront(random, 6, m).map((p) => p.map((v, j) => (0.2 + 0.8 * v) * units[j]));
    const y = Array.from({ length: m }, (_, j) => 0.2 * random.uniform() * units[j]);
    const ref = units.map((u) => 1.1 * u);
    const exact = inclusionExclusion([...front, y], ref) - inclusionExclusion(front, ref);
    const estimate = new ScalarizedImprovement(Float64Array.from(front.flat()), 6, m, ref, 20_000, random).improvement(y);
    assert.ok(Math.abs(estimate - exact) < 0.05 * exact, `trial ${trial}: ${estimate} vs ${exact}`);
  }
});

test('the scalarized estimate is 0 for dominated points and points outside the box, and only shrinks as the front grows', () => {
  const random = new Random(43);
  const m = 5;
  const ref = Array<number>(m).fill(1);
  const front = randomFront(random, 10, m);
  const est = new ScalarizedImprovement(Float64Array.from(front.flat()), 10, m, ref, 512, random);
  assert.equal(est.improvement(front[0].map((v) => v + 0.01)), 0);
  assert.equal(est.improvement(front[3]), 0);
  assert.equal(est.improvement([0, 0, 0, 0, 1.2]), 0);
  const y = [0.1, 0.2, 0.3, 0.2, 0.1];
  const before = est.improvement(y);
  assert.ok(before > 0);
  est.add(Float64Array.of(0.15, 0.25, 0.2, 0.3, 0.2));
  const after = est.improvement(y);
  assert.ok(after < before && after > 0, `${after} after, ${before} before`);
  est.add(Float64Array.from(y));
  assert.equal(est.improvement(y), 0);
});

test('Monte Carlo EHVI at m = 5 (the expectation over the boxes) agrees with a large-sample exact estimate and ranks candidates as it does', () => {
  assert.equal(EXACT_IMPROVEMENT_MAX_OBJECTIVES, 3);
  const random = new Random(44);
  const m = 5;
  const ref = Array<number>(m).fill(1.1);
  const front = Float64Array.from(randomFront(random, 12, m).flat());
  const acq = new MonteCarloEhvi(front, 12, m, ref, 128, new Random(7));
  const means = [
    [0.2, 0.3, 0.2, 0.3, 0.2],
    [0.35, 0.4, 0.35, 0.4, 0.35],
    [0.9, 0.9, 0.9, 0.9, 0.9],
  ];
  const std = new Float64Array(15).fill(0.08);
  const values = acq.evaluate(Float64Array.from(means.flat()), std, 3);
  const draws = new Random(99);
  const reference = means.map((mean) => {
    const samples = 4000;
    const Y = new Float64Array(samples * m);
    for (let s = 0; s < samples; s++) for (let j = 0; j < m; j++) Y[s * m + j] = mean[j] + 0.08 * draws.normal();
    return hypervolumeImprovements(front, 12, m, ref, Y, samples).reduce((a, b) => a + b, 0) / samples;
  });
  for (let i = 0; i < 3; i++) {
    assert.ok(Math.abs(values[i] - reference[i]) <= 0.1 * reference[i] + 0.01 * reference[0], `candidate ${i}: ${values[i]} vs ${reference[i]}`);
  }
  assert.ok(values[0] > values[1] && values[1] > values[2], `${Array.from(values)}`);
});

test('at m = 4 Monte Carlo EHVI is exact while the boxes are affordable and the estimate beyond (a certain candidate: its improvement by inclusion-exclusion)', () => {
  assert.equal(improvementMethod(3, 1e9), 'kernel');
  assert.equal(improvementMethod(4, affordableBoxes(4)), 'boxes');
  assert.equal(improvementMethod(4, affordableBoxes(4) + 1), 'estimate');
  assert.ok(affordableBoxes(6) < affordableBoxes(5) && affordableBoxes(5) < affordableBoxes(4));
  const m = 4;
  const ref = Array<number>(m).fill(1.1);
  const random = new Random(45);
  const candidate = [0.3, 0.35, 0.3, 0.35];
  const sure = (front: number[][]) => {
    const acq = new MonteCarloEhvi(Float64Array.from(front.flat()), front.length, m, ref, 16, new Random(8));
    return acq.evaluate(Float64Array.from(candidate), new Float64Array(m), 1)[0];
  };
  // 10 points, all inside the box: the exact improvement, to rounding
  const small = randomFront(random, 10, m);
  const exact = inclusionExclusion([...small, candidate], ref) - inclusionExclusion(small, ref);
  assert.ok(exact > 0);
  assert.equal(new FrontImprovement(Float64Array.from(small.flat()), 10, m, ref, new Random(1)).method, 'boxes');
  assert.ok(Math.abs(sure(small) - exact) < 1e-12 * Math.max(1, exact), `${sure(small)} vs ${exact}`);
  // a front whose boxes outnumber what a batch affords (non-dominated on the simplex x1 + .. + x4 = 2): the estimate, not exact
  const large = Array.from({ length: 1500 }, () => {
    const w = Array.from({ length: m }, () => -Math.log(1 - random.uniform()));
    const sum = w.reduce((a, b) => a + b, 0);
    return w.map((v) => (2 * v) / sum);
  });
  const largeFront = Float64Array.from(large.flat());
  assert.equal(new FrontImprovement(largeFront, large.length, m, ref, new Random(1)).method, 'estimate');
  const truth = hypervolumeImprovements(largeFront, large.length, m, ref, Float64Array.from(candidate), 1)[0];
  const estimate = sure(large);
  assert.notEqual(estimate, truth);
  assert.ok(Math.abs(estimate - truth) < 0.25 * truth, `estimate ${estimate} vs exact ${truth}`);
});

test('trust-region selection at m = 5 picks by hypervolume improvement: the draw that adds most first, never a dominated one', () => {
  const m = 5;
  const ref = Array<number>(m).fill(1);
  const Y = Float64Array.of(0.5, 0.5, 0.5, 0.5, 0.5, 0.2, 0.8, 0.8, 0.8, 0.8);
  const S = Float64Array.of(
    0.6,
    0.6,
    0.6,
    0.6,
    0.6, // dominated by the first observed point
    0.45,
    0.45,
    0.45,
    0.45,
    0.45, // a little beyond it
    0.1,
    0.1,
    0.1,
    0.1,
    0.9, // far beyond both in four objectives: adds the most
  );
  const picks = selectBatch([{ region: 0, X: new Float64Array(15), S, count: 3 }], Y, 2, m, ref, 2, new Random(5));
  assert.deepEqual(
    picks.map((p) => p.row),
    [2, 1],
  );
});

async function campaignAcquisition(m: number, acquisition: 'auto' | 'parego'): Promise<string> {
  const mdl = mdlSchema.parse({
    name: `dtlz2 m=${m}`,
    parameters: Array.from({ length: m + 4 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: Array.from({ length: m }, (_, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: 1.1 })),
    optimizer: { method: 'cma-es', strategy: 'global', budget: 14, batch_size: 2, initial_samples: 12, seed: 3, acquisition },
    evaluator: { type: 'builtin', name: 'dtlz2' },
  });
  const problem = testProblem('dtlz2')!;
  const first = await step(mdl, initialState(mdl));
  const results = first.proposals.map((p) => {
    const f = problem.evaluate(
      Float64Array.from(mdl.parameters, (q) => p.parameters[q.name] as number),
      m,
    );
    return { id: p.id, objectives: Object.fromEntries(mdl.objectives.map((o, j) => [o.name, f[j]])) };
  });
  const state = tell(mdl, first.state, results).state;
  assert.ok(state.convergenceHistory.at(-1)! > 0, 'the initial design already has points inside the reference box');
  return (await step(mdl, state)).receipt!.acquisition;
}

test('at m = 4, 5 and 6 the automatic acquisition is expected hypervolume improvement; ParEGO stays an explicit choice', async () => {
  // "+ reach" while no more than m points of the initial design are inside the reference box
  assert.match(await campaignAcquisition(4, 'auto'), /^mc-ehvi( \+ reach)?$/);
  assert.match(await campaignAcquisition(5, 'auto'), /^mc-ehvi( \+ reach)?$/);
  assert.match(await campaignAcquisition(6, 'auto'), /^mc-ehvi( \+ reach)?$/);
  assert.match(await campaignAcquisition(5, 'parego'), /^parego( \+ reach)?$/);
});
