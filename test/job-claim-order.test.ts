import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../src/store/db.js';
import { claimNextJob } from '../src/store/jobs.js';
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

  const b = await queued('b');
  await ensureOrganization(db, { id: 'org_third', name: 'Third', plan: 'pro' });
  const c = await queued('c');
  await db('campaigns').where({ id: c.campaign }).update({ organization_id: 'org_third' });
  await db('jobs').where({ id: c.job }).update({ organization_id: 'org_third' });
  // the admin organization's job only waits, so it runs none: its older job b goes first
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
