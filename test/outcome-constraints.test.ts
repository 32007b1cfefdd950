import test from 'node:test';
import assert from 'node:assert/strict';
import { isFeasible } from '../src/engine/campaign/feasibility.js';
import { campaignResults } from '../src/engine/campaign/results.js';
import { resultsCsv } from '../src/engine/campaign/results-csv.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import type { CampaignState, EvaluationResult } from '../src/engine/campaign/types.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { compileConstraint } from '../src/engine/mdl/expression.js';
import { validateMdl } from '../src/engine/mdl/validate.js';
import { mdlSchema, type Mdl } from '../src/engine/mdl/schema.js';
import { createBuiltinFunction } from '../src/engine/problems/builtin-function.js';
import { testProblem } from '../src/engine/problems/registry.js';
import { penalizedObjectives } from '../src/engine/strategies/feasibility.js';
import { nondominatedRanks } from '../src/engine/strategies/nsga2/sorting.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';

await initTensorBackend('wasm');

function c2Mdl(overrides: Record<string, unknown> = {}, d = 4): Mdl {
  return mdlSchema.parse({
    parameters: Array.from({ length: d }, (_, i) => ({ name: `x${i + 1}`, type: 'continuous', bounds: [0, 1] })),
    objectives: [1, 2].map((j) => ({ name: `f${j}`, direction: 'minimize', reference: 1.1 })),
    outcomes: [{ name: 'slack' }],
    outcome_constraints: [{ expression: 'slack >= 0' }],
    optimizer: { budget: 30, batch_size: 2, initial_samples: 10, seed: 4, ...overrides },
    evaluator: { type: 'builtin', name: 'c2-dtlz2' },
  });
}

async function run(mdl: Mdl, evaluate: (p: Record<string, number | string>) => EvaluationResult | Omit<EvaluationResult, 'id'>): Promise<CampaignState> {
  let state = initialState(mdl);
  while (state.status === 'running') {
    const next = await step(mdl, state);
    state = tell(
      mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, ...evaluate(p.parameters) }) as EvaluationResult),
    ).state;
  }
  return state;
}

test('an outcome constraint is an inequality over outcomes and objectives, checked with plain messages', () => {
  const base = {
    parameters: [{ name: 'x', type: 'continuous', bounds: [0, 1] }],
    objectives: [{ name: 'energy', direction: 'maximize' }],
    outcomes: [{ name: 'cycle_life', unit: 'cycles' }],
    optimizer: { budget: 10 },
  };
  const ok = validateMdl({ ...base, outcome_constraints: [{ expression: 'cycle_life - energy / 2 >= 500' }] });
  assert.ok(ok.ok, JSON.stringify(ok));
  const messages = (document: unknown) => {
    const result = validateMdl(document);
    return result.ok ? [] : result.errors.map((e) => `${e.path}: ${e.message}`);
  };
  assert.deepEqual(messages({ ...base, outcome_constraints: [{ expression: 'cycle_life == 500' }] }), [
    'outcome_constraints[0].expression: an outcome constraint must be an inequality (<=, >=, < or >): a measured value never lands exactly on a number',
  ]);
  assert.match(
    messages({ ...base, outcome_constraints: [{ expression: 'x >= 0.5' }] })[0],
    /unknown outcome or objective "x" at position 1 \(outcome or objectives: energy, cycle_life\)/,
  );
  assert.match(messages({ ...base, outcomes: [{ name: 'x' }] })[0], /outcomes\[0\]\.name: "x" is already the name of a parameter/);
  assert.match(messages({ ...base, outcomes: [{ name: 'energy' }] })[0], /outcomes\[0\]\.name: "energy" is already the name of an objective/);
});

test('slacks are signed margins: right − left for <=, left − right for >=, −∞ where undefined', () => {
  const names = ['a', 'b'];
  const slack = (expression: string, values: Record<string, number>) => {
    const compiled = compileConstraint(expression, names);
    assert.ok(compiled.ok);
    return compiled.constraint.slack(values);
  };
  assert.equal(slack('a + b <= 3', { a: 1, b: 0.5 }), 1.5);
  assert.equal(slack('a + b <= 3', { a: 2, b: 2 }), -1);
  assert.equal(slack('a >= 2 * b', { a: 5, b: 1 }), 3);
  assert.equal(slack('sqrt(a) >= 1', { a: -1, b: 0 }), -Infinity);
});

test("C2-DTLZ2 reports its slack by BoTorch's formula and its feasible front has the known hypervolume", () => {
  const fn = createBuiltinFunction(c2Mdl());
  // x1 = 0.5, on the front: f = (cos 45°, sin 45°), inside the middle ball of radius √2·0.2
  const middle = fn({ x1: 0.5, x2: 0.5, x3: 0.5, x4: 0.5 });
  assert.ok(Math.abs(middle.objectives.f1 - Math.SQRT1_2) < 1e-12);
  assert.ok(Math.abs(middle.outcomes.slack - 0.08) < 1e-12, `slack ${middle.outcomes.slack}`);
  // x1 = 0.25 (22.5°): outside every ball; by hand: (f1 − 1)² + f2² − r² = 0.1131, centre term 0.0012 + 0.0934 − 0.08
  const gap = fn({ x1: 0.25, x2: 0.5, x3: 0.5, x4: 0.5 });
  const [f1, f2] = [Math.cos(Math.PI / 8), Math.sin(Math.PI / 8)];
  const expected = -Math.min((f1 - 1) ** 2 + f2 ** 2 - 0.04, (f1 - Math.SQRT1_2) ** 2 + (f2 - Math.SQRT1_2) ** 2 - 0.08);
  assert.ok(Math.abs(gap.outcomes.slack - expected) < 1e-12);
  assert.ok(gap.outcomes.slack < 0);
  const best = testProblem('c2-dtlz2')!.maxHypervolume!(2, [1.1, 1.1])!;
  assert.ok(Math.abs(best - 0.3996) < 0.002, `maximum hypervolume ${best} (BoTorch: 0.3996 from NSGA-II)`);
});

test('only feasible evaluations form the front, the hypervolume and the best values; every row says whether it is feasible', async () => {
  const mdl = c2Mdl();
  const fn = createBuiltinFunction(mdl);
  const state = await run(mdl, (p) => fn(p));
  const results = campaignResults(mdl, state);
  assert.equal(results.evaluations.length, 30);
  for (const row of results.evaluations) {
    assert.equal(row.feasible, row.outcomes!.slack >= 0, row.id);
    if (row.is_pareto) assert.ok(row.feasible, `${row.id} is on the front but infeasible`);
  }
  // independent check: the hypervolume of the feasible rows alone
  const feasible = results.evaluations.filter((r) => r.feasible);
  assert.ok(feasible.length > 0 && feasible.length < 30, `${feasible.length} feasible`);
  const Y = Float64Array.from(feasible.flatMap((r) => [r.objectives.f1, r.objectives.f2]));
  assert.ok(Math.abs(hypervolume(Y, feasible.length, 2, [1.1, 1.1]) - results.hypervolume) < 1e-12);
  const csv = resultsCsv(mdl, results.evaluations).split('\n');
  assert.equal(csv[0], 'id,iteration,is_pareto,x1,x2,x3,x4,f1,f2,slack,feasible');
  assert.match(csv[1], /,(true|false)$/);
});

test('a campaign whose first design has no feasible point seeks feasibility, then improves the feasible front', async () => {
  // feasible only in a small corner of the square: x1, x2 ≥ 0.75 (one sixteenth of it)
  const mdl = mdlSchema.parse({
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize', reference: 2 },
      { name: 'f2', direction: 'minimize', reference: 2 },
    ],
    outcomes: [{ name: 'margin' }],
    outcome_constraints: [{ expression: 'margin >= 0' }],
    optimizer: { budget: 30, batch_size: 2, initial_samples: 6, seed: 11 },
  });
  let infeasibleDesign = true;
  const state = await run(mdl, (p) => {
    const x1 = Number(p.x1);
    const x2 = Number(p.x2);
    return { objectives: { f1: x1, f2: 2 - x2 - 0.5 * x1 }, outcomes: { margin: Math.min(x1, x2) - 0.75 } };
  });
  const design = state.evaluations.filter((e) => e.iteration === 1);
  infeasibleDesign = design.every((e) => e.outcomes!.margin < 0);
  const later = state.evaluations.filter((e) => e.iteration > 1);
  const found = later.filter((e) => e.outcomes!.margin >= 0).length;
  assert.ok(found >= later.length / 2, `${found} of ${later.length} model-guided proposals feasible (design all infeasible: ${infeasibleDesign})`);
  assert.ok(state.convergenceHistory.at(-1)! > 0);
});

test("Deb's constrained domination: feasible rows dominate infeasible ones, which rank by their violation", () => {
  // rows: two feasible, two infeasible (violations 0.5 and 2 in slack units of 1)
  const Y = Float64Array.of(0.2, 0.9, 0.8, 0.1, 0.0, 0.0, 0.1, 0.1);
  const S = Float64Array.of(0.3, 0, -0.5, -2);
  const penalized = penalizedObjectives(Y, S, 4, 2, 1, [1, 1], [1, 1], [1]);
  assert.deepEqual(Array.from(penalized.subarray(0, 4)), [0.2, 0.9, 0.8, 0.1]);
  assert.deepEqual(Array.from(penalized.subarray(4)), [2.5, 2.5, 4, 4]);
  assert.deepEqual(Array.from(nondominatedRanks(penalized, 4, 2)), [0, 0, 1, 2]);
});

test('outcome constraints reach every strategy: trust regions and NSGA-II propose feasible points on C2-DTLZ2', async () => {
  const random = await run(c2Mdl({ method: 'random', seed: 5, budget: 40 }), (p) => createBuiltinFunction(c2Mdl())(p));
  const share = (s: CampaignState) => {
    const later = s.evaluations.filter((e) => e.iteration > 1);
    return later.filter((e) => e.outcomes!.slack >= 0).length / later.length;
  };
  for (const overrides of [{ strategy: 'trust-region' }, { method: 'nsga2', batch_size: 10 }]) {
    const mdl = c2Mdl({ ...overrides, seed: 5, budget: 40 });
    const fn = createBuiltinFunction(mdl);
    const state = await run(mdl, (p) => fn(p));
    assert.ok(share(state) > share(random), `${JSON.stringify(overrides)}: feasible share ${share(state)} vs random ${share(random)}`);
    // the state (with its outcome-aware memory) survives JSON
    assert.deepEqual(JSON.parse(JSON.stringify(state)), state);
  }
});

test('an evaluation that lacks a declared outcome keeps its objectives (a partial measurement) and never counts as feasible', async () => {
  const mdl = c2Mdl();
  const next = await step(mdl, initialState(mdl));
  const { state } = tell(
    mdl,
    next.state,
    next.proposals.map((p) => ({ id: p.id, objectives: { f1: 0.5, f2: 0.5 } })),
  );
  assert.ok(state.evaluations.every((e) => e.error === undefined && e.objectives!.f1 === 0.5 && Object.keys(e.outcomes!).length === 0));
  assert.ok(
    state.evaluations.every((e) => !isFeasible(mdl, e)),
    'an unmeasured outcome cannot show a constraint holds',
  );
  const nothing = tell(
    mdl,
    next.state,
    next.proposals.map((p) => ({ id: p.id, objectives: { f1: Number.NaN, f2: Number.NaN } })),
  ).state;
  assert.ok(
    nothing.evaluations.every((e) => e.objectives === null && e.error === 'no finite value for f1, f2, slack'),
    'nothing measured is a failure naming it all',
  );
});
