import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { messageText } from '../src/api/ws-text.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

/**
 * While no evaluation is inside the reference box the hypervolume is 0; the service shows the
 * progress that exists instead: the closest feasible evaluation and how far it misses each
 * objective's reference, in the job's progress, its live events, its log and the results.
 */

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Distance {
  evaluation_id: string;
  distance: Record<string, number>;
}

// ZDT1 with f1 < 0.05 has f2 > 0.77: no design dominates (0.05, 0.05), so the box is never reached
const REFERENCE = { f1: 0.05, f2: 0.05 };

/** How far an evaluation misses the (minimized) references, computed here from its objectives. */
function gaps(objectives: Record<string, number>): Record<string, number> {
  return { f1: Math.max(0, objectives.f1 - REFERENCE.f1), f2: Math.max(0, objectives.f2 - REFERENCE.f2) };
}

test("a campaign short of its reference box shows the closest evaluation's gaps in progress, live events, the log and the results", async () => {
  const base = zdt1Mdl({ budget: 10, batch: 2 });
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, reference: REFERENCE[o.name as 'f1' | 'f2'] })) };
  const created = await api('POST', '/v1/campaigns', { name: 'short of the box', domain: 'benchmark', mdl });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;

  const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws?token=${kiln.adminKey}`);
  const events: any[] = [];
  ws.on('message', (raw) => events.push(JSON.parse(messageText(raw))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'subscribe', campaign_id: id }));
  await eventually(async () => (events.some((e) => e.type === 'subscribed') ? true : undefined), 5_000, 'subscription');

  const started = await api('POST', `/v1/campaigns/${id}/start`, {});
  assert.equal(started.status, 202, started.text);
  const jobId = started.json.data.job.id as string;
  const done = await eventually(
    async () => {
      const c = (await api('GET', `/v1/campaigns/${id}`)).json.data;
      return ['completed', 'failed'].includes(c.status) ? c : undefined;
    },
    60_000,
    'the campaign to end',
  );
  assert.equal(done.status, 'completed');
  assert.equal(done.hypervolume, 0);
  await eventually(async () => (events.some((e) => e.type === 'job.status' && e.data.status === 'completed') ? true : undefined), 5_000, 'completion event');
  ws.close();

  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  const byId = new Map<string, { iteration: number; objectives: Record<string, number> }>(results.evaluations.map((e: { id: string }) => [e.id, e]));
  assert.equal(byId.size, 10);

  // every iteration's live progress names an evaluation made by then, with its gaps per objective
  const progress = events.filter((e) => e.type === 'job.progress').map((e) => e.data);
  assert.deepEqual(
    progress.map((p) => p.iteration),
    [1, 2, 3, 4],
  );
  for (const p of progress) {
    const d = p.reference_distance as Distance;
    assert.ok(d, `iteration ${p.iteration} has a reference distance`);
    const closest = byId.get(d.evaluation_id);
    assert.ok(closest, `${d.evaluation_id} is an evaluation of the campaign`);
    assert.ok(closest.iteration <= p.iteration, `${d.evaluation_id} was evaluated by iteration ${p.iteration}`);
    const expected = gaps(closest.objectives);
    for (const name of ['f1', 'f2']) assert.ok(Math.abs(d.distance[name] - expected[name]) < 1e-12, `${name}: ${d.distance[name]} against ${expected[name]}`);
    assert.equal(p.hypervolume, 0);
  }

  // the stored job and the results carry the last iteration's distance
  const last = progress.at(-1).reference_distance as Distance;
  const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
  assert.deepEqual(job.progress.reference_distance, last);
  assert.deepEqual(results.reference_distance, last);

  // each iteration's log line says it in words
  const logs = (await api('GET', `/v1/jobs/${jobId}/logs?level=info`)).json.data as { message: string }[];
  const lines = logs.filter((l) => /^Iteration \d+ /.test(l.message));
  assert.equal(lines.length, 4);
  for (const [i, line] of lines.entries()) {
    const d = progress[i].reference_distance as Distance;
    assert.match(line.message, new RegExp(`hypervolume 0 \\(reference not reached: closest ${d.evaluation_id} misses f1 by [\\d.e+-]+, f2 by [\\d.e+-]+\\)`));
  }
});

test('once an evaluation is inside the reference box, no distance is reported', async () => {
  const created = await api('POST', '/v1/campaigns', { name: 'inside the box', domain: 'benchmark', mdl: zdt1Mdl({ budget: 6, batch: 2 }) });
  assert.equal(created.status, 201, created.text);
  const id = created.json.data.id as string;
  const started = await api('POST', `/v1/campaigns/${id}/start`, {});
  const jobId = started.json.data.job.id as string;
  await eventually(async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.status === 'completed' ? true : undefined), 60_000, 'the campaign to end');
  const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
  assert.ok(results.hypervolume > 0);
  assert.equal(results.reference_distance, undefined);
  assert.equal((await api('GET', `/v1/jobs/${jobId}`)).json.data.progress.reference_distance, undefined);
  const logs = (await api('GET', `/v1/jobs/${jobId}/logs?level=info`)).json.data as { message: string }[];
  assert.ok(!logs.some((l) => l.message.includes('reference not reached')));
});
