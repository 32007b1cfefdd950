import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { endJob, logJob } from '../src/lifecycle/transitions.js';
import { lockCampaign } from '../src/store/campaigns.js';
import type { Db } from '../src/store/db.js';
import { claimNextJob, overdueJobs, updateFenced, type JobRow, type Lease } from '../src/store/jobs.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

// Each test plays a worker's transaction by hand against the API's, in the interleaving that used
// to deadlock (Postgres then aborts one side: a 500 for the API call, or a failed worker write).
// The rule they check: a transaction takes a campaign's row before its job rows.

let postgres: TestPostgres;
let kiln: TestKiln;
let db: Db;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  // no worker of its own: the tests claim jobs themselves
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '0' });
  db = kiln.runtime.db;
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

/** A started campaign whose job this test holds as a worker would; leaseSeconds 0 makes it lapse at once. */
async function claimedCampaign(leaseSeconds = 60): Promise<{ id: string; job: JobRow; lease: Lease }> {
  const created = await api('POST', '/v1/campaigns', { name: 'locks', domain: 'benchmark', mdl: zdt1Mdl({ budget: 20 }) });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  const job = await claimNextJob(db, 'worker_locks', leaseSeconds);
  assert.ok(job && job.campaign_id === id);
  return { id, job, lease: { id: job.id, attempt: job.attempt } };
}

/** Resolves once some statement of this database waits for a row lock. */
async function someoneWaits(): Promise<void> {
  await eventually(
    async () => {
      const [{ n }] = (await db.raw(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))
        .rows as { n: number }[];
      return n > 0 ? true : undefined;
    },
    5_000,
    'a statement waiting for a lock',
  );
}

test('a worker that logs and then writes its job while the campaign is deleted: both finish, and DELETE answers 200', async () => {
  const { id, job, lease } = await claimedCampaign();
  const worker = await db.transaction();
  // the log line's foreign key holds the job row shared, as the runner's first write does
  await logJob(worker, job, 'info', 'picked up the job');
  const deleting = api('DELETE', `/v1/campaigns/${id}`);
  await someoneWaits();
  await updateFenced(worker, lease, { phase: 'proposing' });
  await worker.commit();
  const deleted = await deleting;
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await api('GET', `/v1/campaigns/${id}`)).status, 404);
  assert.equal((await db('jobs').where({ id: job.id })).length, 0);
});

test('ending a job waits for its campaign before it takes the job row', async () => {
  const { id, job, lease } = await claimedCampaign();
  const holder = await db.transaction();
  await lockCampaign(holder, id);
  const ending = db.transaction((trx) => endJob(trx, job, lease, { job: 'completed', campaign: 'completed', level: 'info', message: 'Completed.' }));
  await someoneWaits();
  // the job row is still free while the ending waits for the campaign
  const free = await db.transaction(async (trx) => (await trx.raw('select id from jobs where id = ? for update nowait', [job.id])).rows.length);
  assert.equal(free, 1);
  await holder.commit();
  await ending;
  assert.equal((await api('GET', `/v1/jobs/${job.id}`)).json.data.status, 'completed');
  assert.equal((await api('GET', `/v1/campaigns/${id}`)).json.data.status, 'completed');
});

test('a cancel through the API takes the campaign row before the job row', async () => {
  const { id, job } = await claimedCampaign();
  const holder = await db.transaction();
  await lockCampaign(holder, id);
  const cancelling = api('POST', `/v1/jobs/${job.id}/cancel`);
  await someoneWaits();
  const free = await db.transaction(async (trx) => (await trx.raw('select id from jobs where id = ? for update nowait', [job.id])).rows.length);
  assert.equal(free, 1);
  await holder.commit();
  const cancelled = await cancelling;
  assert.equal(cancelled.status, 202, cancelled.text);
  assert.equal(cancelled.json.data.cancel_requested, true);
});

test('the reaper passes over a lapsed job whose campaign another transaction holds, and takes it on the next sweep', async () => {
  const { id, job } = await claimedCampaign(0);
  const holder = await db.transaction();
  await lockCampaign(holder, id);
  const whileHeld = await db.transaction((trx) => overdueJobs(trx));
  assert.deepEqual(
    whileHeld.map((j) => j.id),
    [],
  );
  await holder.commit();
  const afterwards = await db.transaction((trx) => overdueJobs(trx));
  assert.deepEqual(
    afterwards.map((j) => [j.id, j.overdue]),
    [[job.id, 'lease']],
  );
});
