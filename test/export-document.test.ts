import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFolderDocument } from '../src/cli/export.js';
import { runCampaignFile } from '../src/cli/run.js';
import { step } from '../src/engine/campaign/step.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import type { CampaignState, EvaluationRecord } from '../src/engine/campaign/types.js';
import { validateMdl } from '../src/engine/mdl/parse.js';
import type { Mdl } from '../src/engine/mdl/schema.js';
import { builtinEvaluators } from '../src/engine/problems/registry.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { documentProblems } from '../src/service/export-checks.js';
import { exportedEvaluations, stateFromDocument, toldEvaluations } from '../src/service/export-document.js';
import { exportDocumentSchema, type ExportDocument } from '../src/service/export-schema.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';

function valid(document: unknown): Mdl {
  const result = validateMdl(document, { builtins: builtinEvaluators });
  assert.ok(result.ok, JSON.stringify(!result.ok && result.errors));
  return result.mdl;
}

/** A few iterations of ZDT1 told by hand, one candidate failing, the last batch left pending. */
async function campaignMidRun(mdl: Mdl): Promise<{ state: CampaignState; receipts: NonNullable<CampaignState['receipt']>[] }> {
  let state = initialState(mdl, { seed: 3 });
  const receipts = [];
  for (let k = 0; k < 3; k++) {
    const next = await step(mdl, state);
    receipts.push(next.receipt!);
    const results = next.proposals.map((p, i) =>
      k === 1 && i === 0 ? { id: p.id, error: 'the furnace tripped' } : { id: p.id, objectives: zdt1(p.parameters.x1 as number, p.parameters.x2 as number) },
    );
    state = tell(mdl, next.state, results).state;
  }
  return { state: (await step(mdl, state)).state, receipts };
}

await initTensorBackend('cpu');
const mdl = valid(zdt1Mdl({ budget: 20, batch: 2, seed: 3 }));
const { state, receipts } = await campaignMidRun(mdl);
const doc = runFolderDocument('/tmp/zdt1-run', { version: 1, mdl, seed: 3, cwd: '/tmp', state, receipts });

test('a run mid-iteration becomes a document the schema and the checks accept, and turns back into the same state', () => {
  assert.equal(state.pending.length, 2, 'the fixture stops with a batch pending');
  const parsed = exportDocumentSchema.parse(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(documentProblems(parsed, mdl), []);
  assert.equal(parsed.campaign.status, 'stopped', 'a run still running when it stopped continues like a stopped campaign');
  assert.deepEqual(
    parsed.evaluations.map((e) => e.status),
    [...Array(4).fill('completed'), 'failed', 'completed', 'completed', 'completed', 'pending', 'pending'],
  );
  assert.deepEqual(
    parsed.iterations.map((i) => [i.iteration, i.evaluated, i.failed, i.strategy]),
    [
      [1, 4, 0, 'initial-design'],
      [2, 2, 1, receipts[1].strategy],
      [3, 2, 0, receipts[2].strategy],
    ],
  );
  assert.deepEqual(
    parsed.iterations.map((i) => i.hypervolume),
    state.convergenceHistory,
  );
  // JSON drops undefined members; compare as JSON sees them
  assert.deepEqual(JSON.parse(JSON.stringify(stateFromDocument(parsed, mdl))), JSON.parse(JSON.stringify(state)));
});

test('told evaluations survive the document: failures keep their error, outcomes and feasibility are judged against the MDL', () => {
  const constrained = valid({
    ...zdt1Mdl({ evaluator: { type: 'external' } }),
    outcomes: [{ name: 'cost' }],
    outcome_constraints: [{ expression: 'cost <= 5' }],
  });
  const told: EvaluationRecord[] = [
    { id: 'eval_1', iteration: 1, parameters: { x1: 0.1, x2: 0.2 }, objectives: { f1: 0.1, f2: 3 }, outcomes: { cost: 4 } },
    { id: 'eval_2', iteration: 1, parameters: { x1: 0.3, x2: 0.4 }, objectives: { f1: 0.3, f2: 2 }, outcomes: { cost: 9 } },
    { id: 'eval_3', iteration: 1, parameters: { x1: 0.5, x2: 0.6 }, objectives: null, error: 'timed out' },
  ];
  const rows = exportedEvaluations(
    constrained,
    told,
    [{ id: 'eval_4', iteration: 2, parameters: { x1: 0.9, x2: 0.9 } }],
    new Map([['eval_4', { objectives: null, outcomes: null, error: 'spilled' }]]),
  );
  assert.deepEqual(
    rows.map((r) => [r.status, r.feasible, r.error]),
    [
      ['completed', true, null],
      ['completed', false, null],
      ['failed', null, 'timed out'],
      ['pending', null, 'spilled'],
    ],
  );
  assert.deepEqual(toldEvaluations({ evaluations: rows }), told);
});

test('the checks name each evaluation that does not fit the MDL, and an engine state that disagrees with the rest', () => {
  const mixed = valid({
    parameters: [
      { name: 'temperature', type: 'continuous', bounds: [300, 900] },
      { name: 'layers', type: 'integer', bounds: [1, 5] },
      { name: 'solvent', type: 'categorical', values: ['water', 'ethanol'] },
    ],
    objectives: [{ name: 'yield', direction: 'maximize' }],
    outcomes: [{ name: 'cost' }],
    optimizer: { budget: 10, seed: 1 },
  });
  const row = (over: Partial<ExportDocument['evaluations'][number]>): ExportDocument['evaluations'][number] => ({
    id: 'e1',
    iteration: 1,
    status: 'completed',
    parameters: { temperature: 500, layers: 2, solvent: 'water' },
    objectives: { yield: 1 },
    outcomes: { cost: 1 },
    error: null,
    feasible: true,
    abandoned: false,
    external_id: null,
    off_plan: false,
    ...over,
  });
  const base: ExportDocument = { ...doc, campaign: { ...doc.campaign, seed: 1 }, iterations: [], engine_state: null, evaluations: [] };
  const problems = documentProblems(
    {
      ...base,
      evaluations: [
        row({ id: 'a', iteration: 0, parameters: { temperature: 1000, layers: 2, solvent: 'water' } }),
        row({ id: 'b', iteration: 0, parameters: { temperature: 500, layers: 2.5, solvent: 'acetone' } }),
        row({ id: 'b', iteration: 0, outcomes: null }),
        row({ id: 'c', iteration: 0, status: 'failed', objectives: { yield: 2 } }),
        row({ id: 'd', iteration: 0, objectives: { yield: 1, purity: 3 } }),
      ],
    },
    mixed,
  );
  assert.deepEqual(
    problems.map((p) => p.path),
    [
      'evaluations[1].parameters.layers',
      'evaluations[1].parameters.solvent',
      'evaluations[2].id',
      'evaluations[2].outcomes',
      'evaluations[3].objectives',
      'evaluations[4].objectives.purity',
    ],
    'a warm-start row outside the bounds is allowed (datasets keep flagged rows); the rest is not',
  );
  assert.match(problems[1].message, /not one of the values/);
  assert.deepEqual(
    documentProblems({ ...base, evaluations: [row({ parameters: { temperature: 1000, layers: 2, solvent: 'water' } })] }, mixed).map((p) => p.path),
    ['evaluations[0].parameters.temperature', 'evaluations'],
  );

  const parsed = exportDocumentSchema.parse(JSON.parse(JSON.stringify(doc)));
  const disagreeing = documentProblems(
    { ...parsed, iterations: parsed.iterations.slice(1), engine_state: { ...parsed.engine_state!, seed: 4, pending: [] } },
    mdl,
  );
  assert.deepEqual(
    disagreeing.map((p) => p.path),
    ['engine_state.seed', 'iterations', 'evaluations'],
  );
});

test('kiln run --resume-from refuses a document it cannot continue, saying why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-resume-from-'));
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), isTTY: false };
  const attempt = async (content: unknown) => {
    const file = join(dir, 'campaign.json');
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    lines.length = 0;
    assert.equal(await runCampaignFile(undefined, { resumeFrom: file, out: join(dir, 'out') }, io), 1);
    return lines.join('\n');
  };
  assert.match(await attempt('{"kiln_export_version": 1'), /cannot resume: .* is not readable JSON/);
  assert.match(await attempt({ ...doc, kiln_export_version: 2 }), /is not a Kiln export document of version 1 \(kiln_export_version is 2\)/);
  const wrongParameter = structuredClone(doc);
  wrongParameter.evaluations[0].parameters = { x1: 0.5, x9: 1 };
  assert.match(await attempt(wrongParameter), /evaluations\[0\]\.parameters\.x2: is missing.*evaluations\[0\]\.parameters\.x9: is not a parameter/);
});
