import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  // each test's campaign waits for the lab while it runs: one slot each
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '3' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

type Candidate = { id: string; iteration: number; parameters: { x1: number; x2: number } };

async function startedExternal(name: string, budget = 8): Promise<{ id: string; first: Candidate[] }> {
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl: zdt1Mdl({ evaluator: null, budget, batch: 2 }) });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  const first = await eventually(
    async () => {
      const data = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
      return data.length > 0 ? data : undefined;
    },
    30_000,
    'the initial design',
  );
  return { id, first };
}

const csvHeaders = { 'Content-Type': 'text/csv' };

describe('results entered by people', () => {
  test('a filled CSV worklist, as text/csv and as a multipart file: partial batches, failed and abandoned rows, partial measurements', async () => {
    const { id, first } = await startedExternal('csv-lab');
    assert.equal(first.length, 4);
    const path = `/v1/campaigns/${id}/evaluations`;
    const [a, b, c, d] = first;
    const va = zdt1(a.parameters.x1, a.parameters.x2);
    const vb = zdt1(b.parameters.x1, b.parameters.x2);

    // problems are listed by line and column, nothing is stored
    const bad = await api('POST', path, `id,x1,x2,f1,f2\n${a.id},0.1,0.2,abc,1\n,0.3,,1,2\n${b.id},,,1,2\n`, csvHeaders);
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(
      bad.json.error.details.errors.map((e: { path: string }) => e.path),
      ['rows[2].f1', 'rows[3].id'],
    );
    const noId = await api('POST', path, `f1,f2\n1,2\n`, csvHeaders);
    assert.equal(noId.status, 422, noId.text);
    assert.match(noId.json.error.message, /id column/);
    assert.equal((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data.length, 4, 'a refused upload stores nothing');

    // a half-filled worklist (parameter and unit columns ignored, the unfilled row left for later),
    // with a partial measurement (f2 empty)
    const worklist = [
      'id,iteration,x1,x2,f1,f2,status,reason',
      `${a.id},1,${a.parameters.x1},${a.parameters.x2},${va.f1},${va.f2},,`,
      `${b.id},1,${b.parameters.x1},${b.parameters.x2},${vb.f1},,,`,
      `${c.id},1,${c.parameters.x1},${c.parameters.x2},,,,`,
    ].join('\r\n');
    const firstUpload = await api('POST', path, worklist, csvHeaders);
    assert.equal(firstUpload.status, 200, firstUpload.text);
    assert.deepEqual(firstUpload.json.data, { accepted: 2, duplicates: 0, awaiting: 2, partial: [{ id: b.id, missing: ['f2'] }] }, 'the blank cell is named');
    assert.deepEqual(
      ((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[]).map((x) => x.id),
      [c.id, d.id],
    );

    // the rest as a multipart file: one failed with a reason, one abandoned
    const form = new FormData();
    form.append(
      'file',
      new Blob([`id,f1,f2,status,reason\n${c.id},,,failed,sample cracked\n${d.id},,,abandoned,furnace down\n`], { type: 'text/csv' }),
      'worklist.csv',
    );
    const second = await api('POST', path, form);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.data, { accepted: 2, duplicates: 0, awaiting: 0, partial: [] });
    // the same upload again is harmless
    const again = (await api('POST', path, worklist, csvHeaders)).json.data;
    assert.deepEqual([again.accepted, again.duplicates], [0, 2]);

    const next = await eventually(
      async () => {
        const data = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
        return data.length > 0 ? data : undefined;
      },
      30_000,
      'the second batch',
    );
    assert.ok(
      next.every((x) => x.iteration === 2),
      JSON.stringify(next),
    );
    const r = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.deepEqual(
      r.evaluations.map((e: { id: string; objectives: unknown; is_pareto: boolean }) => [e.id, e.objectives, e.is_pareto]),
      [
        [a.id, va, true],
        [b.id, { f1: vb.f1 }, false],
      ],
      'the partial measurement is stored with what was measured, off the front',
    );
    assert.deepEqual(
      r.failed_evaluations.map((e: { id: string; error: string; status: string; abandoned?: boolean }) => [e.id, e.status, e.error, e.abandoned ?? false]),
      [
        [c.id, 'failed', 'sample cracked', false],
        [d.id, 'abandoned', 'furnace down', true],
      ],
      'the reason as given, the state in its own member',
    );
    const csv = await api('GET', `/v1/campaigns/${id}/results?format=csv`);
    assert.match(csv.text, new RegExp(`${b.id},1,false,[^\\n]*,${vb.f1},,partial,\\n`), 'the unmeasured cell is empty in the export, the row partial');
    assert.match(csv.text, new RegExp(`${d.id},1,false,[^\\n]*,,,abandoned,furnace down\\n`), 'an abandoned row is listed with its reason');
  });

  test('JSON entries: null is not measured, status failed and abandoned, and what is refused', async () => {
    const { id, first } = await startedExternal('json-lab');
    const path = `/v1/campaigns/${id}/evaluations`;
    const [a, b, c] = first;
    const refused = await api('POST', path, {
      evaluations: [
        { id: a.id, status: 'abandoned', objectives: { f1: 1, f2: 1 } },
        { id: b.id, objectives: { f1: 1, f2: 2 }, error: 'but also broken' },
        { id: c.id, status: 'measured' },
      ],
    });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(
      refused.json.error.details.errors.map((e: { path: string }) => e.path),
      ['evaluations[0].objectives', 'evaluations[1].error', 'evaluations[2].objectives'],
    );
    const ok = await api('POST', path, {
      evaluations: [
        { id: a.id, objectives: { f1: 0.25, f2: null } },
        { id: b.id, status: 'failed', reason: 'no signal' },
        { id: c.id, objectives: { f1: null, f2: null } },
      ],
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.data, { accepted: 3, duplicates: 0, awaiting: 1, partial: [{ id: a.id, missing: ['f2'] }] });
  });

  test('a posted value is corrected: the history keeps the old value, results and the next iterations use the new one', async () => {
    const { id, first } = await startedExternal('corrections', 6);
    const path = `/v1/campaigns/${id}/evaluations`;
    const [a, b, c, d] = first;
    const value = (x: Candidate) => zdt1(x.parameters.x1, x.parameters.x2);

    // no result yet: nothing to correct; an unknown id: 404
    const early = await api('PUT', `${path}/${a.id}`, { objectives: value(a) });
    assert.equal(early.status, 409, early.text);
    assert.match(early.json.error.message, /no result yet/);
    assert.equal((await api('PUT', `${path}/eval_nope`, { objectives: value(a) })).status, 404);

    // a typo corrected while the batch is still out
    const typo = { f1: value(a).f1 * 10, f2: value(a).f2 };
    assert.equal((await api('POST', path, { evaluations: [{ id: a.id, objectives: typo }] })).status, 200);
    const fixed = await api('PUT', `${path}/${a.id}`, { objectives: value(a), comment: 'decimal point' });
    assert.equal(fixed.status, 200, fixed.text);
    assert.equal(fixed.json.data.changed, true);
    assert.deepEqual(fixed.json.data.correction.previous.objectives, typo);
    assert.deepEqual(fixed.json.data.correction.corrected.objectives, value(a));
    assert.equal(fixed.json.data.correction.comment, 'decimal point');
    assert.ok(fixed.json.data.correction.corrected_by.length > 0);
    const same = await api('PUT', `${path}/${a.id}`, { objectives: value(a) });
    assert.deepEqual([same.json.data.changed, same.json.data.correction], [false, null], 'the same values again record nothing');
    const invalid = await api('PUT', `${path}/${a.id}`, { objectives: { f1: 'x', f2: 1 } });
    assert.equal(invalid.status, 422, invalid.text);
    assert.deepEqual(
      invalid.json.error.details.errors.map((e: { path: string }) => e.path),
      ['objectives.f1'],
    );

    // the rest of the batch, then a correction of an evaluation already stored (a failure made a value)
    const rest = await api('POST', path, {
      evaluations: [
        { id: b.id, objectives: value(b) },
        { id: c.id, error: 'lost the sample' },
        { id: d.id, objectives: value(d) },
      ],
    });
    assert.equal(rest.status, 200, rest.text);
    await eventually(
      async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.current_iteration >= 1 ? true : undefined),
      30_000,
      'the first iteration to be stored',
    );
    const found = await api('PUT', `${path}/${c.id}`, { objectives: value(c), comment: 'sample found' });
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(found.json.data.correction.previous, { status: 'failed', objectives: null, outcomes: null, error: 'lost the sample' });
    assert.deepEqual(found.json.data.result.status, 'measured');

    const r = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    const byId = new Map(r.evaluations.map((e: { id: string; objectives: unknown }) => [e.id, e.objectives]));
    assert.deepEqual(byId.get(a.id), value(a), 'the corrected value, not the typo');
    assert.deepEqual(byId.get(c.id), value(c), 'the stored failure is now a measurement');
    assert.ok(!r.failed_evaluations.some((e: { id: string }) => e.id === c.id));

    const history = await api('GET', `/v1/campaigns/${id}/corrections`);
    assert.equal(history.status, 200, history.text);
    assert.deepEqual(
      history.json.data.map((h: { evaluation_id: string; comment: string }) => [h.evaluation_id, h.comment]),
      [
        [a.id, 'decimal point'],
        [c.id, 'sample found'],
      ],
    );
    const one = await api('GET', `/v1/campaigns/${id}/corrections?evaluation_id=${c.id}`);
    assert.equal(one.json.data.length, 1);

    // the campaign finishes on the corrected data: the next receipt's data hash covers the corrected values
    for (;;) {
      const status = (await api('GET', `/v1/campaigns/${id}`)).json.data.status;
      if (status !== 'running') break;
      const batch = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
      if (batch.length > 0) await api('POST', path, { evaluations: batch.map((x) => ({ id: x.id, objectives: value(x) })) });
      await new Promise((done) => setTimeout(done, 100));
    }
    const exported = (await api('GET', `/v1/campaigns/${id}/export`)).json;
    const told = new Map(exported.evaluations.map((e: { id: string; objectives: unknown }) => [e.id, e.objectives]));
    assert.deepEqual(told.get(a.id), value(a));
    assert.deepEqual(told.get(c.id), value(c));
    assert.equal(exported.iterations[1].receipt.evaluations_seen, 4, 'the second batch was proposed from the four first evaluations');
  });
});

describe('the corrections list', () => {
  test('is paged like the other lists, and one result keeps at most 20 corrections: the next is a 409 that points to its history', async () => {
    const { id, first } = await startedExternal('many corrections');
    const path = `/v1/campaigns/${id}/evaluations`;
    const [a, b] = first;
    assert.equal((await api('POST', path, { evaluations: [{ id: a.id, objectives: { f1: 0, f2: 1 } }] })).status, 200);
    for (let k = 1; k <= 20; k++) {
      const corrected = await api('PUT', `${path}/${a.id}`, { objectives: { f1: k / 100, f2: 1 }, comment: `take ${k}` });
      assert.equal(corrected.status, 200, `correction ${k}: ${corrected.text}`);
    }
    const refused = await api('PUT', `${path}/${a.id}`, { objectives: { f1: 0.5, f2: 1 } });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error.code, 'INVALID_STATE');
    assert.equal(refused.json.error.details.limit, 20);
    assert.match(refused.json.error.message, new RegExp(`corrected 20 times.*corrections\\?evaluation_id=${a.id}`));
    const same = await api('PUT', `${path}/${a.id}`, { objectives: { f1: 0.2, f2: 1 } });
    assert.deepEqual([same.status, same.json.data.changed], [200, false], 'its current values again: nothing to record, no refusal');
    const pending = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
    assert.ok(pending.some((x) => x.id === b.id));
    assert.equal((await api('POST', path, { evaluations: [{ id: b.id, objectives: { f1: 1, f2: 1 } }] })).status, 200);
    assert.equal((await api('PUT', `${path}/${b.id}`, { objectives: { f1: 0.9, f2: 1 } })).status, 200, 'the bound is per result');

    // pages of 7: 21 corrections in 3 pages, oldest first, none twice
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await api('GET', `/v1/campaigns/${id}/corrections?per_page=7&page=${page}`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.meta, { page, per_page: 7, total: 21, total_pages: 3 });
      assert.equal(res.json.data.length, 7);
      seen.push(...res.json.data.map((c: { comment: string | null; evaluation_id: string }) => c.comment ?? c.evaluation_id));
    }
    assert.deepEqual(seen, [...Array.from({ length: 20 }, (_, k) => `take ${k + 1}`), b.id]);
    const past = await api('GET', `/v1/campaigns/${id}/corrections?per_page=7&page=4`);
    assert.deepEqual([past.json.data, past.json.meta.total], [[], 21]);
    const firstPage = await api('GET', `/v1/campaigns/${id}/corrections`);
    assert.deepEqual([firstPage.json.data.length, firstPage.json.meta.per_page], [20, 20], 'default: 20 a page');
    const one = await api('GET', `/v1/campaigns/${id}/corrections?evaluation_id=${b.id}`);
    assert.deepEqual([one.json.data.length, one.json.meta.total], [1, 1]);
    const tooMany = await api('GET', `/v1/campaigns/${id}/corrections?per_page=1000`);
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.equal(tooMany.json.error.details.errors[0].path, 'per_page');
  });
});

describe('warm starts from a lab notebook', () => {
  test('the id column is kept as each evaluation external id, and rows marked failed are failures of iteration 0', async () => {
    const form = new FormData();
    const lines = [
      'sample,x1,x2,f1,f2,status,reason',
      'S-01,0.1,0.2,0.1,2.5,,',
      'S-02,0.5,0.1,0.5,1.2,,',
      'S-03,0.9,0.9,,,failed,crucible cracked',
      'S-04,0.3,0.6,0.3,4.1,,',
    ];
    form.append('file', new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }), 'notebook.csv');
    form.append('name', 'notebook');
    const uploaded = await api('POST', '/v1/datasets', form);
    assert.equal(uploaded.status, 201, uploaded.text);
    const datasetId = uploaded.json.data.id as string;

    const mdl = zdt1Mdl({ evaluator: null, budget: 6, batch: 2 });
    const wrongColumn = await api('POST', '/v1/campaigns', { name: 'warm', domain: 'benchmark', mdl, dataset_id: datasetId, id_column: 'sample_id' });
    assert.equal(wrongColumn.status, 422, wrongColumn.text);
    assert.deepEqual(
      wrongColumn.json.error.details.errors.map((e: { path: string }) => e.path),
      ['id_column'],
    );
    const alone = await api('POST', '/v1/campaigns', { name: 'warm', domain: 'benchmark', mdl, id_column: 'sample' });
    assert.equal(alone.status, 422, alone.text);

    const created = await api('POST', '/v1/campaigns', { name: 'warm', domain: 'benchmark', mdl, dataset_id: datasetId, id_column: 'sample' });
    assert.equal(created.status, 201, created.text);
    const id = created.json.data.id as string;
    const r = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.deepEqual(
      r.evaluations.map((e: { external_id: string; iteration: number; objectives: unknown }) => [e.external_id, e.iteration, e.objectives]),
      [
        ['S-01', 0, { f1: 0.1, f2: 2.5 }],
        ['S-02', 0, { f1: 0.5, f2: 1.2 }],
        ['S-04', 0, { f1: 0.3, f2: 4.1 }],
      ],
    );
    assert.deepEqual(
      r.failed_evaluations.map((e: { external_id: string; iteration: number; error: string }) => [e.external_id, e.iteration, e.error]),
      [['S-03', 0, 'crucible cracked']],
    );
    const csv = await api('GET', `/v1/campaigns/${id}/results?format=csv`);
    assert.equal(csv.text.split('\n')[0], 'id,iteration,is_pareto,x1,x2,f1,f2,external_id,status,reason');
    assert.match(csv.text, /,S-01,measured,\n/);
    assert.match(csv.text, /,S-03,failed,crucible cracked\n/, 'the failed row is in the CSV too, with its state and reason');
    const exported = (await api('GET', `/v1/campaigns/${id}/export`)).json;
    assert.deepEqual(
      exported.evaluations.map((e: { external_id: string; status: string }) => [e.external_id, e.status]),
      [
        ['S-01', 'completed'],
        ['S-02', 'completed'],
        ['S-03', 'failed'],
        ['S-04', 'completed'],
      ],
    );

    // the failed row is model data: the campaign skips the initial design and its first batch is proposed from all four
    assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
    const batch = await eventually(
      async () => {
        const data = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
        return data.length > 0 ? data : undefined;
      },
      30_000,
      'the first batch after the warm start',
    );
    assert.equal(batch.length, 2, 'a warm start replaces the initial design: one batch of batch_size');
    await api('POST', `/v1/campaigns/${id}/stop`);
  });
});

describe('off-plan experiments', () => {
  test('results for inputs Kiln did not propose are stored as evaluations of their own and used', async () => {
    const { id, first } = await startedExternal('off-plan', 8);
    const path = `/v1/campaigns/${id}/evaluations`;
    const bad = await api('POST', path, {
      evaluations: [
        { parameters: { x1: 1.5, x2: 0.2 }, objectives: { f1: 1, f2: 1 } },
        { parameters: { x1: 0.5 }, objectives: { f1: 1, f2: 1 } },
        { id: first[0].id, parameters: { x1: 0.5, x2: 0.5 }, objectives: { f1: 1, f2: 1 } },
        { parameters: { x1: 0.5, x2: 0.5 }, objectives: { f1: null, f2: null } },
      ],
    });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(
      bad.json.error.details.errors.map((e: { path: string }) => e.path),
      ['evaluations[0].parameters.x1', 'evaluations[1].parameters.x2', 'evaluations[2].parameters', 'evaluations[3].objectives'],
    );
    const offPlan = { x1: 0.02, x2: 0.0 };
    const posted = await api('POST', path, { evaluations: [{ parameters: offPlan, objectives: zdt1(offPlan.x1, offPlan.x2) }] });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(posted.json.data, { accepted: 1, duplicates: 0, awaiting: 4, partial: [] }, 'the batch still waits for its own candidates');
    const again = await api('POST', path, { evaluations: [{ parameters: offPlan, objectives: zdt1(offPlan.x1, offPlan.x2) }] });
    assert.deepEqual(again.json.data, { accepted: 0, duplicates: 1, awaiting: 4, partial: [] }, 'the same experiment again is a duplicate');
    // a second one in a CSV row without id, beside the batch's results
    const rows = ['id,x1,x2,f1,f2', ',0.7,0.1,' + Object.values(zdt1(0.7, 0.1)).join(',')];
    for (const c of first) rows.push(`${c.id},${c.parameters.x1},${c.parameters.x2},` + Object.values(zdt1(c.parameters.x1, c.parameters.x2)).join(','));
    const csv = await api('POST', path, rows.join('\n'), csvHeaders);
    assert.equal(csv.status, 200, csv.text);
    assert.equal(csv.json.data.accepted, 5);
    await eventually(
      async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.current_iteration >= 1 ? true : undefined),
      30_000,
      'the first iteration',
    );
    const r = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    const extra = r.evaluations.filter((e: { off_plan?: boolean }) => e.off_plan);
    assert.deepEqual(
      extra.map((e: { parameters: unknown; iteration: number }) => [e.parameters, e.iteration]),
      [
        [offPlan, 1],
        [{ x1: 0.7, x2: 0.1 }, 1],
      ],
    );
    assert.ok(extra.every((e: { id: string }) => e.id.startsWith('eval_')));
    const exported = (await api('GET', `/v1/campaigns/${id}/export`)).json;
    assert.equal(exported.evaluations.filter((e: { off_plan: boolean }) => e.off_plan).length, 2);
    // the next batch was proposed from all six evaluations (its receipt, once it is recorded)
    const second = await eventually(
      async () => {
        const data = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
        return data.length > 0 ? data : undefined;
      },
      30_000,
      'the second batch',
    );
    const told = await api('POST', path, { evaluations: second.map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x1, c.parameters.x2) })) });
    assert.equal(told.status, 200, told.text);
    const receipt = await eventually(
      async () => {
        const doc = (await api('GET', `/v1/campaigns/${id}/export`)).json;
        return doc.iterations.length >= 2 ? doc.iterations[1].receipt : undefined;
      },
      30_000,
      'the second iteration',
    );
    assert.equal(receipt.evaluations_seen, 6);
    // the moved campaign keeps them as off-plan evaluations
    const document = (await api('GET', `/v1/campaigns/${id}/export`)).json;
    const imported = await api('POST', '/v1/campaigns/import', document);
    assert.equal(imported.status, 201, imported.text);
    const moved = (await api('GET', `/v1/campaigns/${imported.json.data.id}/results`)).json.data;
    assert.equal(moved.evaluations.filter((e: { off_plan?: boolean }) => e.off_plan).length, 2);
    await api('POST', `/v1/campaigns/${id}/stop`);
  });
});

describe('the worklist', () => {
  test('the pending batch downloads as a CSV worklist, which posts back filled in as it is', async () => {
    const { id, first } = await startedExternal('worklist');
    const download = await api('GET', `/v1/campaigns/${id}/worklist`);
    assert.equal(download.status, 200, download.text);
    assert.match(download.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(download.headers.get('content-disposition') ?? '', /attachment; filename=".*-worklist\.csv"/);
    const bytes = new Uint8Array(
      await (await fetch(`${kiln.base}/v1/campaigns/${id}/worklist`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } })).arrayBuffer(),
    );
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a byte-order mark, so a spreadsheet reads UTF-8');
    const lines = download.text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    assert.equal(lines[0], 'id,iteration,x1,x2,f1,f2,status,reason,note');
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(',')[0]),
      first.map((c) => c.id),
    );
    // parameters as a lab sets them: 5 significant digits of the range [0, 1], no float noise
    const written = (x: number) => (Math.abs(x) <= 0.00005 ? '0' : Math.abs(x - 1) <= 0.00005 ? '1' : String(Number(x.toFixed(4))));
    assert.deepEqual(lines[1].split(',').slice(1), ['1', written(first[0].parameters.x1), written(first[0].parameters.x2), '', '', '', '', '']);

    // fill two rows, fail a third, leave the fourth: post the file back as it is
    const [a, b] = first;
    const fill = (line: string, cells: string[]) => [...line.split(',').slice(0, 4), ...cells].join(',');
    const filled = [
      lines[0],
      fill(lines[1], [...Object.values(zdt1(a.parameters.x1, a.parameters.x2)).map(String), '', '', '']),
      fill(lines[2], [String(zdt1(b.parameters.x1, b.parameters.x2).f1), '', '', '', '']),
      fill(lines[3], ['', '', 'failed', '=cmd()', '']),
      lines[4],
    ].join('\r\n');
    const posted = await api('POST', `/v1/campaigns/${id}/evaluations`, filled, csvHeaders);
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(posted.json.data, { accepted: 3, duplicates: 0, awaiting: 1, partial: [{ id: b.id, missing: ['f2'] }] });

    const again = (await api('GET', `/v1/campaigns/${id}/worklist`)).text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    const va = zdt1(a.parameters.x1, a.parameters.x2);
    assert.deepEqual(again[1].split(',').slice(4), [String(va.f1), String(va.f2), 'measured', '', '']);
    assert.deepEqual(again[2].split(',').slice(4, 7), [String(zdt1(b.parameters.x1, b.parameters.x2).f1), '', 'measured']);
    assert.deepEqual(again[3].split(',').slice(4), ['', '', 'failed', `"'=cmd()"`, ''], 'a formula-like reason is escaped');
    // and the downloaded file posts back unchanged: the escape is read off again
    const repost = await api('POST', `/v1/campaigns/${id}/evaluations`, again.join('\r\n'), csvHeaders);
    assert.equal(repost.status, 200, repost.text);
    assert.deepEqual(repost.json.data, { accepted: 0, duplicates: 3, awaiting: 1, partial: [] });
    assert.deepEqual(again[4].split(',').slice(4), ['', '', '', '', '']);
    await api('POST', `/v1/campaigns/${id}/stop`);
  });
});
