import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Random } from '../src/engine/random.js';
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

async function create(name: string, mdl: unknown): Promise<string> {
  const res = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id;
}

async function model(id: string) {
  const res = await api('GET', `/v1/campaigns/${id}/model`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

test('a worker keeps the model report current: on a known function it reports a high R² and finds the parameter that matters', async () => {
  const id = await create('model-known', zdt1Mdl({ budget: 24, batch: 4 }));
  const before = await model(id);
  assert.deepEqual([before.outputs, before.importance, before.next, before.computed_at], [[], [], [], null]);
  assert.match(before.message, /has not started/);
  assert.equal((await api('GET', '/v1/campaigns/camp_nope/model')).status, 404);

  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  await eventually(
    async () => {
      const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
      return c.status === 'completed' ? c : undefined;
    },
    60_000,
    'the campaign to complete',
  );
  // the last report is of the final state, stored before the job ends
  const report = await model(id);
  assert.equal(report.evaluations, 24);
  assert.equal(report.points, 24);
  assert.ok(Date.parse(report.computed_at) > 0);
  const [f1, f2] = report.outputs;
  assert.deepEqual([f1.name, f1.kind, f2.name], ['f1', 'objective', 'f2']);
  // ZDT1's f1 is x1 itself
  assert.ok(f1.r2 > 0.95, `R² of f1: ${f1.r2}`);
  assert.equal(f1.predictions.length, 24);
  for (const p of f1.predictions) assert.ok(p.sd > 0 && Number.isFinite(p.predicted), JSON.stringify(p));
  const top = (o: number) =>
    [...report.importance[o].parameters].sort((a: { total_sobol: number }, b: { total_sobol: number }) => b.total_sobol - a.total_sobol)[0].name;
  assert.equal(top(0), 'x1');
  assert.deepEqual(report.next, [], 'a finished campaign awaits nothing');
});

test('on pure noise told through ask/tell the report explains nothing, keeps calibrated intervals, and shows the awaited candidates', async () => {
  const mdl = zdt1Mdl({ evaluator: null, budget: 40, batch: 4 });
  const id = await create('model-noise', { ...mdl, objectives: [{ name: 'f1', direction: 'minimize' }] });
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  const random = new Random(9);
  const told = new Set<string>();
  // tell noise until 32 evaluations are in, then leave the next batch waiting
  await eventually(
    async () => {
      const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
      if (c.evaluations_completed >= 32) return c;
      const fresh = ((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as { id: string }[]).filter((x) => !told.has(x.id));
      if (fresh.length === 0) return undefined;
      for (const x of fresh) told.add(x.id);
      const res = await api('POST', `/v1/campaigns/${id}/evaluations`, {
        evaluations: fresh.map((x) => ({ id: x.id, objectives: { f1: 3 + random.normal() } })),
      });
      assert.equal(res.status, 200, res.text);
      return undefined;
    },
    90_000,
    '32 evaluations of noise',
  );
  const report = await eventually(
    async () => {
      const r = await model(id);
      return r.evaluations >= 32 && r.next.length > 0 ? r : undefined;
    },
    30_000,
    'the report of the state with a pending batch',
  );
  const [f1] = report.outputs;
  assert.ok(f1.r2 < 0.2, `R² on noise: ${f1.r2}`);
  assert.ok(f1.coverage_95 >= 0.8, `95 % coverage on noise: ${f1.coverage_95}`);
  const pending = ((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as { id: string }[]).map((x) => x.id).sort();
  assert.deepEqual(report.next.map((x: { id: string }) => x.id).sort(), pending);
  for (const x of report.next) {
    assert.ok(Math.abs(x.predicted.f1.mean - 3) < 1.5 && x.predicted.f1.sd > 0, JSON.stringify(x));
    assert.ok(x.expected_improvement >= 0 && x.probability_feasible === 1);
  }
  assert.equal((await api('POST', `/v1/campaigns/${id}/stop`)).status, 202);
});
