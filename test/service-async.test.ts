import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * Asynchronous batches of an external campaign, through a real server and real workers:
 * candidates?count=N proposes new candidates while others are pending, conditioned on them (no
 * repeats), with the iterations completed in order whichever batch's results come first; and
 * optimizer.batch_deadline_hours abandons what is overdue so the campaign goes on.
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

async function startCampaign(name: string, mdl: unknown) {
  const created = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const started = await api('POST', `/v1/campaigns/${created.json.data.id}/start`);
  assert.equal(started.status, 202, started.text);
  return { id: created.json.data.id as string, jobId: started.json.data.job.id as string };
}

const job = async (id: string) => (await api('GET', `/v1/jobs/${id}`)).json.data;
const campaign = async (id: string) => (await api('GET', `/v1/campaigns/${id}`)).json.data;

/** The candidates list once the job waits for results and `ready` holds of it. */
async function waitingList(id: string, jobId: string, ready: (list: Candidate[]) => boolean, query = '') {
  return eventually(
    async () => {
      const res = await api('GET', `/v1/campaigns/${id}/candidates${query}`);
      assert.equal(res.status, 200, res.text);
      const list = res.json.data as Candidate[];
      return (await job(jobId)).status === 'waiting' && ready(list) ? res.json : undefined;
    },
    120_000,
    'the job to wait with the candidates expected',
  );
}

async function tell(id: string, batch: readonly Candidate[]) {
  const res = await api('POST', `/v1/campaigns/${id}/evaluations`, {
    evaluations: batch.map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x1, c.parameters.x2) })),
  });
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

const distance = (a: Candidate, b: Candidate) => Math.hypot(a.parameters.x1 - b.parameters.x1, a.parameters.x2 - b.parameters.x2);

test('candidates?count=N proposes beside the pending candidates, never repeating them; iterations complete in order and results of both batches are taken', async () => {
  const { id, jobId } = await startCampaign('async', zdt1Mdl({ evaluator: null, budget: 14, batch: 2, seed: 3 }));
  const design = (await waitingList(id, jobId, (l) => l.length === 4)).data as Candidate[];
  await tell(id, design);
  const first = (await waitingList(id, jobId, (l) => l.length === 2 && l.every((c) => c.iteration === 2))).data as Candidate[];

  // five wanted, two pending: the job is asked for three more
  const asked = await api('GET', `/v1/campaigns/${id}/candidates?count=5`);
  assert.equal(asked.status, 200, asked.text);
  assert.deepEqual(
    asked.json.data.map((c: Candidate) => c.id),
    first.map((c) => c.id),
    'the pending ones are listed at once',
  );
  assert.equal(asked.json.meta.requested, 3, asked.text);
  assert.notEqual(asked.json.meta.state, 'awaiting_results', 'the job is queued or proposing for the request');

  const five = (await waitingList(id, jobId, (l) => l.length === 5, '?count=5')) as {
    data: Candidate[];
    meta: { requested?: number; pending_results: number };
  };
  const later = five.data.filter((c) => c.iteration === 3);
  assert.deepEqual(
    five.data.map((c) => c.iteration),
    [2, 2, 3, 3, 3],
    'the new candidates form iteration 3, after the pending iteration 2',
  );
  assert.equal(five.meta.requested, undefined, 'nothing more is asked: five wait for results');
  assert.equal(five.meta.pending_results, 5);
  assert.equal(new Set(five.data.map((c) => c.id)).size, 5);
  for (const c of later) for (const p of first) assert.ok(distance(c, p) > 1e-6, `${c.id} repeats the pending ${p.id}`);
  for (const c of later) for (const p of design) assert.ok(distance(c, p) > 1e-6, `${c.id} repeats the evaluated ${p.id}`);
  const waitingJob = await job(jobId);
  assert.equal(waitingJob.pending_results, 5);
  assert.equal((await campaign(id)).current_iteration, 1, 'iterations 2 and 3 are both open');
  const again = await api('GET', `/v1/campaigns/${id}/candidates?count=5`);
  assert.equal(again.json.data.length, 5);
  assert.equal(again.json.meta.requested, undefined, 'asking again for the same count asks nothing more');
  assert.equal(again.json.meta.state, 'awaiting_results');

  // the two open iterations move with the campaign: exported and imported, the same candidates wait
  const exported = (await api('GET', `/v1/campaigns/${id}/export`)).json;
  const doc = exported.data ?? exported;
  assert.deepEqual(
    doc.evaluations.filter((e: { status: string }) => e.status === 'pending').map((e: { iteration: number }) => e.iteration),
    [2, 2, 3, 3, 3],
  );
  const imported = await api('POST', '/v1/campaigns/import', { ...doc, name: 'async moved' });
  assert.equal(imported.status, 201, imported.text);
  const moved = (await api('GET', `/v1/campaigns/${imported.json.data.id}/candidates`)).json.data as Candidate[];
  assert.deepEqual(
    moved.map((c) => [c.iteration, c.parameters]),
    five.data.map((c) => [c.iteration, c.parameters]),
  );

  // the later batch's results first: they wait for iteration 2, and the job keeps waiting
  await tell(id, later);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal((await job(jobId)).status, 'waiting', 'results of a later batch do not wake the job');
  assert.equal((await campaign(id)).current_iteration, 1);
  const left = (await api('GET', `/v1/campaigns/${id}/candidates`)).json;
  assert.deepEqual(
    left.data.map((c: Candidate) => c.id),
    first.map((c) => c.id),
  );

  // then iteration 2's: both iterations complete, in order, and the next batch is proposed
  await tell(id, first);
  const next = (await waitingList(id, jobId, (l) => l.length === 2 && l.every((c) => c.iteration === 4))).data as Candidate[];
  const detail = await campaign(id);
  assert.equal(detail.current_iteration, 3);
  assert.equal(detail.evaluations_completed, 9);
  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.equal(results.evaluations.length, 9, 'results of both batches were taken');
  assert.deepEqual(
    results.evaluations.map((e: { iteration: number }) => e.iteration),
    [1, 1, 1, 1, 2, 2, 3, 3, 3],
  );
  assert.equal(results.convergence_history.length, 3, 'one hypervolume per completed iteration');
  for (const c of next) for (const e of results.evaluations) assert.ok(distance(c, e) > 1e-6);

  // the budget of 14 leaves 3 beside the 2 pending: a request for 10 gets 5 in all
  const capped = await api('GET', `/v1/campaigns/${id}/candidates?count=10`);
  assert.equal(capped.json.meta.requested, 3, capped.text);
  await waitingList(id, jobId, (l) => l.length === 5, '?count=10');
  const all = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
  await tell(id, all);
  await eventually(async () => ((await campaign(id)).status === 'completed' ? true : undefined), 60_000, 'the campaign to complete');
  const done = await campaign(id);
  assert.equal(done.evaluations_completed, 14);
  assert.equal(done.current_iteration, 5);
  const iterations = (await api('GET', `/v1/campaigns/${id}/results`)).json.data.evaluations.map((e: { iteration: number }) => e.iteration);
  assert.deepEqual(iterations, [1, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5]);
});

test('a bad count is refused with the error envelope; a worker-run campaign has no candidates to ask for', async () => {
  const { id } = await startCampaign('bad count', zdt1Mdl({ evaluator: null, budget: 6 }));
  for (const count of ['0', '-1', 'abc', '1.5', '1001']) {
    const res = await api('GET', `/v1/campaigns/${id}/candidates?count=${count}`);
    assert.equal(res.status, 422, `count=${count}: ${res.text}`);
    assert.equal(res.json.error.code, 'VALIDATION_FAILED');
    assert.match(res.text, /count/);
  }
  await api('POST', `/v1/campaigns/${id}/stop`);
  const builtin = await api('POST', '/v1/campaigns', { name: 'builtin', domain: 'benchmark', mdl: zdt1Mdl() });
  const refused = await api('GET', `/v1/campaigns/${builtin.json.data.id}/candidates?count=3`);
  assert.equal(refused.status, 409, refused.text);
  assert.match(refused.json.error.message, /external/);
});

test('optimizer.batch_deadline_hours: candidates without a result past the deadline are abandoned and the campaign goes on', async () => {
  const mdl = zdt1Mdl({ evaluator: null, budget: 10, batch: 2, seed: 5 });
  // 7.2 seconds
  const { id, jobId } = await startCampaign('deadline', { ...mdl, optimizer: { ...mdl.optimizer, batch_deadline_hours: 0.002 } });
  const design = (await waitingList(id, jobId, (l) => l.length === 4)).data as Candidate[];
  const measured = design.slice(0, 2);
  await tell(id, measured);
  assert.equal((await job(jobId)).status, 'waiting', 'half a batch does not wake the job');
  const next = (await waitingList(id, jobId, (l) => l.length === 2 && l.every((c) => c.iteration === 2))).data as Candidate[];
  assert.equal(next.length, 2);
  const detail = await campaign(id);
  assert.equal(detail.current_iteration, 1, 'the overdue iteration completed with the results that came');
  assert.equal(detail.evaluations_completed, 4, 'abandoned candidates count against the budget');
  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.deepEqual(
    results.evaluations.map((e: { id: string }) => e.id),
    measured.map((c) => c.id),
  );
  const logs = (await api('GET', `/v1/jobs/${jobId}/logs?tail=200`)).json.data as { level: string; message: string }[];
  assert.ok(
    logs.some((l) => l.level === 'warning' && /Iteration 1 is past its deadline: 2 candidates without a result are abandoned/.test(l.message)),
    JSON.stringify(logs.map((l) => l.message)),
  );
  // a late result corrects its abandoned candidate
  const late = design[2];
  const corrected = await api('PUT', `/v1/campaigns/${id}/evaluations/${late.id}`, { objectives: zdt1(late.parameters.x1, late.parameters.x2) });
  assert.equal(corrected.status, 200, corrected.text);
  assert.equal(corrected.json.data.correction.previous.status, 'abandoned');
  assert.match(corrected.json.data.correction.previous.error, /batch_deadline_hours/);
  await api('POST', `/v1/campaigns/${id}/stop`);
});
