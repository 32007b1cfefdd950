import test from 'node:test';
import assert from 'node:assert/strict';
import { MATERIAL_NOISE_VARIANCE, noiseReason } from '../src/engine/campaign/noisy-front.js';
import { bestObjectives, campaignResults } from '../src/engine/campaign/results.js';
import { resultsCsv } from '../src/engine/campaign/results-csv.js';
import { initialState } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState } from '../src/engine/campaign/types.js';
import { fitHyperparameters } from '../src/engine/gp/fit.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function handMdl(overrides: { noise?: unknown; replicates?: number } = {}): Mdl {
  const noise = 'noise' in overrides ? overrides.noise : true;
  return mdlSchema.parse({
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1, ...(noise === undefined ? {} : { noise }) },
      { name: 'f2', direction: 'minimize', reference: 1, ...(noise === undefined ? {} : { noise }) },
    ],
    optimizer: { budget: 20, batch_size: 4, seed: 3, ...(overrides.replicates ? { replicates: overrides.replicates } : {}) },
  });
}

/**
 * Three designs far apart on a lengthscale of 0.001, so the kernel between them is exactly 0 and
 * each design's posterior is its own: with signal variance s² = 1 and noise σ² = 3 (standardized
 * units), a design measured k times has posterior mean μ + (k / (k + 3)) · (its mean − μ) and
 * latent variance 3 / (k + 3) (in units of the column's variance).
 *   A at x = 0.1: (0, 0.9) once; B at x = 0.5: (0.1, 0.5) twice; D at x = 0.9: (0.12, 0.47) once.
 * D is a lucky single measurement: on the raw values it is on the front; the model shrinks it
 * twice as hard as B (1/4 against 2/5), which leaves it dominated by B.
 */
function handState(mdl: Mdl): CampaignState {
  const rows = [
    { id: 'A', parameters: { x: 0.1 }, objectives: { f1: 0, f2: 0.9 } },
    { id: 'B1', parameters: { x: 0.5 }, objectives: { f1: 0.1, f2: 0.5 } },
    { id: 'B2', parameters: { x: 0.5 }, objectives: { f1: 0.1, f2: 0.5 } },
    { id: 'D', parameters: { x: 0.9 }, objectives: { f1: 0.12, f2: 0.47 } },
  ];
  const state = initialState(mdl, { warmStart: rows });
  state.hyperparameters = [0, 1].map(() => ({ lengthscales: [0.001], outputScale: 1, noise: 3 }));
  return state;
}

// column statistics, by hand: f1 mean 0.08, unbiased variance 0.0088 / 3; f2 mean 0.5925
const F1_STD = Math.sqrt(0.0088 / 3);
const F2_STD = Math.sqrt(((0.9 - 0.5925) ** 2 + 2 * (0.5 - 0.5925) ** 2 + (0.47 - 0.5925) ** 2) / 3);
const EXPECTED = {
  A: { f1: 0.08 + (0 - 0.08) / 4, f2: 0.5925 + (0.9 - 0.5925) / 4, sd: Math.sqrt(3 / 4) },
  B: { f1: 0.08 + (0.1 - 0.08) * 0.4, f2: 0.5925 + (0.5 - 0.5925) * 0.4, sd: Math.sqrt(3 / 5) },
  D: { f1: 0.08 + (0.12 - 0.08) / 4, f2: 0.5925 + (0.47 - 0.5925) / 4, sd: Math.sqrt(3 / 4) },
};

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} against ${expected}`);
}

test("a noisy campaign's front is the designs non-dominated by the in-sample posterior mean, replicates pooled (hand-computed)", () => {
  const mdl = handMdl();
  const results = campaignResults(mdl, handState(mdl));
  assert.equal(results.noisy, true);
  assert.match(results.noise_reason ?? '', /declares measurement noise on f1, f2/);
  assert.deepEqual(
    results.pareto_front.map((r) => [r.id, r.measurements]),
    [
      ['A', 1],
      ['B1', 2],
    ],
  );
  const [a, b] = results.pareto_front;
  assert.deepEqual(b.objectives, { f1: 0.1, f2: 0.5 }, 'the measured value is the mean of the measurements');
  close(a.predicted!.f1.mean, EXPECTED.A.f1, 'A f1');
  close(a.predicted!.f2.mean, EXPECTED.A.f2, 'A f2');
  close(b.predicted!.f1.mean, EXPECTED.B.f1, 'B f1');
  close(b.predicted!.f2.mean, EXPECTED.B.f2, 'B f2');
  close(a.predicted!.f1.sd, EXPECTED.A.sd * F1_STD, 'A f1 sd');
  close(b.predicted!.f2.sd, EXPECTED.B.sd * F2_STD, 'B f2 sd');

  // D: on the raw front, off the model's; its own prediction is still shown
  const d = results.evaluations.find((r) => r.id === 'D')!;
  assert.equal(d.is_pareto, false);
  close(d.predicted!.f2.mean, EXPECTED.D.f2, 'D f2');
  assert.ok(EXPECTED.B.f1 < EXPECTED.D.f1 && EXPECTED.B.f2 < EXPECTED.D.f2, 'B dominates D in the model');
  const b2 = results.evaluations.find((r) => r.id === 'B2')!;
  assert.equal(b2.design_id, 'B1');
  assert.equal(b2.is_pareto, true);

  // headline: the predicted values' hypervolume against (1, 1), by hand in 2-D
  const headline = (1 - EXPECTED.A.f1) * (1 - EXPECTED.A.f2) + (1 - EXPECTED.B.f1) * (EXPECTED.A.f2 - EXPECTED.B.f2);
  close(results.hypervolume, headline, 'headline hypervolume');
  // the raw measurements' hypervolume: A, B, D as measured
  close(results.measured_hypervolume, 1 * 0.1 + 0.9 * 0.4 + 0.88 * 0.03, 'measured hypervolume');

  const best = bestObjectives(mdl, handState(mdl));
  close(best.f1, EXPECTED.A.f1, 'best f1 is the best prediction');
  close(best.f2, EXPECTED.B.f2, 'best f2 is the best prediction');
});

test('a declared sd replaces the fitted noise in the front model', () => {
  // σ² = (sd / column std)² = 3 for each objective gives the same front as above
  const mdl = handMdl({ noise: true });
  const sdMdl = mdlSchema.parse({
    ...mdl,
    objectives: [
      { ...mdl.objectives[0], noise: { sd: Math.sqrt(3) * F1_STD } },
      { ...mdl.objectives[1], noise: { sd: Math.sqrt(3) * F2_STD } },
    ],
  });
  const state = handState(sdMdl);
  state.hyperparameters = state.hyperparameters!.map((h) => ({ ...h, noise: 0.001 }));
  const front = campaignResults(sdMdl, state).pareto_front;
  close(front[1].predicted!.f1.mean, EXPECTED.B.f1, 'B f1 with the declared sd');
  close(front[0].predicted!.f2.sd, EXPECTED.A.sd * F2_STD, 'A f2 sd with the declared sd');
});

test('the noise rule: declared, or fitted noise variance of at least 0.09 of the objective variance; false opts out', () => {
  const hyper = (noise: number) => [
    { lengthscales: [0.3], outputScale: 1, noise },
    { lengthscales: [0.3], outputScale: 1, noise: 0.001 },
  ];
  assert.equal(MATERIAL_NOISE_VARIANCE, 0.09);
  assert.equal(noiseReason(handMdl({ noise: undefined }), hyper(0.089)), null);
  assert.match(noiseReason(handMdl({ noise: undefined }), hyper(0.09)) ?? '', /fitted measurement noise of f1 is at least 30 %/);
  assert.equal(noiseReason(handMdl({ noise: false }), hyper(0.5)), null, 'noise: false declares exact measurements');
  assert.equal(noiseReason(handMdl({ noise: undefined }), null), null, 'no model, no judgement');
  assert.match(noiseReason(handMdl({ noise: { sd: 0.1 } }), null) ?? '', /declares/);
});

test('the fit is not asked when measurements are known to repeat: agreeing replicates, or a builtin evaluator without noise', () => {
  const material = [0.5, 0.5].map((noise) => ({ lengthscales: [0.3], outputScale: 1, noise }));
  const mdl = handMdl({ noise: undefined });
  const state = handState(mdl);
  // B1 and B2 agree: the measurements repeat, so a poor fit is no sign of noise
  assert.equal(noiseReason(mdl, material, state.evaluations), null);
  assert.match(noiseReason(mdl, material, [state.evaluations[0], state.evaluations[1], state.evaluations[3]]) ?? '', /fitted measurement noise/);
  const builtin = (noise?: number) => mdlSchema.parse({ ...mdl, evaluator: { type: 'builtin', name: 'zdt1', ...(noise ? { noise } : {}) } });
  assert.equal(noiseReason(builtin(), material, []), null, 'a builtin function is exact by construction');
});

test('a builtin evaluator with noise makes the campaign noisy whatever the fit, unless every objective declares noise: false', () => {
  const exact = [0.001, 0.001].map((noise) => ({ lengthscales: [0.3], outputScale: 1, noise }));
  const builtin = (noise: number | undefined, declared?: false) =>
    mdlSchema.parse({
      ...handMdl({ noise: declared }),
      evaluator: { type: 'builtin', name: 'zdt1', ...(noise === undefined ? {} : { noise }) },
    });
  assert.equal(
    noiseReason(builtin(0.05), exact, []),
    'the builtin evaluator adds measurement noise (a relative standard deviation of 5 %)',
    'stated in the MDL: no fit and no repeat is asked',
  );
  assert.match(
    noiseReason(builtin(0.07), null, []) ?? '',
    /relative standard deviation of 7 %/,
    'before any model too, and the share printed as a person writes it',
  );
  assert.equal(noiseReason(builtin(0, undefined), exact, []), null, 'noise 0 adds none');
  assert.equal(noiseReason(builtin(0.05, false), exact, []), null, 'noise: false on every objective overrides it');
});

test('repeated measurements of one design that disagree make a campaign noisy; agreeing ones do not', () => {
  const mdl = handMdl({ noise: undefined });
  const exact = [0.001, 0.001].map((noise) => ({ lengthscales: [0.3], outputScale: 1, noise }));
  const state = handState(mdl);
  state.hyperparameters = exact;
  // B1 and B2 agree
  assert.equal(noiseReason(mdl, exact, state.evaluations), null);
  assert.equal(campaignResults(mdl, state).noisy, false);
  state.evaluations[2] = { ...state.evaluations[2], objectives: { f1: 0.1, f2: 0.52 } };
  assert.equal(noiseReason(mdl, exact, state.evaluations), 'repeated measurements of one design disagree (f2 of B1 and B2)');
  assert.equal(campaignResults(mdl, { ...state }).noisy, true);
  assert.equal(noiseReason(handMdl({ noise: false }), exact, state.evaluations), null, 'not for objectives declared exact');
});

test('designs that share a first parameter value but not the others are no replicates; a third measurement is compared with the first', () => {
  const mdl = mdlSchema.parse({
    parameters: [
      { name: 'x', type: 'continuous', bounds: [0, 1] },
      { name: 'y', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 1 },
      { name: 'f2', direction: 'minimize', reference: 1 },
    ],
    optimizer: { budget: 20, batch_size: 4, seed: 3 },
  });
  const rows = [
    { id: 'P', parameters: { x: 0.5, y: 0.1 }, objectives: { f1: 0.1, f2: 0.5 } },
    { id: 'Q', parameters: { x: 0.5, y: 0.2 }, objectives: { f1: 0.3, f2: 0.2 } },
    { id: 'R', parameters: { x: 0.7, y: 0.1 }, objectives: { f1: 0.4, f2: 0.1 } },
  ];
  const state = initialState(mdl, { warmStart: rows });
  assert.equal(noiseReason(mdl, null, state.evaluations), null, 'P and Q differ in y: two designs');
  const again = initialState(mdl, { warmStart: [...rows, { id: 'P2', parameters: { x: 0.5, y: 0.1 }, objectives: { f1: 0.1, f2: 0.5 } }] });
  assert.equal(noiseReason(mdl, null, again.evaluations), null, 'P2 repeats P exactly');
  const differs = initialState(mdl, { warmStart: [...rows, { id: 'P2', parameters: { x: 0.5, y: 0.1 }, objectives: { f1: 0.1, f2: 0.55 } }] });
  assert.equal(noiseReason(mdl, null, differs.evaluations), 'repeated measurements of one design disagree (f2 of P and P2)');
});

test('a noiseless campaign reports the measured front, each design once, with no prediction fields, and the same hypervolume twice', () => {
  const mdl = handMdl({ noise: undefined });
  const state = handState(mdl);
  state.hyperparameters = state.hyperparameters!.map((h) => ({ ...h, noise: 0.001 }));
  const results = campaignResults(mdl, state);
  assert.equal(results.noisy, false);
  // B measured twice with the same values: one front row, its first measurement, with its count
  assert.deepEqual(
    results.pareto_front.map((r) => [r.id, r.design_id, r.measurements]),
    [
      ['A', undefined, undefined],
      ['B1', 'B1', 2],
      ['D', undefined, undefined],
    ],
  );
  assert.deepEqual(
    results.evaluations.filter((r) => r.is_pareto).map((r) => r.id),
    ['A', 'B1', 'B2', 'D'],
  );
  assert.ok(results.pareto_front.every((r) => r.predicted === undefined));
  close(results.hypervolume, results.measured_hypervolume, 'headline = measured');
  assert.equal(resultsCsv(mdl, results.evaluations).split('\n')[0], 'id,iteration,is_pareto,x,f1,f2');
});

test('the CSV of a noisy campaign adds measurements and each objective predicted ± sd at the end', () => {
  const mdl = handMdl();
  const csv = resultsCsv(mdl, campaignResults(mdl, handState(mdl)).pareto_front)
    .trim()
    .split('\n');
  assert.equal(csv[0], 'id,iteration,is_pareto,x,f1,f2,measurements,f1_predicted,f1_sd,f2_predicted,f2_sd');
  const b = csv[2].split(',');
  assert.equal(b[0], 'B1');
  assert.equal(b[6], '2');
  close(Number(b[7]), EXPECTED.B.f1, 'B f1 predicted in the CSV');
});

test('optimizer.replicates: the batch re-measures the front design that has fewer measurements than asked, at its exact values', async () => {
  const mdl = handMdl({ replicates: 2 });
  const next = await step(mdl, handState(mdl));
  assert.equal(next.proposals.length, 4);
  // a quarter of 4: one slot, to A (B already has two measurements)
  assert.deepEqual(next.proposals[3].parameters, { x: 0.1 });
  assert.ok(next.proposals.slice(0, 3).every((p) => p.parameters.x !== 0.1 && p.parameters.x !== 0.5));
  const without = await step(handMdl({ replicates: 1 }), handState(handMdl({ replicates: 1 })));
  assert.notDeepEqual(without.proposals[3].parameters, { x: 0.1 });
});

test('a fit with a known noise holds it fixed', () => {
  const random = new Random(4);
  const n = 30;
  const X = Float64Array.from({ length: n }, () => random.uniform());
  const raw = X.map((x) => Math.sin(6 * x) + 0.1 * random.normal());
  const mean = raw.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const y = raw.map((v) => (v - mean) / std);
  const fixed = fitHyperparameters(X, y, n, 1, { seed: 1, noise: 0.02 }).hyperparameters;
  close(fixed.noise, 0.02, 'the noise variance');
  const free = fitHyperparameters(X, y, n, 1, { seed: 1 }).hyperparameters;
  assert.ok(Math.abs(free.noise - 0.02) > 1e-6, 'a free fit estimates its own');
});

test("a noisy campaign's results list its partial measurements too, with their state and no prediction", () => {
  const mdl = handMdl();
  const state = handState(mdl);
  state.evaluations.push({ id: 'P', iteration: 0, parameters: { x: 0.3 }, objectives: { f1: 0.2 } });
  const results = campaignResults(mdl, state);
  assert.equal(results.noisy, true);
  assert.deepEqual(
    results.evaluations.map((r) => [r.id, r.status]),
    [
      ['A', 'measured'],
      ['B1', 'measured'],
      ['B2', 'measured'],
      ['D', 'measured'],
      ['P', 'partial'],
    ],
  );
  const partial = results.evaluations.find((r) => r.id === 'P')!;
  assert.deepEqual([partial.objectives, partial.is_pareto, partial.feasible, partial.predicted], [{ f1: 0.2 }, false, false, undefined]);
  assert.deepEqual(
    results.pareto_front.map((r) => r.id),
    ['A', 'B1'],
    'the front is the same without the partial row',
  );
});
