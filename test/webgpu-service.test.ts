import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * A Kiln server whose workers run on webgpu (on lavapipe without a GPU, see webgpu.test.ts):
 * what a user reads to see that the GPU was used. /v1/health names the backend and adapter the
 * host's engine threads choose, and each worker's once it has stepped; the job log says where the
 * batches were proposed; every receipt names the backend and the adapter.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { KILN_TENSOR_BACKEND: 'webgpu' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Device {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  software: boolean;
}

test('health, the job log and every receipt name webgpu and its adapter', async () => {
  const before = (await api('GET', '/v1/health')).json.data;
  assert.equal(before.tensor_backend, 'webgpu');
  const device = before.tensor_device as Device;
  assert.ok(device && typeof device.vendor === 'string' && typeof device.software === 'boolean', JSON.stringify(device));

  const created = await api('POST', '/v1/campaigns', { name: 'on the gpu', domain: 'benchmark', mdl: zdt1Mdl({ budget: 10, batch: 2 }) });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const started = await api('POST', `/v1/campaigns/${id}/start`);
  assert.equal(started.status, 202, started.text);
  const jobId = started.json.data.job.id as string;
  await eventually(
    async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined),
    120_000,
    'the campaign to complete',
  );

  const logs = (await api('GET', `/v1/jobs/${jobId}/logs`)).json.data as { message: string }[];
  const named = logs.filter((l) => /^Proposing on the webgpu on .+ tensor backend\.$/.test(l.message));
  assert.equal(named.length, 1, logs.map((l) => l.message).join('\n'));

  const iterations = (await api('GET', `/v1/campaigns/${id}/results`)).json.data.iterations as { receipt: { tensor_backend: string; tensor_device: Device } }[];
  assert.ok(iterations.length >= 2);
  for (const { receipt } of iterations) {
    assert.equal(receipt.tensor_backend, 'webgpu');
    assert.deepEqual(receipt.tensor_device, device);
  }

  const worker = await eventually(
    async () => {
      const workers = (await api('GET', '/v1/health')).json.data.workers as { tensor_backend: string | null; tensor_device: Device | null }[];
      return workers.find((w) => w.tensor_backend === 'webgpu');
    },
    30_000,
    'the worker to report its backend',
  );
  assert.deepEqual(worker.tensor_device, device);
});
