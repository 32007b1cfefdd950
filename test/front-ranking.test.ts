import test from 'node:test';
import assert from 'node:assert/strict';
import { hypervolume } from '../src/engine/hypervolume.js';
import { paretoIndices } from '../src/engine/pareto.js';
import { Random } from '../src/engine/random.js';
import { nondominatedRanks } from '../src/engine/strategies/nsga2/sorting.js';
import { exclusiveContributions } from '../src/engine/strategies/trust-region/centers.js';
import { selectBatch, type CandidatePool } from '../src/engine/strategies/trust-region/selection.js';
import { bruteHypervolumeSlicing } from './support/brute-hypervolume.js';

function bruteHypervolume(Y: Float64Array, n: number, m: number, ref: number[]): number {
  return bruteHypervolumeSlicing(
    Array.from({ length: n }, (_, i) => Array.from(Y.subarray(i * m, (i + 1) * m))),
    ref,
  );
}

/** Ranks by the definition: peel the rows no remaining row dominates, front after front. O(m n³). */
function peeledRanks(Y: Float64Array, n: number, m: number): number[] {
  const dominates = (a: number, b: number) => {
    let better = false;
    for (let j = 0; j < m; j++) {
      if (Y[a * m + j] > Y[b * m + j]) return false;
      if (Y[a * m + j] < Y[b * m + j]) better = true;
    }
    return better;
  };
  const rank = new Array<number>(n).fill(-1);
  let left = Array.from({ length: n }, (_, i) => i);
  for (let front = 0; left.length > 0; front++) {
    const current = left.filter((b) => !left.some((a) => dominates(a, b)));
    for (const i of current) rank[i] = front;
    left = left.filter((i) => rank[i] < 0);
  }
  return rank;
}

test('non-dominated ranks equal peeling fronts by definition: ties, repeated rows, two to five objectives', () => {
  const random = new Random(11);
  for (const m of [2, 3, 4, 5]) {
    for (const n of [1, 2, 7, 60, 240]) {
      // values on a coarse grid so that ties and exact repeats are common
      const Y = Float64Array.from({ length: n * m }, () => Math.floor(random.uniform() * 6));
      assert.deepEqual(Array.from(nondominatedRanks(Y, n, m)), peeledRanks(Y, n, m), `m=${m} n=${n}`);
    }
  }
});

test('infeasible rows rank after every feasible front, one front per distinct violation', () => {
  const Y = Float64Array.of(0, 0, 1, 1, 2, 2, 0.5, 0.5, 3, 3);
  const ranks = nondominatedRanks(Y, 5, 2, [0, 0, 0.2, 0, 0.1]);
  // feasible: (0,0) rank 0, (1,1) rank 1, (0.5,0.5) rank 1 ... (1,1) is dominated by (0.5,0.5): rank 2
  assert.deepEqual(Array.from(ranks), [0, 2, 4, 1, 3]);
});

test("two objectives: each front point's exclusive contribution is HV(front) − HV(front without it); other rows, outside points and repeats 0", () => {
  const random = new Random(4);
  const ref = [1.1, 1.1];
  for (let trial = 0; trial < 20; trial++) {
    const n = 3 + Math.floor(random.uniform() * 40);
    const Y = Float64Array.from({ length: n * 2 }, () => Math.round(random.uniform() * 1.3 * 50) / 50);
    // a repeated row and a row beyond the reference point
    if (n > 4) {
      Y.set(Y.subarray(0, 2), 2);
      Y.set([1.2, 0.01], 4);
    }
    const contribution = exclusiveContributions(Y, n, 2, ref);
    const front = new Set(paretoIndices(Y, n, 2));
    const rows = (keep: (i: number) => boolean) =>
      Float64Array.from(Array.from({ length: n }, (_, i) => i).flatMap((i) => (keep(i) ? [Y[2 * i], Y[2 * i + 1]] : [])));
    const all = rows((i) => front.has(i));
    for (let i = 0; i < n; i++) {
      const without = rows((k) => front.has(k) && k !== i);
      const expected = front.has(i) ? bruteHypervolume(all, all.length / 2, 2, ref) - bruteHypervolume(without, without.length / 2, 2, ref) : 0;
      assert.ok(Math.abs(contribution[i] - expected) < 1e-12, `trial ${trial} row ${i}: ${contribution[i]} vs ${expected}`);
    }
  }
});

test('greedy selection picks, one by one, the candidate adding the most hypervolume to the front and the picks before it', () => {
  const random = new Random(8);
  const m = 2;
  const ref = [1.1, 1.1];
  const n = 30;
  const Y = Float64Array.from({ length: n * m }, () => 0.2 + random.uniform());
  const pools: CandidatePool[] = [0, 1, 2].map((region) => {
    const count = 400;
    return { region, X: new Float64Array(count), S: Float64Array.from({ length: count * m }, () => 0.1 + random.uniform()), count };
  });
  const q = 12;
  const picks = selectBatch(pools, Y, n, m, ref, q, new Random(1));
  assert.equal(picks.length, q);
  // the same greedy choice made the slow way: every candidate's improvement recomputed at every pick
  const front = Array.from(Y);
  const taken = new Set<string>();
  let greedy = 0;
  for (const pick of picks) {
    let best = -1;
    let bestKey = '';
    const base = hypervolume(Float64Array.from(front), front.length / m, m, ref);
    pools.forEach((p, k) => {
      for (let row = 0; row < p.count; row++) {
        if (taken.has(`${k}:${row}`)) continue;
        const gain = hypervolume(Float64Array.from([...front, ...p.S.subarray(row * m, (row + 1) * m)]), front.length / m + 1, m, ref) - base;
        if (gain > best + 1e-15) [best, bestKey] = [gain, `${k}:${row}`];
      }
    });
    // once no candidate adds anything, the rest of the batch is filled another way (selection.ts)
    if (!(best > 0)) break;
    greedy++;
    assert.equal(`${pick.pool}:${pick.row}`, bestKey);
    taken.add(bestKey);
    front.push(...pools[pick.pool].S.subarray(pick.row * m, (pick.row + 1) * m));
  }
  assert.ok(greedy >= 5, `${greedy} greedy picks`);
});
