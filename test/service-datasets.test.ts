import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import Papa from 'papaparse';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
let free: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  api = client(kiln.base, kiln.adminKey);
  await ensureOrganization(kiln.runtime.db, { id: 'org_free', name: 'Free lab', plan: 'free' });
  free = client(kiln.base, (await createApiKey(kiln.runtime.db, { organizationId: 'org_free', name: 'free', scopes: ['admin'] })).key);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

const MDL_YAML = JSON.stringify(zdt1Mdl());

function form(file: Blob | string, filename: string, type: string, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append('file', typeof file === 'string' ? new Blob([file], { type }) : file, filename);
  return body;
}

function zdt1Rows(n: number, seed = 1): { x1: number; x2: number; f1: number; f2: number }[] {
  let s = seed;
  const rand = () => (s = (s * 16807) % 2147483647) / 2147483647;
  return Array.from({ length: n }, () => {
    const x1 = rand();
    const x2 = rand() * 0.3;
    return { x1, x2, ...zdt1(x1, x2) };
  });
}

const csvOf = (rows: Record<string, unknown>[]) => Papa.unparse(rows) + '\n';
const uploads = () => readdirSync(tmpdir()).filter((f) => f.startsWith('kiln-upload-')).length;
const storedRows = async () => Number((await kiln.runtime.db('dataset_rows').count({ n: '*' }))[0].n);

async function parquetOf(rows: Record<string, unknown>[]): Promise<Blob> {
  const { default: pl } = await import('nodejs-polars');
  const dir = mkdtempSync(join(tmpdir(), 'kiln-test-parquet-'));
  try {
    const columns = Object.keys(rows[0]);
    pl.DataFrame(Object.fromEntries(columns.map((c) => [c, rows.map((r) => r[c])]))).writeParquet(join(dir, 'd.parquet'));
    return new Blob([readFileSync(join(dir, 'd.parquet'))], { type: 'application/parquet' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('datasets', () => {
  test('CSV, JSON and Parquet upload, preview, list, download and delete', async () => {
    const rows = zdt1Rows(25);
    rows[3].x1 = 1.5; // outside the bounds: a warning
    const withGap: Record<string, unknown>[] = rows.map((r) => ({ ...r }));
    withGap[5].f2 = null; // empty objective: flagged
    const csv = await api(
      'POST',
      '/v1/datasets',
      form(csvOf(withGap).replace(',,', ',,'), 'runs.csv', 'text/csv', { name: 'runs', description: 'first batch', mdl: MDL_YAML }),
    );
    assert.equal(csv.status, 201, csv.text);
    const d = csv.json.data;
    assert.match(d.id, /^ds_/);
    assert.deepEqual(
      { name: d.name, description: d.description, rows: d.rows, columns: d.columns, format: d.format, validated: d.validated },
      {
        name: 'runs',
        description: 'first batch',
        rows: 25,
        columns: ['x1', 'x2', 'f1', 'f2'],
        format: 'csv',
        validated: true,
      },
    );
    assert.equal(d.size_bytes, Buffer.byteLength(csvOf(withGap)));
    assert.deepEqual(d.warnings, [{ row: 4, column: 'x1', message: 'is outside the bounds [0, 1]' }]);
    assert.deepEqual(d.flagged_rows, [{ row: 6, reason: 'no value for f2' }]);

    const detail = (await api('GET', `/v1/datasets/${d.id}`)).json.data;
    assert.equal(detail.preview.length, 10);
    assert.deepEqual(detail.preview[0], { x1: rows[0].x1, x2: rows[0].x2, f1: rows[0].f1, f2: rows[0].f2 });
    assert.equal(detail.preview[5].f2, null);

    const download = await api('GET', `/v1/datasets/${d.id}/download`);
    assert.equal(download.status, 200);
    assert.match(download.headers.get('content-type') ?? '', /text\/csv/);
    assert.match(download.headers.get('content-disposition') ?? '', /attachment/);
    const back = Papa.parse<Record<string, string>>(download.text.trim(), { header: true });
    assert.equal(back.data.length, 25);
    assert.equal(Number(back.data[7].f1), rows[7].f1);

    const json = await api('POST', '/v1/datasets', form(JSON.stringify(rows), 'runs.json', 'application/json', { name: 'as json' }));
    assert.equal(json.status, 201, json.text);
    assert.equal(json.json.data.rows, 25);
    assert.equal(json.json.data.validated, false);
    const parquet = await api(
      'POST',
      '/v1/datasets',
      form(await parquetOf(rows), 'runs.parquet', 'application/octet-stream', { name: 'as parquet', mdl: MDL_YAML }),
    );
    assert.equal(parquet.status, 201, parquet.text);
    assert.equal(parquet.json.data.format, 'parquet');
    assert.equal(parquet.json.data.rows, 25);
    const parquetPreview = (await api('GET', `/v1/datasets/${parquet.json.data.id}`)).json.data.preview;
    assert.equal(parquetPreview[2].f2, rows[2].f2);

    const list = await api('GET', '/v1/datasets?per_page=2');
    assert.equal(list.json.meta.total, 3);
    assert.equal(list.json.data.length, 2);

    const removed = await api('DELETE', `/v1/datasets/${json.json.data.id}`);
    assert.deepEqual(removed.json.data, { id: json.json.data.id, deleted: true });
    assert.equal((await api('GET', `/v1/datasets/${json.json.data.id}`)).status, 404);
    assert.equal((await free('GET', `/v1/datasets/${d.id}`)).status, 404, 'another organization');
  });

  test('invalid files are 422 DATASET_INVALID listing every error; nothing is stored', async () => {
    const before = await storedRows();
    const rows: Record<string, unknown>[] = zdt1Rows(5).map((r) => ({ x1: r.x1, f1: r.f1, f2: r.f2 }));
    const missing = await api('POST', '/v1/datasets', form(csvOf(rows), 'no-x2.csv', 'text/csv', { mdl: MDL_YAML }));
    assert.equal(missing.status, 422);
    assert.equal(missing.json.error.code, 'DATASET_INVALID');
    assert.deepEqual(missing.json.error.details.errors, [{ row: null, column: 'x2', message: 'column "x2" of the MDL is missing' }]);

    const bad: Record<string, unknown>[] = zdt1Rows(4);
    bad[1].x1 = 'abc';
    bad[2].f1 = 'lots';
    const unparseable = await api('POST', '/v1/datasets', form(csvOf(bad), 'bad.csv', 'text/csv', { mdl: MDL_YAML }));
    assert.equal(unparseable.status, 422);
    assert.deepEqual(
      unparseable.json.error.details.errors.map((e: { row: number; column: string }) => [e.row, e.column]),
      [
        [2, 'x1'],
        [3, 'f1'],
      ],
    );
    // messages name the row and column and what was expected, never what the cell holds
    assert.deepEqual(
      unparseable.json.error.details.errors.map((e: { message: string }) => e.message),
      ['is not a number', 'is not a number'],
    );
    assert.ok(!/abc|lots/.test(unparseable.text), unparseable.text);

    const ragged = await api('POST', '/v1/datasets', form('x1,x2,f1,f2\n0.1,0.2,0.3,0.4\n0.5,0.6\n', 'ragged.csv', 'text/csv'));
    assert.equal(ragged.status, 422);
    assert.equal(ragged.json.error.details.errors[0].row, 2);
    const brokenJson = await api('POST', '/v1/datasets', form('[{"x1": 0.1}, {"x1": ', 'broken.json', 'application/json'));
    assert.equal(brokenJson.status, 422);
    assert.equal(brokenJson.json.error.code, 'DATASET_INVALID');
    const notArray = await api('POST', '/v1/datasets', form('[1, 2]', 'numbers.json', 'application/json'));
    assert.equal(notArray.status, 422);
    const brokenParquet = await api('POST', '/v1/datasets', form('PAR1 this is not parquet PAR1', 'broken.parquet', 'application/parquet'));
    assert.equal(brokenParquet.status, 422);
    assert.match(brokenParquet.json.error.details.errors[0].message, /Parquet/);
    const badMdl = await api('POST', '/v1/datasets', form(csvOf(zdt1Rows(2)), 'x.csv', 'text/csv', { mdl: 'parameters: [' }));
    assert.equal(badMdl.status, 422);
    assert.equal(badMdl.json.error.code, 'VALIDATION_FAILED');

    const text = await api('POST', '/v1/datasets', form('hello', 'notes.txt', 'text/plain'));
    assert.equal(text.status, 415);
    assert.equal(text.json.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    const json = await api('POST', '/v1/datasets', { name: 'not multipart' });
    assert.equal(json.status, 400);
    assert.equal(await storedRows(), before, 'no rows stored by failed uploads');
    assert.equal((await api('GET', '/v1/datasets')).json.meta.total, 2);
  });

  test('plan limits: size and rows are refused mid-stream with 413, nothing stored, no temporary file left', async () => {
    const before = await storedRows();
    const files = uploads();
    const big = 'x1,x2,f1,f2\n' + '0.1,0.1,0.1,0.1\n'.repeat(Math.ceil((11 * 1024 * 1024) / 16));
    const tooBig = await free('POST', '/v1/datasets', form(big, 'big.csv', 'text/csv'));
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.json.error.code, 'PAYLOAD_TOO_LARGE');
    assert.equal(tooBig.json.error.details.limit, 10 * 1024 * 1024);
    const manyRows = 'x1,x2,f1,f2\n' + '1,1,1,1\n'.repeat(10_001);
    const tooMany = await free('POST', '/v1/datasets', form(manyRows, 'many.csv', 'text/csv'));
    assert.equal(tooMany.status, 413);
    assert.equal(tooMany.json.error.details.limit, 10_000);
    const parquetRows = Array.from({ length: 10_001 }, (_, i) => ({ x1: i, x2: 0, f1: 0, f2: 0 }));
    const tooManyParquet = await free('POST', '/v1/datasets', form(await parquetOf(parquetRows), 'many.parquet', 'application/parquet'));
    assert.equal(tooManyParquet.status, 413);
    const exactly = await free('POST', '/v1/datasets', form('x1,x2,f1,f2\n' + '1,1,1,1\n'.repeat(10_000), 'max.csv', 'text/csv'));
    assert.equal(exactly.status, 201);
    assert.equal(await storedRows(), before + 10_000);
    assert.equal(uploads(), files, 'temporary upload files are removed');
    assert.equal((await free('DELETE', `/v1/datasets/${exactly.json.data.id}`)).status, 200);
    assert.equal(await storedRows(), before);
  });

  test('downloads are safe from spreadsheet formula injection', async () => {
    const res = await api('POST', '/v1/datasets', form('name,value\n=HYPERLINK("http://x"),1\n+1,2\n', 'evil.csv', 'text/csv'));
    assert.equal(res.status, 201, res.text);
    const download = await api('GET', `/v1/datasets/${res.json.data.id}/download`);
    assert.match(download.text, /'=HYPERLINK/);
    assert.doesNotMatch(download.text, /\n=HYPERLINK/);
  });
});

describe('warm start', () => {
  test('a campaign created with dataset_id starts from its rows, skips the initial design, and survives the dataset', async () => {
    const rows = zdt1Rows(12, 7);
    const data: Record<string, unknown>[] = rows.map((r) => ({ ...r }));
    data[0].f1 = null;
    const ds = (await api('POST', '/v1/datasets', form(csvOf(data), 'warm.csv', 'text/csv', { name: 'warm' }))).json.data;
    const missingColumn = (await api('POST', '/v1/datasets', form(csvOf(rows.map((r) => ({ x1: r.x1, f1: r.f1, f2: r.f2 }))), 'cold.csv', 'text/csv'))).json
      .data;
    const refused = await api('POST', '/v1/campaigns', { name: 'bad warm', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: missingColumn.id });
    assert.equal(refused.status, 422);
    assert.equal(refused.json.error.code, 'DATASET_INVALID');
    const unknown = await api('POST', '/v1/campaigns', { name: 'bad warm', domain: 'benchmark', mdl: zdt1Mdl(), dataset_id: 'ds_nope' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.error.details.errors[0].path, 'dataset_id');

    const created = await api('POST', '/v1/campaigns', { name: 'warm', domain: 'benchmark', mdl: zdt1Mdl({ budget: 6, batch: 2 }), dataset_id: ds.id });
    assert.equal(created.status, 201, created.text);
    const id = created.json.data.id;
    assert.equal(created.json.data.evaluations_completed, 0);
    const warmResults = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.equal(warmResults.evaluations.length, 11, 'the flagged row is left out');
    assert.ok(warmResults.evaluations.every((e: { iteration: number }) => e.iteration === 0));
    assert.deepEqual(warmResults.convergence_history, []);

    assert.equal((await api('DELETE', `/v1/datasets/${ds.id}`)).status, 200);
    const job = (await api('POST', `/v1/campaigns/${id}/start`)).json.data.job;
    const done = await eventually(async () => {
      const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
      return ['completed', 'converged', 'failed'].includes(c.status) ? c : undefined;
    }, 60_000);
    assert.equal(done.status, 'completed');
    assert.equal(done.evaluations_completed, 6, 'warm rows do not use the budget');
    const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.equal(results.evaluations.length, 17);
    assert.equal(results.convergence_history.length, 3, 'three batches of 2, no initial design');
    assert.ok(
      results.evaluations.filter((e: { iteration: number }) => e.iteration === 0).some((e: { is_pareto: boolean }) => e.is_pareto) ||
        results.pareto_front.length > 0,
    );
    const logs = (await api('GET', `/v1/jobs/${job.id}/logs?tail=1000`)).json.data.map((l: { message: string }) => l.message);
    assert.ok(
      logs.some((m: string) => /Warm start from dataset .*11 evaluated rows.*1 rows with missing objective values/.test(m)),
      logs.join('\n'),
    );
    assert.ok(!logs.some((m: string) => /initial-design/.test(m)));
  });
});
