import assert from 'node:assert/strict';
import test from 'node:test';
import { createBuiltinFunction } from '../src/engine/problems/builtin-function.js';
import { builtinEvaluatorIssues, testProblem } from '../src/engine/problems/registry.js';
import { allCases, QUICK, resolveCase, type ResolvedCase } from '../bench/suite-cases.js';
import { FULL_SEEDS, markdownTable, normalizedGain, summarize, type Baseline } from '../bench/suite-report.js';
import { budgetPlan, suiteMdl, type RunResult } from '../bench/suite-run.js';

test('the suite covers the issue: problem families, objective counts, dimensions and budgets', () => {
  const cases = allCases();
  const ids = new Set(cases.map((c) => c.id));
  assert.equal(ids.size, cases.length, 'case ids are unique');
  for (const name of ['zdt1', 'zdt2', 'zdt3', 'zdt4', 'zdt6']) assert.ok(cases.some((c) => c.problem === name && c.family === 'zdt'));
  for (let k = 1; k <= 7; k++) {
    for (const m of [2, 3, 4]) for (const d of [m + 4, m + 9]) assert.ok(ids.has(`dtlz${k} m=${m} d=${d}`), `dtlz${k} m=${m} d=${d}`);
  }
  assert.ok(ids.has('dtlz2 m=5 d=9'), 'many objectives: dtlz2 m=5');
  for (let k = 1; k <= 9; k++) for (const m of [2, 3]) assert.ok(ids.has(`wfg${k} m=${m} d=24`));
  for (const name of ['re21', 're22', 're23', 're24', 're25', 're31', 're32', 're35', 're36', 're37', 're41', 're42', 're61']) assert.ok(ids.has(name), name);
  for (const name of ['c1-dtlz1', 'c2-dtlz2', 'c3-dtlz4', 'bnh', 'srn', 'tnk', 'osy', 'constr']) assert.ok(cases.some((c) => c.problem === name));
  assert.ok(cases.filter((c) => c.problem.startsWith('mw')).length >= 4);
  assert.ok(cases.filter((c) => c.family === 'noisy').length >= 6);
  for (const c of cases) {
    assert.ok(c.budgets.includes(90), `${c.id} runs at 90`);
    if (c.family !== 'noisy') assert.equal(c.budgets.includes(300), c.m >= 3 || c.family === 're', `${c.id} at 300`);
    const hard = ['dtlz1', 'dtlz3', 'dtlz6', 'zdt4', 'c1-dtlz1', 'mw1', 'mw2', 'mw4'].includes(c.problem) && c.family !== 'noisy';
    const large = ['zdt', 'dtlz', 'wfg'].includes(c.family) && c.d >= 30;
    assert.equal(c.budgets.includes(1000), large || c.family === 'wfg' || hard, `${c.id} at 1000`);
  }
  // the issue's count: the 24 cases every method leaves at 0 (18 DTLZ1/3/6, ZDT4, 2 C1-DTLZ1, MW1, 2, 4) and the 18 WFG
  assert.equal(cases.filter((c) => c.budgets.includes(1000) && c.d < 30).length, 42);
  assert.ok(QUICK.every((id) => ids.has(id)));
  assert.deepEqual(budgetPlan(90, 'kiln'), { evaluations: 90, initial: 10, batch: 4 });
  assert.deepEqual(budgetPlan(1000, 'kiln'), { evaluations: 1000, initial: 100, batch: 50 });
  assert.deepEqual(budgetPlan(300, 'nsga2'), { evaluations: 300, initial: 20, batch: 20 });
});

test("every case's MDL is a valid builtin campaign whose evaluator answers at the box's centre and corners", () => {
  for (const c of allCases()) {
    const resolved: ResolvedCase = { ...c, ref: c.ref ?? Array<number>(c.m).fill(1), refSource: '', maxHv: 1, maxSource: '' };
    const mdl = suiteMdl(resolved, 90, 'kiln', 1);
    assert.deepEqual(builtinEvaluatorIssues(mdl), [], c.id);
    const evaluate = createBuiltinFunction(suiteMdl(resolved, 90, 'kiln', 1, false));
    for (const corner of [0, 0.5, 1]) {
      const values = Object.fromEntries(
        mdl.parameters.map((p) => {
          if (p.type === 'categorical') throw new Error('no categorical parameters in the suite');
          const v = p.bounds[0] + corner * (p.bounds[1] - p.bounds[0]);
          return [p.name, p.type === 'integer' ? Math.round(v) : v];
        }),
      );
      const { objectives, outcomes } = evaluate(values);
      for (const v of [...Object.values(objectives), ...Object.values(outcomes)]) assert.ok(Number.isFinite(v), `${c.id} at ${corner}: ${v}`);
    }
    if (testProblem(c.problem)!.outcomes) assert.equal(mdl.outcome_constraints.length, mdl.outcomes.length);
  }
});

test('resolved cases: reference points at nadir + 10 % and maxima above what the problems reach at random', () => {
  const byId = new Map(allCases().map((c) => [c.id, c]));
  const dtlz2 = resolveCase(byId.get('dtlz2 m=3 d=7')!);
  assert.deepEqual(dtlz2.ref, [1.1, 1.1, 1.1]);
  // the box minus the unit ball's orthant
  assert.ok(Math.abs(dtlz2.maxHv - (1.331 - Math.PI / 6)) < 1e-12);
  const many = resolveCase(byId.get('dtlz2 m=5 d=9')!);
  assert.deepEqual(many.ref, [1.1, 1.1, 1.1, 1.1, 1.1]);
  assert.ok(Math.abs(many.maxHv - (1.1 ** 5 - Math.PI ** 2 / 60)) < 1e-12);
  const zdt6 = resolveCase(byId.get('zdt6 m=2 d=10')!);
  // ZDT6's ideal (0.2808, 0) and nadir (1, 0.9212), rounded up to 4 digits
  assert.deepEqual(zdt6.ref, [1.072, 1.014]);
  const re21 = resolveCase(byId.get('re21')!);
  assert.equal(re21.maxSource, 'published front (1000 points)');
  assert.ok(Math.abs(re21.ref[0] - (2886.3695604236013 + 0.1 * (2886.3695604236013 - 1237.8414230005742))) < 1e-9);
  const dtlz5 = resolveCase(byId.get('dtlz5 m=3 d=7')!);
  assert.deepEqual(
    dtlz5.ref.map((r) => +r.toFixed(6)),
    [0.777817, 0.777817, 1.1],
  );
});

const run = (caseId: string, method: RunResult['method'], seed: number, share: number): RunResult => ({
  key: `${caseId}|90|${method}|${seed}`,
  case: caseId,
  budget: 90,
  method,
  seed,
  hv: share,
  share,
  secondsPerIteration: 0.5,
  evaluations: 90,
});

test('the summary: shares, normalised gain, the stored figures compared and the targets checked', () => {
  const cases = ['a', 'b', 'c'].map((id): ResolvedCase => ({
    id,
    family: 'zdt',
    problem: 'zdt1',
    m: 2,
    d: 6,
    budgets: [90],
    ref: [1.1, 1.1],
    refSource: 'r',
    maxHv: 1,
    maxSource: 's',
  }));
  const runs = [
    // a: Kiln 0.9 / 0.7 (mean 0.8), random 0.5: gain (0.8 - 0.5) / 0.5 = 0.6; one seed below random's mean? no
    run('a', 'kiln', 1, 0.9),
    run('a', 'kiln', 2, 0.7),
    run('a', 'random', 1, 0.5),
    run('a', 'random', 2, 0.5),
    run('a', 'nsga2', 1, 0.85),
    // b: Kiln 1.0, random 0: gain 1; NSGA-II 0
    run('b', 'kiln', 1, 1),
    run('b', 'random', 1, 0),
    run('b', 'nsga2', 1, 0),
    // c: Kiln ends at 0 where random does not, below random and below NSGA-II: gain -0.25
    run('c', 'kiln', 1, 0),
    run('c', 'random', 1, 0.2),
    run('c', 'nsga2', 1, 0.1),
  ];
  assert.ok(Math.abs(normalizedGain(0.8, 0.5)! - 0.6) < 1e-15);
  assert.equal(normalizedGain(0.5, 1), undefined);
  const baseline: Baseline = {
    release: 'v0',
    date: '2026-01-01',
    machine: 'm',
    covers: 'a, b',
    rows: [
      { case: 'a', budget: 90, kiln_mean_share: 0.81, kiln_worst_share: 0.7, seeds: 2 },
      { case: 'b', budget: 90, kiln_mean_share: 0.9, kiln_worst_share: 0.9, seeds: 1 },
      { case: 'c', budget: 90, kiln_mean_share: 0.03, kiln_worst_share: 0.03, seeds: 1 },
    ],
  };
  const { report, baselineRows } = summarize(cases, runs, baseline);
  assert.deepEqual(
    report.rows.map((r) => [r.case, r.kiln_mean, r.kiln_worst, r.random_mean, r.nsga2_mean, r.previous_kiln_mean, r.change, r.flag]),
    [
      ['a', 80, 70, 50, 85, 81, -1, ''],
      ['b', 100, 100, 0, 0, 90, 10, ''],
      ['c', 0, 0, 20, 10, 3, -3, 'REGRESSED'],
    ],
  );
  assert.deepEqual(baselineRows[0], { case: 'a', budget: 90, kiln_mean_share: 0.8, kiln_worst_share: 0.7, seeds: 2 });
  const notes = report.notes!.join('\n');
  // gains 0.6, 1 and -0.25: median 0.6
  assert.match(notes, /median normalised gain .* over 3 90-evaluation cases: 0\.600 \(target >= 0\.8: MISSED\)/);
  assert.match(notes, /random's and NSGA-II's: MISSED on 3: a @90 \(80 % < 85 %\); c @90 \(0 % < 20 %\); c @90 \(0 % < 10 %\)/);
  assert.match(notes, /hypervolume 0 where random search does not: MISSED on 1: c @90/);
  assert.match(notes, /below random's mean: MISSED on 1: c @90/);
  assert.match(notes, /stored figures \(v0, 2026-01-01\): MISSED on 1: c @90 \(0 % vs 3 %\)/);
  assert.doesNotMatch(notes, /where some method reaches/);

  // a case where every method ends at 0 counts as gain 0, and the notes also give the median without it
  const zero = ['a', 'z'].map((id): ResolvedCase => ({ ...cases[0], id }));
  const both = summarize(zero, [...runs.filter((r) => r.case === 'a'), run('z', 'kiln', 1, 0), run('z', 'random', 1, 0), run('z', 'nsga2', 1, 0)], undefined);
  const zeroNotes = both.report.notes!.join('\n');
  assert.match(zeroNotes, /over 2 90-evaluation cases: 0\.300/);
  assert.match(zeroNotes, /over the 1 of them where some method reaches the reference box: 0\.600 \(in the other 1 every method ends at 0\)/);
  assert.match(zeroNotes, /no stored figures/);

  // the Markdown table: a row over fewer seeds than a full run says how many
  const lines = markdownTable(report.rows).trim().split('\n');
  assert.equal(lines.length, 2 + 3);
  assert.equal(lines[2], '| a (2 of 5 seeds) | 90 | 1.000 (s) | 80 / 70 | 50 / 50 | – | 85 / 85 | 0.5 | 81 |  |');
  assert.equal(lines[4], '| c (1 of 5 seeds) | 90 | 1.000 (s) | 0 / 0 | 20 / 20 | – | 10 / 10 | 0.5 | 3 | REGRESSED |');
  const full = markdownTable([{ ...report.rows[1], seeds: FULL_SEEDS }])
    .trim()
    .split('\n')[2];
  assert.ok(full.startsWith('| b | 90 |'), full);
});
