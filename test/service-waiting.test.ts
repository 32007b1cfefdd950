import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * An external (ask/tell) campaign waiting for results holds no worker slot and no lease: on a
 * single slot, fifty of them waiting leave the slot free for a builtin campaign, and each takes
 * its next batch up when its results arrive.
 */
let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { WORKER_CONCURRENCY: '1' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Candidate {
  id: string;
  iteration: number;
  parameters: { x1: number; x2: number };
}

async function startCampaign(name: string, mdl: unknown, body: unknown = {}) {
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const started = await api('POST', `/v1/campaigns/${created.json.data.id}/start`, body);
  assert.equal(started.status, 202, started.text);
  return { id: created.json.data.id as string, jobId: started.json.data.job.id as string };
}

const job = async (id: string) => (await api('GET', `/v1/jobs/${id}`)).json.data;
const candidates = async (id: string) => (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
const jobsWith = async (status: string) => (await api('GET', `/v1/jobs?status=${status}&per_page=100`)).json;

async function tell(id: string, batch: readonly Candidate[]) {
  const res = await api('POST', `/v1/campaigns/${id}/evaluations`, {
    evaluations: batch.map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x1, c.parameters.x2) })),
  });
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

test('fifty waiting external campaigns leave the single worker slot to a builtin campaign, and resume when their results arrive', async () => {
  const WAITING = 50;
  const t0 = Date.now();
  const external: { id: string; jobId: string }[] = [];
  for (let i = 0; i < WAITING; i++) external.push(await startCampaign(`lab ${i}`, zdt1Mdl({ evaluator: null, budget: 8, batch: 2, seed: i + 1 })));
  // each proposes its initial design on the one slot, then parks and gives the slot up
  await eventually(async () => ((await jobsWith('waiting')).meta.total === WAITING ? true : undefined), 240_000, 'all fifty to wait');
  const parkedSeconds = seconds(Date.now() - t0);
  for (const e of external.slice(0, 3)) {
    const j = await job(e.jobId);
    assert.equal(j.status, 'waiting');
    assert.equal(j.progress.current_phase, 'awaiting_evaluations');
    assert.equal(j.pending_results, 4, 'the initial design of 4 is awaited');
    assert.equal(j.worker_id, null, 'a waiting job holds no worker');
    assert.equal((await api('GET', `/v1/campaigns/${e.id}`)).json.data.status, 'running', 'the campaign is running from the user’s point of view');
  }
  assert.equal((await jobsWith('running')).meta.total, 0, 'no job holds the slot');

  // the builtin campaign takes the free slot at once and completes
  const t1 = Date.now();
  const builtin = await startCampaign('builtin', zdt1Mdl({ budget: 10, batch: 2 }));
  const claimed = await eventually(async () => ((await job(builtin.jobId)).started_at ? Date.now() : undefined), 10_000, 'the builtin job to start');
  const done = await eventually(
    async () => {
      const j = await job(builtin.jobId);
      assert.notEqual(j.status, 'failed', j.error);
      return j.status === 'completed' ? Date.now() : undefined;
    },
    120_000,
    'the builtin campaign to complete',
  );
  const builtinStart = seconds(claimed - t1);
  const builtinDone = seconds(done - t1);
  assert.ok(builtinStart < 10, `the builtin job started after ${builtinStart} s`);

  // a partial batch only updates the count; the whole batch queues the job again
  const firstBatches = await Promise.all(external.map((e) => candidates(e.id)));
  assert.ok(firstBatches.every((b) => b.length === 4));
  assert.deepEqual(await tell(external[0].id, firstBatches[0].slice(0, 1)), { accepted: 1, duplicates: 0, awaiting: 3, partial: [] });
  assert.equal((await job(external[0].jobId)).pending_results, 3);
  assert.equal((await job(external[0].jobId)).status, 'waiting');

  const t2 = Date.now();
  for (let i = 0; i < WAITING; i++) {
    const rest = i === 0 ? firstBatches[0].slice(1) : firstBatches[i];
    assert.equal((await tell(external[i].id, rest)).awaiting, 0);
  }
  // each is taken up, tells its batch, proposes the next one (2 candidates) and waits again
  await eventually(
    async () => {
      const jobs = await Promise.all(external.map((e) => job(e.jobId)));
      return jobs.every((j) => j.status === 'waiting' && j.progress.evaluations_completed === 4 && j.pending_results === 2) ? true : undefined;
    },
    240_000,
    'all fifty to take up their next batch',
  );
  const resumedSeconds = seconds(Date.now() - t2);
  for (const e of external.slice(0, 3)) {
    const next = await candidates(e.id);
    assert.equal(next.length, 2);
    assert.ok(next.every((c) => c.iteration === 2));
  }
  const log = (await api('GET', `/v1/jobs/${external[1].jobId}/logs?tail=100`)).json.data as { message: string }[];
  assert.ok(log.some((l) => /the results of its 4 candidates have arrived/.test(l.message)));
  assert.equal((await job(external[1].jobId)).attempt, 2, 'one claim for the initial design, one after the wait');

  console.log(
    `figures: ${WAITING} external campaigns parked after ${parkedSeconds} s; builtin job started ${builtinStart} s and completed ${builtinDone} s after its start ` +
      `with all ${WAITING} waiting on one slot; all ${WAITING} took up their next batch and waited again ${resumedSeconds} s after their results were posted`,
  );
});

test('the wait is left out of the timeout; a waiting job is cancelled at once; start and retry take a new timeout', async () => {
  // a 1.8 s timeout: the optimizer's own compute fits in it, the wait for the lab does not
  const lab = await startCampaign('short timeout', zdt1Mdl({ evaluator: null, budget: 6, batch: 2 }), { timeout_hours: 0.0005 });
  const batch = await eventually(async () => {
    const c = await candidates(lab.id);
    return c.length > 0 && (await job(lab.jobId)).status === 'waiting' ? c : undefined;
  });
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal((await job(lab.jobId)).status, 'waiting', 'four seconds of waiting do not time the job out');
  await tell(lab.id, batch);
  await eventually(async () => {
    const j = await job(lab.jobId);
    assert.notEqual(j.status, 'failed', j.error);
    return j.status === 'waiting' && j.progress.evaluations_completed === 4 ? j : undefined;
  });

  // stop while waiting: no worker holds the job, so it ends at once
  const stopped = await api('POST', `/v1/campaigns/${lab.id}/stop`);
  assert.equal(stopped.status, 202, stopped.text);
  assert.equal(stopped.json.data.job.status, 'cancelled');
  assert.equal(stopped.json.data.campaign.status, 'stopped');

  // a builtin job timed out (a timeout too short for any compute) fails; retry takes a new timeout
  const tight = await startCampaign('tight', zdt1Mdl({ budget: 30, batch: 2 }), { timeout_hours: 0.0000001 });
  const failed = await eventually(async () => {
    const j = await job(tight.jobId);
    return j.status === 'failed' || j.status === 'completed' ? j : undefined;
  });
  assert.equal(failed.status, 'failed', 'a timeout of 0.36 ms is overrun');
  assert.equal(failed.error, 'timed out');
  const retried = await api('POST', `/v1/jobs/${tight.jobId}/retry`, { timeout_hours: 2 });
  assert.equal(retried.status, 202, retried.text);
  assert.equal(retried.json.data.timeout_hours, 2);
  const bad = await api('POST', `/v1/jobs/${tight.jobId}/retry`, { timeout_hours: -1 });
  assert.equal(bad.status, 422, bad.text);
  await eventually(async () => ((await job(retried.json.data.id)).status === 'completed' ? true : undefined), 120_000, 'the retry to complete');

  // a failed campaign can also be started again, with a new timeout
  const again = await startCampaign('tight again', zdt1Mdl({ budget: 30, batch: 2 }), { timeout_hours: 0.0000001 });
  await eventually(async () => ((await job(again.jobId)).status === 'failed' ? true : undefined));
  const restart = await api('POST', `/v1/campaigns/${again.id}/start`, { timeout_hours: 1 });
  assert.equal(restart.status, 202, restart.text);
  assert.equal(restart.json.data.job.timeout_hours, 1);
  const twice = await api('POST', `/v1/campaigns/${again.id}/start`, { timeout_hours: 1 });
  assert.equal(twice.status, 409, 'a running campaign is not started twice');
});

test('the candidates endpoint says why it is empty: not started, queued behind what, awaiting results, ended', async () => {
  const created = await api('POST', '/v1/campaigns', { name: 'why empty', domain: 'benchmark', mdl: zdt1Mdl({ evaluator: null, budget: 4, batch: 2 }) });
  const id = created.json.data.id as string;
  const meta = async () => (await api('GET', `/v1/campaigns/${id}/candidates`)).json;
  const fresh = await meta();
  assert.deepEqual(fresh.data, []);
  assert.equal(fresh.meta.state, 'not_started');
  assert.match(fresh.meta.message, /start it/);

  // the one slot is busy with a builtin campaign: the external one is queued behind nothing, one job running
  const busy = await startCampaign('busy', zdt1Mdl({ budget: 60, batch: 2 }));
  await eventually(async () => ((await job(busy.jobId)).status === 'running' ? true : undefined));
  assert.equal((await api('POST', `/v1/campaigns/${id}/start`)).status, 202);
  const queued = await meta();
  if (queued.meta.state === 'queued') {
    assert.equal(queued.meta.queued_ahead, 0);
    assert.equal(queued.meta.running_jobs, 1);
    assert.match(queued.meta.message, /waits for a worker slot/);
  } else {
    // the busy campaign finished first on a fast machine
    assert.ok(['proposing', 'awaiting_results'].includes(queued.meta.state), queued.meta.state);
  }

  const awaiting = await eventually(async () => {
    const m = await meta();
    return m.meta.state === 'awaiting_results' ? m : undefined;
  }, 120_000);
  assert.equal(awaiting.meta.pending_results, 4);
  assert.equal(awaiting.data.length, 4);
  await tell(id, awaiting.data);
  // the initial design spends the budget of 4: the campaign completes and proposes nothing more
  const ended = await eventually(async () => {
    const m = await meta();
    assert.ok(['proposing', 'queued', 'ended'].includes(m.meta.state), m.meta.state);
    return m.meta.state === 'ended' ? m : undefined;
  });
  assert.deepEqual(ended.data, []);
  assert.equal(ended.meta.pending_results, 0);
  await api('POST', `/v1/campaigns/${busy.id}/stop`);
});
