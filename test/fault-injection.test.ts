import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, spawnWorker, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * Fault injection with real worker processes: the busy worker is killed with SIGKILL again and
 * again across several campaigns, and replaced, with no human retry anywhere. Every campaign must
 * still complete its budget, with no duplicate evaluation or candidate, and with the evaluations
 * of the same campaign run without interruption.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
const children: ChildProcess[] = [];

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await kiln?.stop();
  await postgres?.stop();
});

async function startWorker(): Promise<{ process: ChildProcess; id: string }> {
  const child = spawnWorker(kiln.databaseUrl, { KILN_MAX_ATTEMPTS: '50' });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const id = await eventually(async () => /Worker (worker_\w+) is taking jobs/.exec(output)?.[1], 30_000, 'worker start');
  return { process: child, id };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function createCampaign(name: string, mdl: unknown): Promise<string> {
  const res = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id as string;
}

const BUDGET = 80;

/** ZDT1 at batch 1, never stopping early: every campaign spends its whole budget. */
function campaignMdl(seed: number) {
  const mdl = zdt1Mdl({ budget: BUDGET, batch: 1, seed });
  return { ...mdl, optimizer: { ...mdl.optimizer, stagnation: { window: 1000, tolerance: 0 } } };
}
const SEEDS = [21, 22, 23];
const KILLS = 10;

test(`${KILLS} SIGKILLs of busy workers across ${SEEDS.length} campaigns: every campaign completes by itself, as if never interrupted`, async () => {
  const ids: string[] = [];
  for (const seed of SEEDS) ids.push(await createCampaign(`fault ${seed}`, campaignMdl(seed)));
  for (const id of ids) assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);

  // one slot per campaign: a requeued job never waits for capacity, only for its backoff
  const workers = [await startWorker(), await startWorker(), await startWorker()];
  const recoveries: Promise<number>[] = [];
  let kills = 0;
  while (kills < KILLS) {
    const statuses = await Promise.all(ids.map(async (id) => (await api('GET', `/v1/campaigns/${id}`)).json.data.status));
    if (statuses.every((s) => s !== 'running')) break;
    const listed = (await api('GET', '/v1/jobs?status=running&per_page=100')).json.data as { id: string }[];
    const running = (await Promise.all(listed.map(async (j) => (await api('GET', `/v1/jobs/${j.id}`)).json.data))) as {
      id: string;
      worker_id: string;
      attempt: number;
    }[];
    // the least-killed running job on a live worker, at most 4 deaths each: the kills spread over
    // the campaigns and the backoffs (2^(attempt − 1) s) stay under 16 s
    const job = running.filter((j) => workers.some((w) => w.id === j.worker_id) && j.attempt <= 4).sort((a, b) => a.attempt - b.attempt)[0];
    if (!job) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    // at a moment that varies with the kill's number
    await new Promise((resolve) => setTimeout(resolve, 100 + ((kills * 173) % 500)));
    const busy = workers.find((w) => w.id === job.worker_id)!;
    busy.process.kill('SIGKILL');
    await exited(busy.process);
    const killedAt = Date.now();
    kills++;
    workers.splice(workers.indexOf(busy), 1, await startWorker());
    // recovery, watched in the background: the killed job running again on a live worker
    recoveries.push(
      eventually(
        async () => {
          const j = (await api('GET', `/v1/jobs/${job.id}`)).json.data;
          return (j.status === 'running' && j.attempt > job.attempt) || j.status === 'completed' ? (Date.now() - killedAt) / 1000 : undefined;
        },
        90_000,
        `job ${job.id} to resume`,
      ),
    );
  }
  assert.equal(kills, KILLS, `only ${kills} kills happened before the campaigns ended`);

  for (const id of ids) {
    const done = await eventually(
      async () => {
        const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
        return c.status === 'running' ? undefined : c;
      },
      180_000,
      `campaign ${id} to end`,
    );
    assert.equal(done.status, 'completed', `${id} ended ${done.status}`);
    assert.equal(done.evaluations_completed, BUDGET);
  }

  // the same campaigns without a crash, on the surviving workers
  const references: string[] = [];
  for (const seed of SEEDS) references.push(await createCampaign(`reference ${seed}`, campaignMdl(seed)));
  for (const id of references) assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  for (const id of references) {
    await eventually(async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined), 180_000, `reference ${id}`);
  }
  const shape = (r: { evaluations: { iteration: number; parameters: unknown; objectives: unknown }[] }) =>
    r.evaluations.map((e) => JSON.stringify([e.iteration, e.parameters, e.objectives]));
  for (let k = 0; k < ids.length; k++) {
    const interrupted = (await api('GET', `/v1/campaigns/${ids[k]}/results`)).json.data;
    const reference = (await api('GET', `/v1/campaigns/${references[k]}/results`)).json.data;
    assert.equal(new Set(interrupted.evaluations.map((e: { id: string }) => e.id)).size, BUDGET, 'no duplicate evaluation ids');
    assert.equal(new Set(interrupted.evaluations.map((e: { parameters: unknown }) => JSON.stringify(e.parameters))).size, BUDGET, 'no candidate twice');
    assert.deepEqual(shape(interrupted), shape(reference), `campaign ${k}: the evaluations of an uninterrupted run`);
  }
  const sorted = (await Promise.all(recoveries)).sort((a, b) => a - b);
  console.log(
    `# ${kills} kills; kill → resumed on a live worker: median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} s, max ${sorted.at(-1)!.toFixed(1)} s (lease 3 s, worker start included)`,
  );
});
