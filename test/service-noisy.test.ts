import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Papa from 'papaparse';
import WebSocket from 'ws';
import { messageText } from '../src/api/ws-text.js';
import { hypervolume } from '../src/engine/hypervolume.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Row {
  id: string;
  objectives: Record<string, number>;
  is_pareto: boolean;
  predicted?: Record<string, { mean: number; sd: number }>;
  design_id?: string;
  measurements?: number;
}

test("a noisy campaign's results, CSV and live events carry measured and predicted ± sd values and both hypervolumes", async () => {
  const base = zdt1Mdl({ budget: 10, batch: 2, evaluator: { type: 'builtin', name: 'zdt1', noise: 0.05, seed: 3 } });
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, noise: { sd: 0.05 } })) };
  const created = await api('POST', '/v1/campaigns', { name: 'noisy', domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.deepEqual((await api('GET', `/v1/campaigns/${id}`)).json.data.mdl.objectives[0].noise, { sd: 0.05 }, 'the declaration is kept');

  const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws?token=${kiln.adminKey}`);
  const events: any[] = [];
  ws.on('message', (raw) => events.push(JSON.parse(messageText(raw))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'subscribe', campaign_id: id }));
  await eventually(async () => (events.some((e) => e.type === 'subscribed') ? true : undefined), 5_000, 'subscription');

  assert.equal((await api('POST', `/v1/campaigns/${id}/start`, {})).status, 202);
  const done = await eventually(
    async () => {
      const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
      return ['completed', 'failed'].includes(c.status) ? c : undefined;
    },
    60_000,
    'the campaign to end',
  );
  assert.equal(done.status, 'completed');

  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.equal(results.noisy, true);
  assert.match(results.noise_reason, /declares measurement noise on f1, f2/);
  const front = results.pareto_front as Row[];
  assert.ok(front.length > 0);
  for (const row of front) {
    assert.equal(row.is_pareto, true);
    assert.ok(row.measurements! >= 1);
    for (const name of ['f1', 'f2']) {
      assert.ok(Number.isFinite(row.objectives[name]), 'measured');
      assert.ok(Number.isFinite(row.predicted![name].mean), 'predicted mean');
      assert.ok(row.predicted![name].sd > 0, 'a noisy model is never certain at a measured point');
    }
  }
  // the headline is the hypervolume of the front's predicted values; the raw measurements' apart
  const predicted = Float64Array.from(front.flatMap((r) => [r.predicted!.f1.mean, r.predicted!.f2.mean]));
  assert.ok(Math.abs(results.hypervolume - hypervolume(predicted, front.length, 2, [1.1, 10])) < 1e-9);
  const evaluations = results.evaluations as Row[];
  const measured = Float64Array.from(evaluations.flatMap((r) => [r.objectives.f1, r.objectives.f2]));
  assert.ok(Math.abs(results.measured_hypervolume - hypervolume(measured, evaluations.length, 2, [1.1, 10])) < 1e-9);
  assert.ok(Math.abs(results.convergence_history.at(-1) - results.hypervolume) < 1e-9, 'the history ends at the headline');
  assert.ok(Math.abs(done.hypervolume - results.hypervolume) < 1e-9, 'the campaign detail shows the headline');
  assert.ok(evaluations.every((r) => typeof r.design_id === 'string' && r.predicted !== undefined));

  const csv = await api('GET', `/v1/campaigns/${id}/results?format=csv&pareto_only=true`);
  assert.equal(csv.status, 200);
  const parsed = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true });
  assert.deepEqual(parsed.meta.fields, [
    'id',
    'iteration',
    'is_pareto',
    'x1',
    'x2',
    'f1',
    'f2',
    'measurements',
    'f1_predicted',
    'f1_sd',
    'f2_predicted',
    'f2_sd',
  ]);
  assert.equal(parsed.data.length, front.length);
  assert.ok(Math.abs(Number(parsed.data[0].f1_predicted) - front[0].predicted!.f1.mean) < 1e-9);

  await eventually(async () => (events.some((e) => e.type === 'job.status' && e.data.status === 'completed') ? true : undefined), 5_000, 'completion event');
  ws.close();
  const progress = events.filter((e) => e.type === 'job.progress').map((e) => e.data.summary);
  const last = progress.at(-1);
  assert.equal(last.noisy, true);
  assert.ok(Math.abs(last.measured_hypervolume - results.measured_hypervolume) < 1e-9);
  assert.ok(Math.abs(last.hypervolume - results.hypervolume) < 1e-9);
  assert.equal(last.evaluations, undefined, 'a noisy summary leaves the rows for the page to re-read');
});

test('optimizer.replicates: the front lists each design once with the count of its pooled measurements', async () => {
  const base = zdt1Mdl({ budget: 16, batch: 4, evaluator: { type: 'builtin', name: 'zdt1', noise: 0.05, seed: 4 } });
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, noise: { sd: 0.05 } })), optimizer: { ...base.optimizer, replicates: 2 } };
  const created = await api('POST', '/v1/campaigns', { name: 'replicated', domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`, {})).status, 202);
  await eventually(async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined), 60_000, 'the campaign to end');
  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  const evaluations = results.evaluations as (Row & { parameters: Record<string, number> })[];
  assert.equal(evaluations.length, 16);
  const byDesign = new Map<string, typeof evaluations>();
  for (const e of evaluations) byDesign.set(e.design_id!, [...(byDesign.get(e.design_id!) ?? []), e]);
  // every measurement of a design was made at the same parameter values
  for (const rows of byDesign.values()) for (const r of rows) assert.deepEqual(r.parameters, rows[0].parameters);
  assert.ok(
    [...byDesign.values()].filter((rows) => rows.length >= 2).length >= 2,
    'designs were measured again (without replicates this campaign measures none twice)',
  );
  const front = results.pareto_front as Row[];
  assert.equal(new Set(front.map((r) => r.design_id)).size, front.length, 'one row per design');
  for (const row of front) assert.equal(row.measurements, byDesign.get(row.design_id!)!.length, `${row.design_id}: its measurements pooled`);
});

test('a bad noise declaration is refused with the path and a message', async () => {
  const base = zdt1Mdl();
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, noise: { sd: -1 } })) };
  const res = await api('POST', '/v1/campaigns', { name: 'bad noise', domain: 'benchmark', mdl });
  assert.equal(res.status, 422, res.text);
  assert.match(res.text, /objectives\.0\.noise|objectives\/0\/noise|noise/);
});
