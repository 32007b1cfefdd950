import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { polynomialMutation, sbxPair } from '../src/engine/strategies/nsga2/operators.js';
import { crowdingDistances, nondominatedRanks } from '../src/engine/strategies/nsga2/sorting.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/** Ranks by the definition: peel off the non-dominated rows again and again (O(n³)). */
function bruteForceRanks(Y: Float64Array, n: number, m: number): Int32Array {
  const rank = new Int32Array(n).fill(-1);
  const dominates = (a: number, b: number): boolean => {
    let better = false;
    for (let j = 0; j < m; j++) {
      if (Y[a * m + j] > Y[b * m + j]) return false;
      if (Y[a * m + j] < Y[b * m + j]) better = true;
    }
    return better;
  };
  for (let front = 0; rank.includes(-1); front++) {
    const left = [...rank.keys()].filter((i) => rank[i] === -1);
    const peeled = left.filter((i) => !left.some((j) => dominates(j, i)));
    for (const i of peeled) rank[i] = front;
  }
  return rank;
}

test('non-dominated sorting agrees with peeling fronts by definition, ties and duplicates included', () => {
  const random = new Random(3);
  for (const m of [2, 3, 4]) {
    const n = 120;
    // coarse values make ties and duplicate rows common
    const Y = Float64Array.from({ length: n * m }, () => Math.round(random.uniform() * 6));
    assert.deepEqual(Array.from(nondominatedRanks(Y, n, m)), Array.from(bruteForceRanks(Y, n, m)));
  }
});

test('infeasible rows rank after every feasible one, by their violation', () => {
  const Y = Float64Array.of(0, 0, 5, 5, 1, 1, 9, 9);
  const ranks = nondominatedRanks(Y, 4, 2, [0.5, 0, 0.2, 0]);
  // feasible: rows 1 and 3, row 1 dominates row 3 → ranks 0 and 1; then violations 0.2, 0.5
  assert.deepEqual(Array.from(ranks), [3, 0, 2, 1]);
});

test('crowding distance matches a hand computation', () => {
  // a front of four points on f2 = 3 - f1; spans 3 in both objectives
  const Y = Float64Array.of(0, 3, 1, 2, 2.5, 0.5, 3, 0);
  const distance = crowdingDistances(Y, 2, [0, 1, 2, 3]);
  assert.equal(distance[0], Infinity);
  assert.equal(distance[3], Infinity);
  // row 1: neighbours 0 and 2 → (2.5 − 0)/3 in f1 plus (3 − 0.5)/3 in f2
  assert.ok(Math.abs(distance[1] - 5 / 3) < 1e-12);
  // row 2: neighbours 1 and 3 → (3 − 1)/3 + (2 − 0)/3
  assert.ok(Math.abs(distance[2] - 4 / 3) < 1e-12);
});

test('SBX keeps children in the box, spreads them as its index says, and is symmetric inside the box', () => {
  const random = new Random(11);
  const spread = (eta: number): number => {
    let total = 0;
    for (let k = 0; k < 4000; k++) {
      const [c1, c2] = sbxPair(0.4, 0.6, eta, random.uniform());
      assert.ok(c1 >= 0 && c1 <= 1 && c2 >= 0 && c2 <= 1);
      assert.ok(c1 <= c2);
      total += c2 - c1;
    }
    return total / 4000;
  };
  // a larger distribution index keeps children closer to their parents (spread 0.2)
  assert.ok(spread(30) < spread(2));
  assert.ok(Math.abs(spread(30) - 0.2) < 0.03);
  // the bounded spread factors coincide for parents centred in the box: the mean is preserved
  for (let k = 0; k < 100; k++) {
    const [c1, c2] = sbxPair(0.45, 0.55, 15, random.uniform());
    assert.ok(Math.abs((c1 + c2) / 2 - 0.5) < 1e-12);
  }
  // parents at a bound still give children inside the box
  for (let k = 0; k < 500; k++) {
    const [c1, c2] = sbxPair(0, 1, 1, random.uniform());
    assert.ok(c1 >= 0 && c2 <= 1);
  }
});

test('polynomial mutation stays in the box and is centred on the parent away from the bounds', () => {
  const random = new Random(5);
  let sum = 0;
  for (let k = 0; k < 20000; k++) {
    const y = polynomialMutation(0.5, 20, random.uniform());
    assert.ok(y >= 0 && y <= 1);
    sum += y;
  }
  assert.ok(Math.abs(sum / 20000 - 0.5) < 0.002);
  for (let k = 0; k < 1000; k++) {
    const y = polynomialMutation(0, 5, random.uniform());
    assert.ok(y >= 0 && y <= 1);
  }
});

function zdt1Mdl(method: 'nsga2' | 'random', budget: number, seed: number): Mdl {
  return mdlSchema.parse({
    parameters: Array.from({ length: 30 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 1.1 },
    ],
    optimizer: { method, budget, batch_size: 100, seed, stagnation: { window: 1000, tolerance: 0 } },
  });
}

async function run(mdl: Mdl, revive = false): Promise<{ state: CampaignState; batches: string[] }> {
  const zdt1 = testProblem('zdt1')!;
  let state = initialState(mdl);
  const batches: string[] = [];
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    batches.push(JSON.stringify(next.proposals.map((p) => p.parameters)));
    const results = next.proposals.map((p) => {
      const x = Float64Array.from({ length: 30 }, (_, i) => Number(p.parameters[`x${i + 1}`]));
      const f = zdt1.evaluate(x, 2);
      return { id: p.id, objectives: { f1: f[0], f2: f[1] } };
    });
    state = tell(mdl, next.state, results).state;
    // a worker restart: the state goes through JSON between every two generations
    if (revive) state = JSON.parse(JSON.stringify(state)) as CampaignState;
  }
  return { state, batches };
}

test('NSGA-II on ZDT1 (30 variables, population 100): converges towards the known front and leaves random search far behind', async () => {
  const zdt1 = testProblem('zdt1')!;
  const best = zdt1.maxHypervolume!(2, [1.1, 1.1])!;
  const nsga2 = (await run(zdt1Mdl('nsga2', 6000, 1))).state;
  const random = (await run(zdt1Mdl('random', 6000, 1))).state;
  const last = (s: CampaignState): number => s.convergenceHistory[s.convergenceHistory.length - 1];
  assert.equal(nsga2.status, 'completed');
  assert.equal(nsga2.evaluations.length, 6000);
  // Deb et al. (2002) report NSGA-II close to the ZDT1 front within a few hundred generations;
  // after 60 generations it must already dominate most of the reachable hypervolume.
  assert.ok(last(nsga2) > 0.75 * best, `NSGA-II reached ${last(nsga2)} of ${best}`);
  assert.ok(last(random) < 0.2 * best, `random search reached ${last(random)}`);
  // the hypervolume never falls from one generation to the next (elitism)
  for (let i = 1; i < nsga2.convergenceHistory.length; i++) {
    assert.ok(nsga2.convergenceHistory[i] >= nsga2.convergenceHistory[i - 1]);
  }
  // every proposal stays in the box and none repeats
  const keys = new Set(nsga2.evaluations.map((e) => JSON.stringify(e.parameters)));
  assert.equal(keys.size, 6000);
});

test('NSGA-II is deterministic and continues the same generations after its state goes through JSON', async () => {
  const mdl = zdt1Mdl('nsga2', 800, 4);
  const a = await run(mdl);
  const b = await run(mdl, true);
  assert.deepEqual(a.batches, b.batches);
  assert.notDeepEqual((await run(zdt1Mdl('nsga2', 800, 5))).batches[3], a.batches[3]);
  const memory = a.state.strategies?.nsga2 as { population: string[] };
  assert.equal(memory.population.length, 100);
});
