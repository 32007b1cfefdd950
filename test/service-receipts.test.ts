import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayResults } from '../src/cli/replay.js';
import { recordedCampaign } from '../src/cli/replay-input.js';
import { replayCampaign } from '../src/engine/campaign/replay.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { packageVersion } from '../src/package-root.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
// test servers propose on the cpu backend; replay runs here on the same one
const environment = { engine_version: packageVersion(), tensor_backend: await initTensorBackend('cpu') };

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Iteration {
  iteration: number;
  receipt: { iteration: number; strategy: string; acquisition: string; engine_version: string; tensor_backend: string; data_hash: string } | null;
  evaluation_ids: string[];
}

async function create(name: string, mdl: unknown): Promise<{ id: string; mdl: Parameters<typeof recordedCampaign>[0] }> {
  const res = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(res.status, 201, res.text);
  return { id: res.json.data.id, mdl: (await api('GET', `/v1/campaigns/${res.json.data.id}`)).json.data.mdl };
}

async function results(id: string) {
  const res = await api('GET', `/v1/campaigns/${id}/results`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

test('results from the API carry a receipt per iteration, and replaying them gives identical proposals', async () => {
  const { id, mdl } = await create('receipts-builtin', zdt1Mdl({ budget: 12, batch: 2 }));
  assert.deepEqual((await results(id)).data.iterations, [], 'no iterations before the start');
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  await eventually(
    async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined),
    60_000,
    'the campaign to complete',
  );

  const body = await results(id);
  const iterations = body.data.iterations as Iteration[];
  assert.deepEqual(
    iterations.map((i) => i.iteration),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    iterations.map((i) => i.receipt?.strategy),
    ['initial-design', 'global', 'global', 'global', 'global'],
  );
  for (const i of iterations) {
    assert.equal(i.receipt?.iteration, i.iteration);
    assert.equal(i.receipt?.engine_version, environment.engine_version);
    assert.equal(i.receipt?.tensor_backend, 'cpu');
  }
  // the downloaded JSON, envelope and all, and the campaign's MDL as the API returns it, through kiln replay
  const folder = mkdtempSync(join(tmpdir(), 'kiln-api-replay-'));
  writeFileSync(join(folder, 'results.json'), JSON.stringify(body));
  writeFileSync(join(folder, 'campaign.json'), JSON.stringify(mdl));
  const out: string[] = [];
  const err: string[] = [];
  const code = await replayResults(join(folder, 'results.json'), { mdl: join(folder, 'campaign.json') }, { out: (t) => out.push(t), err: (t) => err.push(t) });
  assert.equal(code, 0, [...out, ...err].join('\n'));
  assert.deepEqual(
    out.filter((l) => l.startsWith('Iteration')).map((l) => l.replace(/ \(.*\)/, '')),
    [1, 2, 3, 4, 5].map((i) => `Iteration ${i}: identical, ${i === 1 ? 4 : 2} proposals`),
  );
});

test('ask/tell: results posted out of order, failures and a restart with a batch pending keep every receipt; replay is identical', async () => {
  const { id, mdl } = await create('receipts-external', zdt1Mdl({ evaluator: null, budget: 12, batch: 3 }));
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  let told = 0;
  const tell = async (): Promise<void> => {
    const pending = await eventually(
      async () => {
        const c = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Array<{ id: string; parameters: { x1: number; x2: number } }>;
        return c.length > 0 ? c : undefined;
      },
      60_000,
      'candidates',
    );
    // posted reversed, and the first candidate of every batch fails: failures are data too
    const evaluations = pending
      .reverse()
      .map((x, k) => (k === pending.length - 1 ? { id: x.id, error: 'sample cracked' } : { id: x.id, objectives: zdt1(x.parameters.x1, x.parameters.x2) }));
    const res = await api('POST', `/v1/campaigns/${id}/evaluations`, { evaluations });
    assert.equal(res.status, 200, res.text);
    told += pending.length;
    await eventually(
      async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.evaluations_completed >= told ? true : undefined),
      60_000,
      'the batch to be stored',
    );
  };
  await tell();
  await tell();
  // a batch is proposed and waiting; the worker stops (the job goes back to the queue) and another takes over
  await eventually(async () => ((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data.length > 0 ? true : undefined), 60_000, 'the third batch');
  const before = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data;
  await kiln.stop();
  kiln = await startTestKiln(kiln.databaseUrl, { BOOTSTRAP_ADMIN_KEY: kiln.adminKey });
  api = client(kiln.base, kiln.adminKey);
  assert.deepEqual((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data, before, 'the pending batch survives the restart');
  while (told < 12) await tell();
  await eventually(
    async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined),
    60_000,
    'the campaign to complete',
  );

  const body = await results(id);
  const iterations = body.data.iterations as Iteration[];
  assert.deepEqual(
    iterations.map((i) => [i.iteration, i.receipt?.iteration]),
    [
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ],
    'the resumed iteration kept its receipt',
  );
  assert.equal(body.data.failed_evaluations.length, 4);
  assert.deepEqual(
    iterations.map((i) => i.evaluation_ids.length),
    [4, 3, 3, 2],
  );
  const replays = await replayCampaign(recordedCampaign(mdl, body), environment);
  assert.deepEqual(
    replays.map((r) => [r.iteration, r.identical, r.differences]),
    [1, 2, 3, 4].map((i) => [i, true, []]),
  );
});
