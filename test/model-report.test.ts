import test from 'node:test';
import assert from 'node:assert/strict';
import { initialState } from '../src/engine/campaign/state.js';
import type { CampaignState, EvaluationRecord } from '../src/engine/campaign/types.js';
import { DenseGp } from '../src/engine/diagnostics/dense-gp.js';
import { checkMetrics } from '../src/engine/diagnostics/model-check.js';
import { diagnoseCampaign } from '../src/engine/diagnostics/report.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { Random } from '../src/engine/random.js';

function mdlOf(d: number, objectives: { name: string; direction?: 'minimize' | 'maximize' }[], extra: Record<string, unknown> = {}): Mdl {
  return mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: objectives.map((o) => ({ direction: 'minimize', ...o })),
    optimizer: { budget: 200, seed: 3 },
    ...extra,
  });
}

/** A state holding n evaluations of f at uniform points, and `pending` proposals awaiting results. */
function stateOf(mdl: Mdl, n: number, f: (x: number[], random: Random) => Record<string, number>, pending: number[][] = []): CampaignState {
  const random = new Random(11);
  const d = mdl.parameters.length;
  const evaluations: EvaluationRecord[] = Array.from({ length: n }, (_, i) => {
    const x = Array.from({ length: d }, () => random.uniform());
    return { id: `e${i}`, iteration: 1 + Math.floor(i / 10), parameters: Object.fromEntries(x.map((v, k) => [`x${k + 1}`, v])), objectives: f(x, random) };
  });
  return {
    ...initialState(mdl),
    iteration: 1 + Math.floor(n / 10),
    evaluations,
    referencePoint: mdl.objectives.map(() => 3),
    pending: pending.map((x, i) => ({ id: `p${i}`, iteration: 9, parameters: Object.fromEntries(x.map((v, k) => [`x${k + 1}`, v])) })),
  };
}

test('closed-form leave-one-out equals refitting without the point (same hyperparameters)', () => {
  const random = new Random(5);
  const n = 12;
  const d = 2;
  const X = Float64Array.from({ length: n * d }, () => random.uniform());
  const y = Float64Array.from({ length: n }, (_, i) => Math.sin(5 * X[i * d]) + X[i * d + 1] + 0.1 * random.normal());
  const h = { lengthscales: Float64Array.of(0.3, 0.7), outputScale: 1.3, noise: 0.02 };
  const loo = new DenseGp(X, y, n, d, h).leaveOneOut();
  for (const i of [0, 5, 11]) {
    const keep = Array.from({ length: n }, (_, k) => k).filter((k) => k !== i);
    const Xi = new Float64Array((n - 1) * d);
    keep.forEach((k, j) => Xi.set(X.subarray(k * d, k * d + d), j * d));
    const without = new DenseGp(
      Xi,
      Float64Array.from(keep, (k) => y[k]),
      n - 1,
      d,
      h,
    );
    const p = without.predict(X.slice(i * d, i * d + d), 1);
    assert.ok(Math.abs(p.mean[0] - loo.mean[i]) < 1e-9, `mean of point ${i}: ${p.mean[0]} vs ${loo.mean[i]}`);
    // the closed form's variance is of a measurement: latent variance plus noise
    assert.ok(Math.abs(p.variance[0] + h.noise - loo.variance[i]) < 1e-9, `variance of point ${i}`);
  }
});

test('check metrics by hand: R², standardized errors and interval coverage', () => {
  const metrics = checkMetrics([
    { id: 'a', measured: 1, predicted: 1.5, sd: 1 },
    { id: 'b', measured: 2, predicted: 2, sd: 1 },
    { id: 'c', measured: 3, predicted: 1, sd: 1 },
    { id: 'd', measured: 4, predicted: 4.5, sd: 0.25 },
  ]);
  // SST = 2.25 + 0.25 + 0.25 + 2.25 = 5; SSE = 0.25 + 0 + 4 + 0.25 = 4.5
  assert.ok(Math.abs(metrics.r2 - 0.1) < 1e-12);
  // z = -0.5, 0, 2, -2
  assert.ok(Math.abs(metrics.mean_standardized_error - -0.125) < 1e-12);
  assert.ok(Math.abs(metrics.rms_standardized_error - Math.sqrt(8.25 / 4)) < 1e-12);
  assert.equal(metrics.coverage_68, 0.5);
  assert.equal(metrics.coverage_95, 0.5);
  assert.equal(metrics.points, 4);
});

test('on a smooth known function the model check reports a high R² and calibrated intervals; importance finds the parameter that matters', () => {
  const mdl = mdlOf(3, [{ name: 'f' }, { name: 'g', direction: 'maximize' }]);
  const state = stateOf(mdl, 60, (x) => ({ f: Math.sin(2 * Math.PI * x[0]) + 0.2 * x[1], g: x[1] * x[1] }), [
    [0.25, 0.5, 0.5],
    [0.75, 0.9, 0.1],
  ]);
  const report = diagnoseCampaign(mdl, state);
  assert.equal(report.points, 60);
  assert.equal(report.evaluations, 60);
  const [f, g] = report.outputs;
  assert.equal(f.name, 'f');
  assert.equal(f.kind, 'objective');
  assert.ok(f.r2 > 0.95, `R² of f: ${f.r2}`);
  assert.ok(g.r2 > 0.95, `R² of g: ${g.r2}`);
  // maximized objectives are reported in their own direction
  for (const p of g.predictions) assert.ok(p.measured >= 0 && Math.abs(p.predicted - p.measured) < 0.2, JSON.stringify(p));
  assert.equal(f.predictions.length, 60);
  const [fi, gi] = report.importance;
  const sobol = (k: number) => fi.parameters[k].total_sobol;
  assert.ok(sobol(0) > 0.8 && sobol(2) < 0.05, JSON.stringify(fi.parameters));
  assert.ok(gi.parameters[1].total_sobol > 0.8 && gi.parameters[0].total_sobol < 0.05, JSON.stringify(gi.parameters));
  assert.ok(fi.parameters[0].lengthscale_share > fi.parameters[2].lengthscale_share);
  // candidates awaiting evaluation: the model's expectation at the known function's values
  assert.equal(report.next.length, 2);
  const [first] = report.next;
  assert.ok(Math.abs(first.predicted.f.mean - (1 + 0.1)) < 0.15, JSON.stringify(first.predicted));
  assert.ok(Math.abs(first.predicted.g.mean - 0.25) < 0.1, JSON.stringify(first.predicted));
  assert.ok(first.expected_improvement >= 0 && first.probability_feasible === 1);
});

test('on pure noise the model check explains nothing and its intervals still cover about as often as they should', () => {
  const mdl = mdlOf(2, [{ name: 'f' }]);
  const state = stateOf(mdl, 120, (_x, random) => ({ f: 5 + random.normal() }));
  const [f] = diagnoseCampaign(mdl, state).outputs;
  assert.ok(f.r2 < 0.1, `R² on noise: ${f.r2}`);
  assert.ok(f.coverage_95 > 0.85 && f.coverage_95 <= 1, `95 % coverage on noise: ${f.coverage_95}`);
  assert.ok(f.coverage_68 > 0.55 && f.coverage_68 < 0.85, `68 % coverage on noise: ${f.coverage_68}`);
  assert.ok(Math.abs(f.rms_standardized_error - 1) < 0.25, `RMS z on noise: ${f.rms_standardized_error}`);
});

test('too few evaluations give an empty report that says why; outcome constraints are checked too', () => {
  const mdl = mdlOf(2, [{ name: 'f' }], { outcomes: [{ name: 'purity' }], outcome_constraints: [{ expression: 'purity >= 0.5' }] });
  const withPurity = (state: CampaignState) => {
    state.evaluations.forEach((e) => (e.outcomes = { purity: Number(e.parameters.x2) }));
    return state;
  };
  const few = diagnoseCampaign(mdl, withPurity(stateOf(mdl, 3, (x) => ({ f: x[0] }))));
  assert.deepEqual(few.outputs, []);
  assert.match(few.message ?? '', /at least 5 successful evaluations; the campaign has 3/);
  const state = withPurity(stateOf(mdl, 40, (x) => ({ f: x[0] }), [[0.1, 0.9]]));
  const report = diagnoseCampaign(mdl, state);
  assert.deepEqual(
    report.outputs.map((o) => [o.name, o.kind]),
    [
      ['f', 'objective'],
      ['purity >= 0.5', 'constraint'],
    ],
  );
  assert.ok(report.outputs[1].r2 > 0.95);
  // x2 = 0.9: purity 0.9 is well inside the constraint
  assert.ok(report.next[0].probability_feasible > 0.9, String(report.next[0].probability_feasible));
});
