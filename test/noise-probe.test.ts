import test from 'node:test';
import assert from 'node:assert/strict';
import { compileCampaign } from '../src/engine/campaign/compiled.js';
import { noiseProbe as probeOf, PROBE_NOISE_VARIANCE } from '../src/engine/campaign/noise-probe.js';
import { campaignResults } from '../src/engine/campaign/results.js';
import { initialState } from '../src/engine/campaign/state.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { NOISE_FLOOR } from '../src/engine/gp/priors.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { SearchSpace } from '../src/engine/space.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import type { Evaluator } from '../src/evaluators/types.js';
import { createEvaluator } from '../src/evaluators/create.js';
import { runLocalCampaign } from '../src/jobs/local-runner.js';
import { iterationSummary } from '../src/lifecycle/iteration-summary.js';

await initTensorBackend('wasm');

function twoObjectives(extra: { noise?: unknown; evaluator?: unknown; d?: number; budget?: number } = {}): Mdl {
  const d = extra.d ?? 1;
  return mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: ['f1', 'f2'].map((name) => ({ name, direction: 'minimize', reference: 1, ...('noise' in extra ? { noise: extra.noise } : {}) })),
    optimizer: { budget: extra.budget ?? 20, batch_size: 4, initial_samples: 8, seed: 5 },
    ...(extra.evaluator ? { evaluator: extra.evaluator } : {}),
  });
}

/** Four designs; C and D are on the measured front, D the closer to the reference point (1, 1) by the achievement. */
function fourDesigns(mdl: Mdl) {
  return initialState(mdl, {
    warmStart: [
      { id: 'A', parameters: { x1: 0.1 }, objectives: { f1: 0.9, f2: 0.95 } },
      { id: 'B', parameters: { x1: 0.3 }, objectives: { f1: 0.5, f2: 0.9 } },
      { id: 'C', parameters: { x1: 0.6 }, objectives: { f1: 0.1, f2: 0.7 } },
      { id: 'D', parameters: { x1: 0.8 }, objectives: { f1: 0.4, f2: 0.3 } },
    ],
  });
}

/** The probe as a step asks for it, on the campaign compiled for that step. */
function noiseProbe(mdl: Mdl, state: CampaignState, hyperparameters: Parameters<typeof probeOf>[3]) {
  return probeOf(mdl, compileCampaign(mdl, state, new SearchSpace(mdl), true), state, hyperparameters);
}

const fit = (noise: number) => [0, 1].map(() => ({ lengthscales: [0.3], outputScale: 1, noise }));

test('a noise probe re-measures the measured front design closest to the reference point, once, only where it can tell', () => {
  assert.equal(PROBE_NOISE_VARIANCE, 10 * NOISE_FLOOR);
  const mdl = twoObjectives();
  const state = fourDesigns(mdl);
  // achievement max_j (y_j - 1) / (1 - best_j), best = (0.1, 0.3): C max(-1, -0.43) = -0.43, D max(-0.67, -1) = -0.67
  assert.deepEqual(noiseProbe(mdl, state, fit(PROBE_NOISE_VARIANCE)), { x1: 0.8 });
  assert.equal(noiseProbe(mdl, state, fit(PROBE_NOISE_VARIANCE * 0.99)), null, 'a fit below the threshold looks exact');
  assert.equal(noiseProbe(mdl, state, null), null, 'no model, no probe');
  assert.equal(noiseProbe(twoObjectives({ noise: false }), fourDesigns(twoObjectives({ noise: false })), fit(0.05)), null, 'declared exact');
  const declared = twoObjectives({ noise: true });
  assert.equal(noiseProbe(declared, fourDesigns(declared), fit(0.05)), null, 'declared noisy: nothing to learn');
  const builtin = twoObjectives({ evaluator: { type: 'builtin', name: 'dtlz2', noise: 0.05 } });
  assert.equal(noiseProbe(builtin, fourDesigns(builtin), fit(0.05)), null, 'a builtin evaluator repeats its values');
  // the probe is out: pending, then measured and agreeing
  const asked = { ...state, pending: [{ id: 'P', iteration: 2, parameters: { x1: 0.8 } }] };
  assert.equal(noiseProbe(mdl, asked, fit(0.05)), null);
  const agreed = fourDesigns(mdl);
  agreed.evaluations.push({ ...agreed.evaluations[3], id: 'D2' });
  assert.equal(noiseProbe(mdl, agreed, fit(0.05)), null);
});

/** DTLZ2-like pair in d parameters, each measurement with fresh Gaussian noise of sd `sd`. */
function measured(d: number, sd: number, seed: number): Evaluator {
  const random = new Random(seed);
  return {
    kind: 'builtin',
    evaluate: (batch) =>
      Promise.resolve(
        batch.map(({ parameters }) => {
          const x = Array.from({ length: d }, (_, i) => Number(parameters[`x${i + 1}`]));
          const g = x.slice(1).reduce((s, v) => s + (v - 0.5) ** 2, 0);
          const f1 = (1 + g) * Math.cos((x[0] * Math.PI) / 2);
          const f2 = (1 + g) * Math.sin((x[0] * Math.PI) / 2);
          return { ok: true as const, objectives: { f1: f1 + sd * random.normal(), f2: f2 + sd * random.normal() } };
        }),
      ),
  };
}

function repeatedDesigns(mdl: Mdl, parameters: readonly Record<string, unknown>[]): number {
  const keys = parameters.map((p) => JSON.stringify(mdl.parameters.map((q) => p[q.name])));
  return keys.length - new Set(keys).size;
}

test('an undeclared noisy campaign learns its noise from one repeated measurement and reports the model front; an exact one spends one evaluation', async () => {
  const mdl = twoObjectives({ d: 3, budget: 24 });
  const labels: string[] = [];
  const noisy = await runLocalCampaign(mdl, measured(3, 0.05, 11), { onIteration: (report) => labels.push(report.strategy) });
  assert.equal(labels.filter((label) => label.endsWith(' + noise check')).length, 1, labels.join(', '));
  assert.equal(
    repeatedDesigns(
      mdl,
      noisy.evaluations.map((e) => e.parameters),
    ),
    1,
    'one probe',
  );
  const results = campaignResults(mdl, noisy);
  assert.equal(results.noisy, true);
  assert.match(results.noise_reason ?? '', /repeated measurements of one design disagree/);
  const exact = await runLocalCampaign(mdl, measured(3, 0, 11));
  assert.equal(
    repeatedDesigns(
      mdl,
      exact.evaluations.map((e) => e.parameters),
    ),
    1,
    'one probe, and no more once it agrees',
  );
  assert.equal(campaignResults(mdl, exact).noisy, false);
});

test("a builtin evaluator's noise is stated, so its campaign reports the model's front without a probe", async () => {
  const mdl = twoObjectives({ d: 3, budget: 16, evaluator: { type: 'builtin', name: 'dtlz2', noise: 0.05, seed: 4 } });
  const labels: string[] = [];
  const state = await runLocalCampaign(mdl, createEvaluator(mdl, { allowCommand: false }), { onIteration: (report) => labels.push(report.strategy) });
  assert.ok(!labels.some((label) => label.includes('noise check')), labels.join(', '));
  const results = campaignResults(mdl, state);
  assert.equal(results.noisy, true);
  assert.match(results.noise_reason ?? '', /builtin evaluator adds measurement noise \(a relative standard deviation of 5 %\)/);
  for (const row of results.pareto_front) assert.ok(row.predicted && Number.isFinite(row.predicted.f1.mean), 'each front row carries its prediction');
});

test('a noiseless front lists a design measured twice with the same values once, with its count; values that differ stay two points', () => {
  const mdl = twoObjectives({ noise: false });
  const state = fourDesigns(mdl);
  state.evaluations.push({ ...state.evaluations[3], id: 'D2' });
  const results = campaignResults(mdl, state);
  assert.equal(results.noisy, false);
  assert.deepEqual(
    results.pareto_front.map((r) => [r.id, r.design_id, r.measurements]),
    [
      ['C', undefined, undefined],
      ['D', 'D', 2],
    ],
  );
  assert.deepEqual(
    results.evaluations.filter((r) => r.is_pareto).map((r) => r.id),
    ['C', 'D', 'D2'],
    'every measurement is listed, and on the front',
  );
  // an objective declared exact may still differ between measurements: a second, different point
  state.evaluations.push({ ...state.evaluations[2], id: 'C2', objectives: { f1: 0.05, f2: 0.7 } });
  assert.deepEqual(
    campaignResults(mdl, state).pareto_front.map((r) => r.id),
    ['D', 'C2'],
  );
  // a point that dominates the repeated design takes both measurements off the front
  state.evaluations.push({ id: 'E', iteration: 1, parameters: { x1: 0.9 }, objectives: { f1: 0.3, f2: 0.2 } });
  const summary = iterationSummary(mdl, state, 1, { evaluations_completed: 8, best_objectives: {} });
  assert.deepEqual(summary.left_pareto_front, ['D', 'D2']);
  assert.equal(summary.pareto_size, 2);
});
