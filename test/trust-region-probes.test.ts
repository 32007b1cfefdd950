import test from 'node:test';
import assert from 'node:assert/strict';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { localData, regionModels, type RegionModels } from '../src/engine/strategies/trust-region/models.js';
import { PROBE_ROOM, probeKept, regionProbes } from '../src/engine/strategies/trust-region/probes.js';
import type { RegionMemory } from '../src/engine/strategies/trust-region/regions.js';
import type { Observations, StrategyContext } from '../src/engine/strategies/types.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

const d = 2;
const m = 2;
const ref = [2, 2];
const spread = [1, 1];
const h = { lengthscales: Float64Array.of(0.3, 0.3), outputScale: 1, noise: 1e-6 };

/** A 6 x 6 grid of [0, 1]² (row i·6 + k at (i/5, k/5)) measured by `f`, with `extra` points appended. */
function observations(f: (x: number[]) => number[], extra: number[][] = []): Observations {
  const points: number[][] = [];
  for (let i = 0; i < 6; i++) for (let k = 0; k < 6; k++) points.push([i / 5, k / 5]);
  points.push(...extra);
  const n = points.length;
  return {
    d,
    m,
    n,
    X: Float64Array.from(points.flat()),
    Y: Float64Array.from(points.flatMap(f)),
    ids: points.map((_, i) => `e${i}`),
    iterations: new Int32Array(n),
    c: 0,
    C: new Float64Array(0),
    feasible: new Uint8Array(n).fill(1),
    failed: [],
    ref,
    noisy: false,
  };
}

function models(o: Observations, seed: number): RegionModels {
  const rows = Array.from({ length: o.n }, (_, i) => i);
  const box = { lower: new Float64Array(d), upper: new Float64Array(d).fill(1) };
  return regionModels(localData(o, rows), d, { objectives: [h, h], constraints: null }, box, [], new Random(seed));
}

// a bowl about (0.5, 0.5): the lower bound of x₁ is far worse than the centre in both objectives
const bowl = (x: number[]) => [(x[0] - 0.5) ** 2 + (x[1] - 0.5) ** 2, (x[0] - 0.6) ** 2 + (x[1] - 0.5) ** 2];
// both objectives fall towards x₁ = 0
const slope = (x: number[]) => [x[0] + (x[1] - 0.5) ** 2, x[0] + (x[1] - 0.6) ** 2];

test('a probe the draw puts beyond its centre in every objective is not proposed; one it puts ahead is', async () => {
  const center = Float64Array.of(0.4, 0.6);
  const probe = Float64Array.of(0, 0.6);
  // centre: bowl (0.02, 0.01), probe (0.26, 0.37); slope (0.41, 0.4) against (0.01, 0)
  for (let seed = 1; seed <= 10; seed++) {
    assert.equal(await probeKept(models(observations(bowl), seed), probe, center, ref, spread), false, `bowl, seed ${seed}`);
    assert.equal(await probeKept(models(observations(slope), seed), probe, center, ref, spread), true, `slope, seed ${seed}`);
  }
});

test("a region whose probe is rejected leaves its place to the next region's probe", async () => {
  const space = new SearchSpace(
    mdlSchema.parse({
      parameters: [
        { name: 'x1', type: 'continuous', bounds: [0, 1] },
        { name: 'x2', type: 'continuous', bounds: [0, 1] },
      ],
      objectives: [
        { name: 'f1', direction: 'minimize' },
        { name: 'f2', direction: 'minimize' },
      ],
      optimizer: { budget: 100 },
    }),
  );
  // two centres off the grid: A (0.45, 0.5) in the bowl's floor, B (0.1, 0.7) on the slope (each region's model is its own)
  const extra = [
    [0.45, 0.5],
    [0.1, 0.7],
  ];
  const o = observations(bowl, extra);
  const region = (center: string, length: number): RegionMemory => ({ center, length, successes: 0, failures: 0, weights: null, hyperparameters: null });
  // A's box (half-width 0.5) reaches x₁ = 0: its probe (0, 0.5) lies far beyond A in both objectives of the bowl;
  // B's (half-width 0.2) probe (0, 0.7) lies 0.1 ahead of B in both objectives of the slope
  const regions = [
    { centerRow: 36, region: region('e36', 1) },
    { centerRow: 37, region: region('e37', 0.4) },
  ];
  const context = { observations: o, space } as StrategyContext;
  const draws = [models(o, 3), models(observations(slope, extra), 3)];
  const probes = await regionProbes(regions, draws, context, ref, spread, PROBE_ROOM);
  assert.equal(probes.length, 1);
  assert.equal(probes[0].region, 1);
  assert.deepEqual(Array.from(probes[0].point), [0, 0.7]);
  assert.equal(probes[0].factor, 0);
  // with both kept, the first region's comes first
  const both = await regionProbes(regions, [draws[1], draws[1]], context, ref, spread, 2 * PROBE_ROOM);
  assert.deepEqual(
    both.map((p) => [p.region, ...p.point]),
    [
      [0, 0, 0.5],
      [1, 0, 0.7],
    ],
  );
  assert.deepEqual(await regionProbes(regions, draws, context, ref, spread, PROBE_ROOM - 1), [], 'no room, no probe');
});
