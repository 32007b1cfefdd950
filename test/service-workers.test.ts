import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, kilnMain, spawnWorker, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';
import { messageText } from '../src/api/ws-text.js';

/**
 * Jobs run by separate `kiln worker` processes against one database, as on a cluster: the API
 * node below runs no worker of its own.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
const workers: ChildProcess[] = [];

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await kiln?.stop();
  await postgres?.stop();
});

interface Worker {
  process: ChildProcess;
  id: string;
  output: () => string;
}

async function startWorker(env: Record<string, string> = {}): Promise<Worker> {
  const child = spawnWorker(kiln.databaseUrl, env);
  workers.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const id = await eventually(async () => /Worker (worker_\w+) is taking jobs/.exec(output)?.[1], 30_000, 'worker start');
  return { process: child, id, output: () => output };
}

async function startCampaign(name: string, mdl: unknown) {
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const started = await api('POST', `/v1/campaigns/${created.json.data.id}/start`);
  assert.equal(started.status, 202, started.text);
  return { id: created.json.data.id as string, jobId: started.json.data.job.id as string };
}

const campaign = async (id: string) => (await api('GET', `/v1/campaigns/${id}`)).json.data;
const job = async (id: string) => (await api('GET', `/v1/jobs/${id}`)).json.data;
const logs = async (id: string) => (await api('GET', `/v1/jobs/${id}/logs?tail=1000`)).json.data as { level: string; message: string }[];
const until = (id: string, statuses: string[], ms = 90_000) =>
  eventually(
    async () => {
      const c = await campaign(id);
      return statuses.includes(c.status) ? c : undefined;
    },
    ms,
    `campaign ${id} → ${statuses.join('/')}`,
  );

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

test('two worker processes share the queue without ever running the same job; events reach the API node', async () => {
  const [a, b] = await Promise.all([startWorker(), startWorker()]);
  const health = await eventually(
    async () => {
      const h = (await api('GET', '/v1/health')).json.data;
      return h.workers.length >= 2 ? h : undefined;
    },
    10_000,
    'both workers in health',
  );
  assert.equal(health.database, 'ok');
  assert.equal(health.tensor_backend, 'cpu');
  assert.ok([a.id, b.id].every((id) => health.workers.some((w: { id: string }) => w.id === id)));

  const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } });
  const events: any[] = [];
  ws.on('message', (raw) => events.push(JSON.parse(messageText(raw))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

  const runs = [];
  for (let i = 0; i < 6; i++) {
    const created = (await api('POST', '/v1/campaigns', { name: `shared ${i}`, domain: 'benchmark', mdl: zdt1Mdl({ budget: 8, seed: i + 1 }) })).json.data;
    ws.send(JSON.stringify({ type: 'subscribe', campaign_id: created.id }));
    runs.push(created.id as string);
  }
  await eventually(async () => (events.filter((e) => e.type === 'subscribed').length === 6 ? true : undefined), 5_000, 'subscriptions');
  const jobIds = await Promise.all(runs.map(async (id) => (await api('POST', `/v1/campaigns/${id}/start`)).json.data.job.id as string));
  for (const id of runs) assert.equal((await until(id, ['completed', 'converged', 'failed'])).status, 'completed');

  const owners = new Set<string>();
  for (const id of jobIds) {
    const j = await job(id);
    assert.equal(j.status, 'completed');
    const pickups = (await logs(id)).filter((l) => /picked up the job/.test(l.message));
    assert.equal(pickups.length, 1, `job ${id} was picked up ${pickups.length} times`);
    const row = await kiln.runtime.db('jobs').where({ id }).first('attempt');
    assert.equal(row!.attempt, 1);
    owners.add(j.worker_id);
  }
  assert.deepEqual([...owners].sort(), [a.id, b.id].sort(), 'both workers took jobs');
  await eventually(
    async () => {
      const h = (await api('GET', '/v1/health')).json.data;
      const backends = [a.id, b.id].map((id) => h.workers.find((w: { id: string }) => w.id === id)?.tensor_backend);
      return backends.every((backend) => backend === 'cpu') ? true : undefined;
    },
    10_000,
    'workers to report the tensor backend their engine steps ran on',
  );
  for (const id of jobIds) {
    assert.ok(
      events.some((e) => e.type === 'job.progress' && e.job_id === id),
      `progress of ${id} reached the API node`,
    );
    assert.ok(events.some((e) => e.type === 'job.status' && e.job_id === id && e.data.status === 'completed'));
  }
  ws.close();

  for (const w of [a, b]) {
    w.process.kill('SIGTERM');
    assert.deepEqual(await exited(w.process), { code: 0, signal: null });
  }
});

test('kill -9 of a busy worker: the lapsed job goes back to the queue by itself and ends as an uninterrupted run would', async () => {
  const mdl = zdt1Mdl({ budget: 24, batch: 1, seed: 5 });
  const doomed = await startWorker();
  const { id, jobId } = await startCampaign('crash-recover', mdl);
  await eventually(async () => ((await campaign(id)).current_iteration >= 4 ? true : undefined), 60_000, 'four iterations');
  doomed.process.kill('SIGKILL');
  const killedAt = Date.now();
  await exited(doomed.process);
  const saved = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;

  const rescuer = await startWorker();
  // no human retry: the same job resumes on the other worker
  const resumedAt = await eventually(
    async () => {
      const j = await job(jobId);
      return j.status === 'running' && j.worker_id === rescuer.id ? Date.now() : undefined;
    },
    30_000,
    'the job to resume on the rescuer',
  );
  assert.equal((await campaign(id)).status, 'running', 'the campaign keeps running while its job is requeued');
  const done = await until(id, ['completed', 'converged']);
  assert.equal(done.evaluations_completed, 24);
  const finished = await job(jobId);
  assert.equal(finished.status, 'completed');
  assert.equal(finished.attempt, 2);
  const entries = await logs(jobId);
  assert.ok(
    entries.some(
      (l) =>
        l.level === 'warning' &&
        l.message.includes(`Worker ${doomed.id} stopped renewing its lease`) &&
        /goes back to the queue .* \(attempt 2 of 5\)/.test(l.message),
    ),
    entries.map((l) => l.message).join('\n'),
  );
  const final = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  for (const e of saved.evaluations)
    assert.ok(
      final.evaluations.some((f: { id: string }) => f.id === e.id),
      `${e.id} is kept`,
    );
  assert.equal(new Set(final.evaluations.map((e: { id: string }) => e.id)).size, 24, 'no duplicate evaluation');
  assert.equal(new Set(final.evaluations.map((e: { parameters: unknown }) => JSON.stringify(e.parameters))).size, 24, 'no candidate evaluated twice');

  // the same campaign without a crash ends with the same evaluations
  const reference = await startCampaign('no-crash', mdl);
  await until(reference.id, ['completed', 'converged']);
  const uninterrupted = (await api('GET', `/v1/campaigns/${reference.id}/results`)).json.data;
  const shape = (r: { evaluations: { parameters: unknown; objectives: unknown; iteration: number }[] }) =>
    r.evaluations.map((e) => [e.iteration, e.parameters, e.objectives]);
  assert.deepEqual(shape(final), shape(uninterrupted));
  console.log(`# recovery: killed at 0 s, resumed on another worker after ${((resumedAt - killedAt) / 1000).toFixed(1)} s (lease 3 s)`);
  rescuer.process.kill('SIGTERM');
  assert.equal((await exited(rescuer.process)).code, 0);
});

test('after KILN_MAX_ATTEMPTS deaths a lapsed job fails, nothing saved is lost, and a manual retry resumes', async () => {
  const doomed = await startWorker();
  const { id, jobId } = await startCampaign('crash', zdt1Mdl({ budget: 30, batch: 1, seed: 3 }));
  await eventually(async () => ((await campaign(id)).current_iteration >= 3 ? true : undefined), 60_000, 'three iterations');
  doomed.process.kill('SIGKILL');
  await exited(doomed.process);
  const saved = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.ok(saved.evaluations.length >= 6);

  const rescuer = await startWorker({ KILN_MAX_ATTEMPTS: '1' });
  await until(id, ['failed'], 30_000);
  const failed = await job(jobId);
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, 'lease lapsed');
  assert.ok(
    (await logs(jobId)).some(
      (l) =>
        l.level === 'error' && l.message.includes(`Worker ${doomed.id} stopped renewing its lease`) && l.message.includes('attempt 1 of 1 (KILN_MAX_ATTEMPTS)'),
    ),
  );
  const kept = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.deepEqual(kept, saved, 'everything saved before the crash is still there');

  const retried = await api('POST', `/v1/jobs/${jobId}/retry`);
  assert.equal(retried.status, 202);
  assert.equal(retried.json.data.retry_of, jobId);
  const done = await until(id, ['completed', 'converged']);
  assert.equal(done.evaluations_completed, 30);
  const newJob = await job(retried.json.data.id);
  assert.equal(newJob.worker_id, rescuer.id);
  assert.ok((await logs(newJob.id)).some((l) => l.message.includes(`resuming after iteration ${saved.convergence_history.length}`)));
  const final = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  for (const e of saved.evaluations) {
    assert.deepEqual(
      final.evaluations.find((f: { id: string }) => f.id === e.id),
      { ...e, is_pareto: final.evaluations.find((f: { id: string }) => f.id === e.id).is_pareto },
    );
  }
  assert.equal(new Set(final.evaluations.map((e: { id: string }) => e.id)).size, final.evaluations.length);
  assert.deepEqual(final.convergence_history.slice(0, saved.convergence_history.length), saved.convergence_history);
  rescuer.process.kill('SIGTERM');
  assert.equal((await exited(rescuer.process)).code, 0);
});

test('SIGTERM hands the job back at once: another worker resumes it without waiting for the lease', async () => {
  // leases far longer than the test: a resume can only come from the clean hand-back
  const env = { KILN_LEASE_SECONDS: '120' };
  const [first, second] = await Promise.all([startWorker(env), startWorker(env)]);
  const { id, jobId } = await startCampaign('handover', zdt1Mdl({ budget: 40, batch: 1, seed: 5 }));
  await eventually(async () => ((await campaign(id)).current_iteration >= 2 ? true : undefined), 60_000, 'two iterations');
  const owner = (await job(jobId)).worker_id;
  const [leaving, staying] = owner === first.id ? [first, second] : [second, first];
  const before = (await campaign(id)).evaluations_completed;
  const signalled = Date.now();
  leaving.process.kill('SIGTERM');
  assert.deepEqual(await exited(leaving.process), { code: 0, signal: null });
  const taken = await eventually(
    async () => {
      const j = await job(jobId);
      return j.worker_id === staying.id && j.status === 'running' ? j : undefined;
    },
    20_000,
    'the other worker to take over',
  );
  assert.ok(Date.now() - signalled < 15_000, 'taken over well before the 120 s lease would lapse');
  assert.equal(taken.status, 'running');
  const entries = await logs(jobId);
  assert.ok(entries.some((l) => l.message.includes(`Worker ${leaving.id} is shutting down`)));
  assert.equal(entries.filter((l) => /picked up the job/.test(l.message)).length, 2);
  const done = await until(id, ['completed', 'converged']);
  assert.ok(done.evaluations_completed >= before);
  assert.equal((await job(jobId)).status, 'completed');
  staying.process.kill('SIGTERM');
  assert.equal((await exited(staying.process)).code, 0);
});

test('kiln keys create stores a scoped key that works at once', async () => {
  const { execFile } = await import('node:child_process');
  const main = kilnMain();
  const run = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [...process.execArgv, main, ...args],
        { env: { ...process.env, DATABASE_URL: kiln.databaseUrl, LOG_LEVEL: 'silent' } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  const created = await run(['keys', 'create', '--name', 'ci reader', '--scope', 'campaigns:read', '--prefix', 'svc_ci_']);
  assert.equal(created.code, 0, created.stderr);
  const [id, key] = created.stdout.trim().split(/\s+/);
  assert.match(id, /^key_/);
  assert.match(key, /^svc_ci_[0-9A-Za-z]{30}$/);
  const reader = client(kiln.base, key);
  assert.equal((await reader('GET', '/v1/campaigns')).status, 200);
  const denied = await reader('POST', '/v1/campaigns', { name: 'x', domain: 'water', mdl: zdt1Mdl() });
  assert.equal(denied.status, 403);
  const row = await kiln.runtime.db('api_keys').where({ id }).first();
  assert.notEqual(row!.key_hash, key);
  assert.ok(!JSON.stringify(row).includes(key.slice(8)), 'the secret is not stored');
  const badScope = await run(['keys', 'create', '--name', 'x', '--scope', 'everything']);
  assert.notEqual(badScope.code, 0);
  assert.match(badScope.stderr, /everything/);
});
