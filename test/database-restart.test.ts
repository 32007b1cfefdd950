import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * The database going away mid-campaign (Postgres stopped and started again, as a crash, a
 * failover or a maintenance window does): the API answers 503 in the error envelope meanwhile,
 * nothing saved is lost, and the running campaign completes once the database is back, with no
 * human action.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start({ own: true });
  kiln = await startTestKiln(await postgres.database(), { KILN_LEASE_SECONDS: '3' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

test('Postgres stopped and restarted mid-campaign: 503 meanwhile, nothing lost, the campaign completes by itself', async () => {
  const created = await api('POST', '/v1/campaigns', { name: 'db restart', domain: 'benchmark', mdl: zdt1Mdl({ budget: 24, batch: 1, seed: 11 }) });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  await eventually(async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.current_iteration >= 4 ? true : undefined), 60_000, 'four iterations');
  const saved = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;

  await postgres.pause();
  const down = await api('GET', `/v1/campaigns/${id}`);
  assert.equal(down.status, 503, down.text);
  assert.equal(down.json.error.code, 'SERVICE_UNAVAILABLE');
  assert.match(down.json.error.message, /cannot reach its database .* nothing saved is lost/);
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const stillDown = await api('GET', '/v1/campaigns');
  assert.equal(stillDown.status, 503);
  const back = Date.now();
  await postgres.resume();

  const done = await eventually(
    async () => {
      const res = await api('GET', `/v1/campaigns/${id}`);
      return res.status === 200 && ['completed', 'converged', 'failed'].includes(res.json.data.status) ? res.json.data : undefined;
    },
    90_000,
    'the campaign to finish after the database came back',
  );
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.evaluations_completed, 24);
  const final = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  for (const e of saved.evaluations)
    assert.ok(
      final.evaluations.some((f: { id: string }) => f.id === e.id),
      `${e.id} kept`,
    );
  assert.equal(new Set(final.evaluations.map((e: { id: string }) => e.id)).size, 24, 'no duplicate evaluation');
  console.log(`# database back to campaign completed: ${((Date.now() - back) / 1000).toFixed(1)} s`);
});
