import test from 'node:test';
import assert from 'node:assert/strict';
import { ReachFrame } from '../src/engine/acquisition/reach-frame.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { completeStep, planStep, step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { choleskyInPlace, solveLowerInPlace, solveLowerTransposedInPlace } from '../src/engine/gp/dense64.js';
import { maternCorrelation } from '../src/engine/gp/matern.js';
import { gammaDraw, posteriorDraws, posteriorPath } from '../src/engine/gp/pathwise.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { chooseStrategy } from '../src/engine/strategies/choice.js';
import { fitModel } from '../src/engine/strategies/fit.js';
import {
  drawOfPaths,
  lineSearchTrials,
  REFINE_REACH,
  refineCandidate,
  refineCandidates,
  towardBox,
  towardUtopia,
} from '../src/engine/strategies/trust-region/refine.js';
import { boxDistance, LENGTH_INIT, LENGTH_MIN, regionSettings, updateRegions, type TrustRegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import type { Observations } from '../src/engine/strategies/types.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

/** Exact posterior mean and variance at x by the textbook formulas (Rasmussen & Williams, Alg. 2.1). */
function exactPosterior(X: number[][], y: number[], x: number[], ls: number[], s2: number, noise: number): { mean: number; variance: number } {
  const n = X.length;
  const k = (a: number[], b: number[]): number => s2 * maternCorrelation(Math.sqrt(a.reduce((t, v, j) => t + ((v - b[j]) / ls[j]) ** 2, 0)));
  const K = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) K[i * n + j] = k(X[i], X[j]) + (i === j ? noise : 0);
  assert.ok(choleskyInPlace(K, n));
  const alpha = Float64Array.from(y);
  solveLowerInPlace(K, n, alpha);
  solveLowerTransposedInPlace(K, n, alpha);
  const kx = Float64Array.from(X, (xi) => k(xi, x));
  const mean = kx.reduce((t, v, i) => t + v * alpha[i], 0);
  const v = Float64Array.from(kx);
  solveLowerInPlace(K, n, v);
  return { mean, variance: s2 - v.reduce((t, a) => t + a * a, 0) };
}

test('pathwise Thompson draws have the exact posterior mean and variance (Monte Carlo, 3 sigma)', () => {
  const random = new Random(7);
  const d = 2;
  const X = [
    [0.1, 0.2],
    [0.5, 0.9],
    [0.8, 0.3],
    [0.3, 0.6],
    [0.9, 0.9],
  ];
  const y = [0.5, -1, 0.3, 1.2, -0.4];
  const h = { lengthscales: Float64Array.of(0.3, 0.5), outputScale: 1.3, noise: 0.01 };
  const probes = [
    [0.2, 0.3],
    [0.6, 0.6],
    [0.95, 0.05],
  ];
  const draws = 3000;
  const sums = probes.map(() => ({ s: 0, s2: 0 }));
  for (let k = 0; k < draws; k++) {
    const values = posteriorPath(Float64Array.from(X.flat()), Float64Array.from(y), X.length, d, h, random, 1024).at(
      Float64Array.from(probes.flat()),
      probes.length,
    );
    values.forEach((v, i) => {
      sums[i].s += v;
      sums[i].s2 += v * v;
    });
  }
  probes.forEach((x, i) => {
    const exact = exactPosterior(X, y, x, Array.from(h.lengthscales), h.outputScale, h.noise);
    const mean = sums[i].s / draws;
    const variance = sums[i].s2 / draws - mean * mean;
    assert.ok(Math.abs(mean - exact.mean) < 3 * Math.sqrt(exact.variance / draws) + 0.02, `mean at ${x}: ${mean} vs ${exact.mean}`);
    assert.ok(Math.abs(variance - exact.variance) < 0.15 * exact.variance + 0.01, `variance at ${x}: ${variance} vs ${exact.variance}`);
  });
});

test("a pathwise draw's gradient matches central differences of its values", () => {
  const random = new Random(3);
  const d = 4;
  const n = 12;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, () => random.normal());
  const h = { lengthscales: Float64Array.of(0.3, 0.5, 0.8, 0.2), outputScale: 1.3, noise: 0.01 };
  const path = posteriorPath(X, y, n, d, h, random, 256);
  for (const x of [Float64Array.of(0.3, 0.4, 0.5, 0.6), Float64Array.from(X.subarray(0, d))]) {
    const gradient = new Float64Array(d);
    const value = path.withGradient(x, gradient);
    assert.ok(Math.abs(value - path.at(x, 1)[0]) < 1e-9);
    for (let k = 0; k < d; k++) {
      const step = 1e-6;
      const up = Float64Array.from(x);
      const down = Float64Array.from(x);
      up[k] += step;
      down[k] -= step;
      const numeric = (path.at(up, 1)[0] - path.at(down, 1)[0]) / (2 * step);
      assert.ok(Math.abs(gradient[k] - numeric) < 1e-5 * Math.max(1, Math.abs(numeric)), `coordinate ${k}: ${gradient[k]} vs ${numeric}`);
    }
  }
});

test('draws and their gradients at many points on the tensor backend agree with the float64 paths to float32 rounding', async () => {
  const random = new Random(6);
  const d = 5;
  const n = 40;
  const outputs = 2;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const Y = Float64Array.from({ length: n * outputs }, () => random.normal());
  const h = { lengthscales: Float64Array.of(0.3, 0.5, 0.8, 0.2, 1.5), outputScale: 1.3, noise: 1e-3 };
  const draws = posteriorDraws(X, Y, n, d, outputs, h, random, 256);
  const count = 7;
  // near the data (one exactly on a data point) and far from it
  const P = Float64Array.from({ length: count * d }, (_, i) => (i < d ? X[i] : i < 4 * d ? X[i] + 0.01 * random.normal() : random.uniform()));
  const { values, gradients } = await draws.withGradients(P, count);
  const scale = Math.max(1, ...Array.from(values, Math.abs));
  for (let a = 0; a < count; a++) {
    for (let k = 0; k < outputs; k++) {
      const gradient = new Float64Array(d);
      const value = draws.path(k).withGradient(P.slice(a * d, (a + 1) * d), gradient);
      assert.ok(Math.abs(values[a * outputs + k] - value) < 2e-5 * scale, `point ${a} output ${k}: ${values[a * outputs + k]} vs ${value}`);
      const size = Math.max(1, ...Array.from(gradient, Math.abs));
      for (let j = 0; j < d; j++) {
        const g = gradients[(a * outputs + k) * d + j];
        assert.ok(Math.abs(g - gradient[j]) < 1e-4 * size, `point ${a} output ${k} ∂x${j}: ${g} vs ${gradient[j]}`);
      }
    }
  }
  draws.dispose();
});

test("refinement moves a candidate downhill on every objective's draw and stays inside its reach", async () => {
  const random = new Random(5);
  const d = 3;
  const space = new SearchSpace(dtlzMdl(d));
  // draws of two objectives with known bowls: (x − a)² summed, fitted exactly by a GP on 60 points
  const n = 60;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const bowl = (x: ArrayLike<number>, a: number): number => Array.from(x).reduce((t, v) => t + (v - a) ** 2, 0);
  const h = { lengthscales: Float64Array.of(0.6, 0.6, 0.6), outputScale: 1, noise: 1e-6 };
  const paths = [0.3, 0.7].map((a) => {
    const y = Float64Array.from({ length: n }, (_, i) => bowl(X.subarray(i * d, (i + 1) * d), a));
    return posteriorPath(X, y, n, d, h, random, 256);
  });
  const draw = drawOfPaths(paths, { mean: [0, 0], std: [1, 1], lower: new Float64Array(d), upper: new Float64Array(d).fill(1) });
  const start = Float64Array.of(0.9, 0.1, 0.9);
  const before = paths.map((p) => p.at(start, 1)[0]);
  const refined = await refineCandidate(space, draw, start, towardUtopia(Float64Array.of(-0.5, -0.5)), Float64Array.of(1, 1));
  assert.ok(refined);
  const after = paths.map((p) => p.at(refined, 1)[0]);
  assert.ok(after[0] < before[0] && after[1] < before[1], `draws ${before} → ${after}`);
  for (let k = 0; k < d; k++) assert.ok(Math.abs(refined[k] - start[k]) <= REFINE_REACH + 1e-12);
});

test('trying several line-search steps per round refines to the same points in fewer rounds', async () => {
  const random = new Random(9);
  const d = 4;
  const space = new SearchSpace(dtlzMdl(d));
  const n = 50;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const h = { lengthscales: Float64Array.of(0.4, 0.5, 0.6, 0.7), outputScale: 1, noise: 1e-6 };
  // a wiggly pair of objectives, so line searches backtrack
  const f = (x: ArrayLike<number>, a: number): number => Array.from(x).reduce((t, v, k) => t + (v - a) ** 2 + 0.05 * Math.sin(17 * v + k), 0);
  const paths = [0.3, 0.7].map((a) =>
    posteriorPath(
      X,
      Float64Array.from({ length: n }, (_, i) => f(X.subarray(i * d, (i + 1) * d), a)),
      n,
      d,
      h,
      random,
      128,
    ),
  );
  const plain = drawOfPaths(paths, { mean: [0, 0], std: [1, 1], lower: new Float64Array(d), upper: new Float64Array(d).fill(1) });
  let rounds = 0;
  const counted = { ...plain, evaluate: (points: Float64Array, count: number) => (rounds++, plain.evaluate(points, count)) };
  const starts = Array.from({ length: 12 }, () => Float64Array.from({ length: d }, () => random.uniform()));
  const jobs = starts.map((start) => ({ draw: counted, start, scalarization: towardUtopia(Float64Array.of(-0.5, -0.5)), reach: 0.3 }));
  const spread = Float64Array.of(1, 1);
  const one = await refineCandidates(space, jobs, spread, 1);
  const roundsOne = rounds;
  rounds = 0;
  const eight = await refineCandidates(space, jobs, spread, lineSearchTrials(16));
  assert.deepEqual(
    eight.map((x) => Array.from(x!)),
    one.map((x) => Array.from(x!)),
  );
  assert.ok(rounds < roundsOne, `${rounds} rounds with 8 trials against ${roundsOne} with 1`);
  assert.ok(
    one.some((x, k) => x!.some((v, j) => v !== starts[k][j])),
    'the refinements moved',
  );
  assert.equal(lineSearchTrials(1), 1);
  assert.equal(lineSearchTrials(4), 4);
  assert.equal(lineSearchTrials(16), 8);
});

test('outside the reference box refinement descends the objective furthest from the box, letting the other grow', async () => {
  const d = 2;
  const space = new SearchSpace(dtlzMdl(d));
  // f1 = x0 (well inside its reference 1), f2 = 10·(1 − x0) + 10·x1 (far beyond it): only
  // raising x0 and lowering x1 bring f2 closer, and raising x0 costs f1
  const linear = (w: [number, number], c: number) => ({
    at: (x: Float64Array, count: number) => Float64Array.from({ length: count }, (_, a) => c + w[0] * x[a * d] + w[1] * x[a * d + 1]),
    withGradient: (x: Float64Array, g: Float64Array) => {
      g[0] = w[0];
      g[1] = w[1];
      return c + w[0] * x[0] + w[1] * x[1];
    },
  });
  const draw = drawOfPaths([linear([1, 0], 0), linear([-10, 10], 10)], {
    mean: [0, 0],
    std: [1, 1],
    lower: new Float64Array(d),
    upper: new Float64Array(d).fill(1),
  });
  const start = Float64Array.of(0.1, 0.5);
  const toBox = (await refineCandidate(space, draw, start, towardBox([1, 1]), Float64Array.of(1, 10), 0.2))!;
  assert.ok(toBox[0] > start[0] + 0.1 && toBox[1] < start[1] - 0.1, `towards the box: ${Array.from(toBox)}`);
  // the Chebyshev from a utopia keeps f1 from growing: only x1 moves
  const alongRay = (await refineCandidate(space, draw, start, towardUtopia([-0.1, -1]), Float64Array.of(1, 10), 0.2))!;
  assert.ok(alongRay[0] <= start[0] + 1e-9 && alongRay[1] < start[1] - 0.1, `along the ray: ${Array.from(alongRay)}`);
});

test('Gamma draws have the mean and variance of their shape', () => {
  const random = new Random(1);
  const n = 20000;
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const g = gammaDraw(2.5, random);
    assert.ok(g > 0);
    s += g;
    s2 += g * g;
  }
  const mean = s / n;
  assert.ok(Math.abs(mean - 2.5) < 0.05);
  assert.ok(Math.abs(s2 / n - mean * mean - 2.5) < 0.15);
});

test("a region's centre moves to a better point on its box's edge, where rounding puts it a hair outside", () => {
  // centre 0.346, half-width 0.2: (0.346 + 0.2 − 0.346) / 0.2 rounds to 1 + 2.2e-16
  const center = [0.346, 0.5];
  const edge = [0.346 + 0.5 * 0.4, 0.5];
  const region = { center: 'a', length: 0.4, successes: 0, failures: 0, weights: [1, 1], hyperparameters: null };
  assert.ok(boxDistance(edge, center, region) > 1, 'the edge point rounds to just outside');
  const o: Observations = {
    d: 2,
    m: 2,
    n: 2,
    X: Float64Array.from([...center, ...edge]),
    Y: Float64Array.from([0.5, 0.5, 0.3, 0.3]),
    ids: ['a', 'b'],
    iterations: Int32Array.from([1, 2]),
    c: 0,
    C: new Float64Array(0),
    feasible: Uint8Array.from([1, 1]),
    failed: [],
    ref: [1.1, 1.1],
    noisy: false,
  };
  const memory: TrustRegionMemory = { regions: [region], lastBatch: { ids: ['b'], regions: [0] }, retired: [], restarts: 0 };
  const next = updateRegions(memory, o, regionSettings(2, 4), new ReachFrame(o.Y, o.n, o.m, o.ref!, o.feasible).scale);
  assert.equal(next.regions[0].center, 'b');
  assert.equal(next.regions[0].successes, 1, 'the edge point improved the front');
});

function dtlzMdl(d: number, overrides: Record<string, unknown> = {}, budget = 120): Mdl {
  return mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1.1 },
      { name: 'f2', direction: 'minimize', reference: 1.1 },
    ],
    optimizer: { budget, batch_size: 20, initial_samples: 40, seed: 3, strategy: 'trust-region', ...overrides },
  });
}

function dtlz2(parameters: Record<string, number | string>, d: number): Record<string, number> {
  const f = testProblem('dtlz2')!.evaluate(
    Float64Array.from({ length: d }, (_, i) => Number(parameters[`x${i + 1}`])),
    2,
  );
  return { f1: f[0], f2: f[1] };
}

async function runCampaign(mdl: Mdl, d: number, options: { revive?: boolean; retryEvery?: number } = {}): Promise<{ state: CampaignState; batches: string[] }> {
  let state = initialState(mdl);
  const batches: string[] = [];
  while (state.status === 'running') {
    let next = await step(mdl, state);
    if (options.retryEvery && state.iteration % options.retryEvery === 1) {
      // a retried job proposes again from the same saved state: nothing may differ
      const again = await step(mdl, JSON.parse(JSON.stringify(state)) as CampaignState);
      assert.deepEqual(again.proposals, next.proposals);
      next = again;
    }
    if (next.proposals.length === 0) break;
    batches.push(JSON.stringify(next.proposals));
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: dtlz2(p.parameters, d) })),
    ).state;
    if (options.revive) state = JSON.parse(JSON.stringify(state)) as CampaignState;
  }
  return { state, batches };
}

test('trust regions: same seed, same batches; the state survives JSON round trips (worker restarts) and retries', async () => {
  // batches of 30 over 5 regions leave room for model steps (steps.ts), so their reaches travel too
  const mdl = dtlzMdl(8, { batch_size: 30 }, 130);
  const plain = await runCampaign(mdl, 8);
  const revived = await runCampaign(mdl, 8, { revive: true, retryEvery: 2 });
  assert.deepEqual(revived.batches, plain.batches);
  assert.equal(plain.state.status, 'completed');
  assert.equal(plain.state.evaluations.length, 130);
  assert.equal(plain.state.strategy?.name, 'trust-region');
  const memory = plain.state.strategies?.['trust-region'] as TrustRegionMemory;
  assert.equal(memory.regions.length, 5);
  for (const region of memory.regions) {
    assert.ok(region.length >= LENGTH_MIN && region.length <= 1.6);
    assert.ok(plain.state.evaluations.some((e) => e.id === region.center));
    assert.equal(region.weights?.length, 8);
  }
  assert.equal(memory.lastBatch?.steps?.filter((f) => f > 0).length, 15);
  assert.ok(
    memory.regions.some((r) => r.reach !== undefined && r.reach !== 0.1),
    'some step reach adapted',
  );
  assert.deepEqual(
    memory.lastBatch?.ids,
    plain.state.evaluations
      .slice(-30)
      .map((e) => e.id)
      .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5))),
  );
  const other = await runCampaign(dtlzMdl(8, { batch_size: 30, seed: 4 }, 130), 8);
  assert.notDeepEqual(other.batches[2], plain.batches[2]);
});

test('fits planned for a pool give exactly the proposals of an inline step', async () => {
  const mdl = dtlzMdl(8);
  let state = initialState(mdl);
  for (let i = 0; i < 3; i++) {
    const next = await step(mdl, state);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: dtlz2(p.parameters, 8) })),
    ).state;
  }
  const fits = planStep(mdl, state);
  assert.equal(fits.length, 5 * 2);
  // the requests are plain data: they survive structured cloning to another thread
  const fitted = structuredClone(fits).map(fitModel);
  assert.deepEqual((await completeStep(mdl, state, fitted)).proposals, (await step(mdl, state)).proposals);
});

test('trust regions beat random search on a 30-dimensional problem at the same budget', async () => {
  const d = 30;
  const best = (s: CampaignState): number =>
    Math.min(...s.evaluations.filter((e) => e.iteration > 1).map((e) => Math.hypot(e.objectives!.f1, e.objectives!.f2)));
  const tr = (await runCampaign(dtlzMdl(d, {}, 300), d)).state;
  const random = (await runCampaign(dtlzMdl(d, { method: 'random' }, 300), d)).state;
  // on DTLZ2, |f| = 1 + g: the distance to the front
  assert.ok(best(tr) < best(random) - 0.3, `trust region 1 + g = ${best(tr)}, random ${best(random)}`);
});

test('trust regions handle integers, categoricals, parameter constraints and a warm start', async () => {
  const mdl = mdlSchema.parse({
    parameters: [
      ...Array.from({ length: 18 }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
      { name: 'layers', type: 'integer', bounds: [1, 6] },
      { name: 'solvent', type: 'categorical', values: ['water', 'ethanol', 'acetone'] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    constraints: [{ expression: 'x1 + x2 <= 1' }, { expression: 'x3 * x4 <= 0.2' }],
    optimizer: { budget: 60, batch_size: 10, seed: 9 },
  });
  const space = new SearchSpace(mdl);
  assert.equal(chooseStrategy(mdl, space, 0).name, 'trust-region');
  const objectives = (p: Record<string, number | string>): Record<string, number> => {
    const x = Array.from({ length: 18 }, (_, i) => Number(p[`x${i + 1}`]));
    const penalty = p.solvent === 'ethanol' ? 0 : 0.5;
    const g = x.slice(2).reduce((t, v) => t + (v - 0.4) ** 2, 0) + 0.1 * Number(p.layers) + penalty;
    return { f1: x[0] + g, f2: 1 - Math.sqrt(x[0]) + g };
  };
  const random = new Random(2);
  const warmStart = Array.from({ length: 12 }, () => {
    const u = space.repair(Float64Array.from({ length: space.dimension }, () => random.uniform()));
    const parameters = space.decode(u);
    return { parameters, objectives: objectives(parameters) };
  }).filter((row) => space.isFeasible(row.parameters));
  let state = initialState(mdl, { warmStart });
  let sawTrustRegion = false;
  while (state.status === 'running') {
    const next = await step(mdl, state);
    if (next.proposals.length === 0) break;
    sawTrustRegion ||= next.strategy === 'trust-region';
    for (const p of next.proposals) {
      assert.ok(space.isFeasible(p.parameters), JSON.stringify(p.parameters));
      assert.ok(Number.isInteger(p.parameters.layers) && Number(p.parameters.layers) >= 1 && Number(p.parameters.layers) <= 6);
      assert.ok(['water', 'ethanol', 'acetone'].includes(String(p.parameters.solvent)));
    }
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: objectives(p.parameters) })),
    ).state;
  }
  assert.ok(sawTrustRegion, 'the warm start replaces the initial design, so trust regions propose from the first batch');
  assert.equal(state.evaluations.filter((e) => e.iteration > 0).length, 60);
});

test('auto chooses by dimension and budget and says why; the choice is kept in the state', async () => {
  const space = (mdl: Mdl): SearchSpace => new SearchSpace(mdl);
  const small = dtlzMdl(6, { strategy: 'auto' }, 90);
  assert.equal(chooseStrategy(small, space(small), 0).name, 'global');
  assert.match(chooseStrategy(small, space(small), 0).reason, /auto: 6 encoded dimensions/);
  const wide = dtlzMdl(30, { strategy: 'auto' }, 90);
  assert.equal(chooseStrategy(wide, space(wide), 0).name, 'trust-region');
  const long = dtlzMdl(6, { strategy: 'auto' }, 2000);
  assert.match(chooseStrategy(long, space(long), 0).reason, /2000 evaluations/);
  assert.equal(chooseStrategy(long, space(long), 0).name, 'trust-region');
  const warm = dtlzMdl(6, { strategy: 'auto' }, 500);
  assert.equal(chooseStrategy(warm, space(warm), 200).name, 'trust-region');
  const pinned = dtlzMdl(30, { strategy: 'global' }, 90);
  assert.deepEqual(chooseStrategy(pinned, space(pinned), 0), { name: 'global', reason: 'optimizer.strategy is global' });
  const nsga2 = dtlzMdl(30, { method: 'nsga2' }, 90);
  assert.equal(chooseStrategy(nsga2, space(nsga2), 0).name, 'nsga2');
  const first = await step(wide, initialState(wide));
  assert.equal(first.strategy, 'initial-design');
  assert.equal(first.state.strategy?.name, 'trust-region');
  assert.equal(LENGTH_INIT, 0.8);
});
