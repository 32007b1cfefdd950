import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../src/store/db.js';
import { claimNextJob, queuePosition } from '../src/store/jobs.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

// The claim order, played by hand (no worker of the server's own): workers are shared fairly
// across organizations, so one organization's long queue cannot starve another's.

let postgres: TestPostgres;
let kiln: TestKiln;
let db: Db;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  db = kiln.runtime.db;
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

async function queued(name: string): Promise<{ campaign: string; job: string }> {
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl: zdt1Mdl({ budget: 20 }) });
  assert.equal(created.status, 201, created.text);
  const started = await api('POST', `/v1/campaigns/${created.json.data.id}/start`);
  assert.equal(started.status, 202, started.text);
  return { campaign: created.json.data.id, job: started.json.data.job.id };
}

/** A queued job of another organization (made through the API, then moved). */
async function queuedFor(organizationId: string, name: string): Promise<{ campaign: string; job: string }> {
  const job = await queued(name);
  await db('campaigns').where({ id: job.campaign }).update({ organization_id: organizationId });
  await db('jobs').where({ id: job.job }).update({ organization_id: organizationId });
  return job;
}

/** What a worker does with an external job it claimed: propose, then park it to wait for results. */
async function park(jobId: string): Promise<void> {
  await db('jobs').where({ id: jobId }).update({ status: 'waiting', worker_id: null, lease_expires_at: null, waiting_since: db.fn.now() });
}

/** Results arrived: the job is queued again (waiting.ts resultsArrived), entering the queue now. */
async function requeue(jobId: string): Promise<void> {
  await db('jobs').where({ id: jobId }).update({ status: 'queued', queued_at: db.fn.now() });
}

test('the next job is the oldest of the organization with the fewest running jobs', async () => {
  // a busy organization queues four jobs, then a second organization queues one
  const busy = [];
  for (let i = 0; i < 4; i++) busy.push(await queued(`busy ${i}`));
  const other = await queued('other');
  await ensureOrganization(db, { id: 'org_other', name: 'Other', plan: 'pro' });
  await db('campaigns').where({ id: other.campaign }).update({ organization_id: 'org_other' });
  await db('jobs').where({ id: other.job }).update({ organization_id: 'org_other' });

  const order: string[] = [];
  for (let i = 0; i < 5; i++) order.push((await claimNextJob(db, 'worker_order', 60))!.id);
  // both have none running: the oldest (busy 0); then the other organization has fewer running,
  // though its job is the newest; then the busy organization's queue in its own order
  assert.deepEqual(order, [busy[0].job, other.job, busy[1].job, busy[2].job, busy[3].job]);
  assert.equal(await claimNextJob(db, 'worker_order', 60), undefined);
});

test('a waiting job is not counted as running, and is not claimed until it is queued again', async () => {
  await db('jobs').whereIn('status', ['running', 'queued']).update({ status: 'cancelled' });
  const a = await queued('a');
  const first = (await claimNextJob(db, 'worker_order', 60))!;
  assert.equal(first.id, a.job);
  await db('jobs').where({ id: a.job }).update({ status: 'waiting', worker_id: null, lease_expires_at: null, waiting_since: db.fn.now() });
  assert.equal(await claimNextJob(db, 'worker_order', 60), undefined, 'a waiting job is not claimed');

  // a third organization is served after the admin organization (its job done at once)
  await ensureOrganization(db, { id: 'org_third', name: 'Third', plan: 'pro' });
  const d = await queuedFor('org_third', 'd');
  assert.equal((await claimNextJob(db, 'worker_order', 60))!.id, d.job);
  await db('jobs').where({ id: d.job }).update({ status: 'completed' });
  const b = await queued('b');
  const c = await queuedFor('org_third', 'c');
  // the admin organization's job only waits, so it runs none: it was served longer ago, b goes first
  // (were the waiting job counted as running, the third organization's c would)
  assert.equal((await claimNextJob(db, 'worker_order', 60))!.id, b.job);
  assert.equal((await claimNextJob(db, 'worker_order', 60))!.id, c.job);

  // queued again after its wait: the wait is added up apart from the job's own time
  await db('jobs')
    .where({ id: a.job })
    .update({ status: 'queued', waiting_since: db.raw(`now() - interval '90 seconds'`) });
  const resumed = (await claimNextJob(db, 'worker_order', 60))!;
  assert.equal(resumed.id, a.job);
  assert.equal(resumed.attempt, 2);
  assert.equal(resumed.resumes, 1, 'a claim after a wait is no worker death');
  assert.ok(resumed.waited_seconds >= 90 && resumed.waited_seconds < 120, String(resumed.waited_seconds));
  assert.equal(resumed.waiting_since, null);
});

test('organizations take turns for a free slot: with one slot, a burst of 30 re-queued jobs of one organization does not hold back a job another organization queued after them', async () => {
  await db('jobs').whereIn('status', ['running', 'queued', 'waiting']).update({ status: 'cancelled' });
  await ensureOrganization(db, { id: 'org_lab', name: 'Lab', plan: 'pro' });
  // the lab was served first; then the busy organization's 30 external jobs each proposed and parked
  const lab = await queuedFor('org_lab', 'lab');
  assert.equal((await claimNextJob(db, 'worker_turns', 60))!.id, lab.job);
  await park(lab.job);
  const burst: string[] = [];
  for (let i = 0; i < 30; i++) burst.push((await queued(`burst ${i}`)).job);
  for (const id of burst) {
    assert.equal((await claimNextJob(db, 'worker_turns', 60))!.id, id, 'one organization alone: first come, first served');
    await park(id);
  }
  // results for all 30 arrive in a burst, then for the lab's job
  for (const id of burst) await requeue(id);
  await new Promise((r) => setTimeout(r, 20));
  await requeue(lab.job);
  const [queuedLab] = await db('jobs').where({ id: lab.job }).select('queued_at');
  const [lastBurst] = await db('jobs').whereIn('id', burst).max({ at: 'queued_at' });
  assert.ok(queuedLab.queued_at > lastBurst.at, 'the lab job entered the queue after the whole burst');
  // what the candidates route tells the lab: next in line (the same order as the claim)
  assert.deepEqual(await queuePosition(db, lab.job), { ahead: 0, running: 0 });
  assert.deepEqual(await queuePosition(db, burst[29]), { ahead: 30, running: 0 });

  // one slot: each claim runs alone and parks again before the next
  const order: string[] = [];
  for (let i = 0; i < 31; i++) {
    const job = (await claimNextJob(db, 'worker_turns', 60))!;
    order.push(job.id);
    await park(job.id);
  }
  const labAt = order.indexOf(lab.job);
  assert.ok(labAt >= 0 && labAt < 2, `the lab's job is claimed within two claims, not after the burst (claim ${labAt + 1})`);
  assert.deepEqual(
    order.filter((id) => id !== lab.job),
    burst,
    'the burst in its own order',
  );
});
