import test from 'node:test';
import assert from 'node:assert/strict';
import { mdlSchema } from '../src/engine/mdl/schema.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import type { Evaluator } from '../src/evaluators/types.js';
import { runLocalCampaign } from '../src/jobs/local-runner.js';

await initTensorBackend('wasm');

/**
 * DTLZ7 (d = 6) measured with noise: its front lies on the bound x2..x6 = 0, a thin slice of the
 * space, and f2 grows to about 20 away from it. Noisy EHVI is exactly 0 almost everywhere its
 * search looks (at and around the front's designs, which move with the candidate in every joint
 * draw, and wherever the model is sure a point is worse); before the fallback to EHVI over the
 * posterior means, such picks went to arbitrary points: 18 of them landed beyond f2 = 5 here.
 */
test('a noisy EHVI pick that finds no positive value falls back to EHVI over the posterior means, and stays near the front', async () => {
  const d = 6;
  const ref = [0.9454, 4.17];
  const mdl = mdlSchema.parse({
    name: 'noisy dtlz7',
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: ref.map((r, j) => ({ name: `f${j + 1}`, direction: 'minimize', reference: r, noise: true })),
    optimizer: { budget: 62, batch_size: 4, initial_samples: 10, seed: 4, strategy: 'global' },
  });
  const dtlz7 = testProblem('dtlz7')!;
  const random = new Random(4 * 7919 + 17);
  const trueF2: number[] = [];
  const labels: string[] = [];
  const evaluator: Evaluator = {
    kind: 'builtin',
    evaluate: (batch) =>
      Promise.resolve(
        batch.map((request) => {
          const f = dtlz7.evaluate(
            Float64Array.from({ length: d }, (_, i) => Number(request.parameters[`x${i + 1}`])),
            2,
          );
          trueF2.push(f[1]);
          return { ok: true as const, objectives: { f1: f[0] + 0.025 * random.normal(), f2: f[1] + 0.15 * random.normal() } };
        }),
      ),
  };
  await runLocalCampaign(mdl, evaluator, { onIteration: (report) => labels.push(report.strategy) });
  // the batches that took noisy EHVI alone (the reach picks of the first batches explore on purpose)
  const far: number[] = [];
  labels.forEach((label, i) => {
    if (label !== 'nehvi') return;
    const start = 10 + 4 * (i - 1);
    for (const f2 of trueF2.slice(start, start + 4)) if (f2 > 5) far.push(f2);
  });
  assert.ok(labels.filter((label) => label === 'nehvi').length >= 8, labels.join(', '));
  // 4 with the fallback (all below 8), 18 without it (up to 17)
  assert.ok(far.length <= 8, `${far.length} noisy-EHVI picks beyond f2 = 5: ${far.map((v) => v.toFixed(1)).join(', ')}`);
});
