import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database(), { KILN_HTTP_EVALUATOR_HOSTS: '127.0.0.1' });
  api = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

type Candidate = { id: string; iteration: number; parameters: { x1: number; x2: number } };
type Row = { id: string; parameters: Record<string, number>; objectives: Record<string, number>; iteration: number; is_pareto: boolean };
type Log = { timestamp: string; level: string; message: string };

async function createCampaign(name: string, mdl: unknown) {
  const res = await api('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id as string;
}

async function startCampaign(id: string) {
  const res = await api('POST', `/v1/campaigns/${id}/start`);
  assert.equal(res.status, 202, res.text);
  return res.json.data.job.id as string;
}

async function campaign(id: string) {
  const res = await api('GET', `/v1/campaigns/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

/** Waits for one of `statuses`; an unexpected end state fails at once with the job's logs. */
async function waitForCampaign(id: string, statuses: string[], ms = 45_000) {
  const ended = ['completed', 'converged', 'failed', 'stopped'];
  return eventually(
    async () => {
      const c = await campaign(id);
      if (statuses.includes(c.status)) return c;
      if (ended.includes(c.status)) {
        const logs = c.latest_job_id ? await jobLogs(c.latest_job_id) : [];
        assert.fail(`campaign ${id} ended ${c.status}, expected ${statuses.join('/')}; logs:\n${logs.map((l) => `${l.level}: ${l.message}`).join('\n')}`);
      }
      return undefined;
    },
    ms,
    `campaign ${id} to reach ${statuses.join('/')}`,
  );
}

async function jobLogs(jobId: string): Promise<Log[]> {
  const res = await api('GET', `/v1/jobs/${jobId}/logs?tail=10000`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

async function results(id: string): Promise<{ evaluations: Row[]; pareto_front: Row[]; hypervolume: number; convergence_history: number[] }> {
  const res = await api('GET', `/v1/campaigns/${id}/results`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

function errorPaths(res: { json: any }): string[] {
  return res.json.error.details.errors.map((e: { path: string }) => e.path);
}

describe('external (ask/tell) evaluation', () => {
  test('the lab fetches candidates and posts results until the budget is spent', async () => {
    const id = await createCampaign('ask-tell', zdt1Mdl({ evaluator: null, budget: 8, batch: 2 }));
    const jobId = await startCampaign(id);

    const first = await eventually(
      async () => {
        const res = await api('GET', `/v1/campaigns/${id}/candidates`);
        assert.equal(res.status, 200, res.text);
        return res.json.data.length > 0 ? (res.json.data as Candidate[]) : undefined;
      },
      30_000,
      'the initial candidates',
    );
    assert.equal(first.length, 4, 'the initial design (initial_samples 4) is one batch');
    for (const c of first) {
      assert.deepEqual(Object.keys(c).sort(), ['id', 'iteration', 'parameters']);
      assert.match(c.id, /^eval_/);
      assert.equal(c.iteration, 1);
      assert.deepEqual(Object.keys(c.parameters).sort(), ['x1', 'x2']);
      for (const v of Object.values(c.parameters)) assert.ok(v >= 0 && v <= 1);
    }
    assert.equal(new Set(first.map((c) => c.id)).size, 4);
    await eventually(
      async () => {
        const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
        return job.progress.current_phase === 'awaiting_evaluations' ? job : undefined;
      },
      10_000,
      'the job to wait for evaluations',
    );

    const path = `/v1/campaigns/${id}/evaluations`;
    const c0 = first[0];
    const v0 = zdt1(c0.parameters.x1, c0.parameters.x2);

    // every entry is checked, and nothing is stored when one is wrong
    const unknown = await api('POST', path, { evaluations: [{ id: 'eval_nope', objectives: v0 }] });
    assert.equal(unknown.status, 422, unknown.text);
    assert.equal(unknown.json.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(errorPaths(unknown), ['evaluations[0].id']);

    const missing = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { f1: v0.f1 } }] });
    assert.equal(missing.status, 422, missing.text);
    assert.deepEqual(errorPaths(missing), ['evaluations[0].objectives.f2']);
    // (null is a value not measured, a partial measurement: service-results-entry.test.ts)
    const text = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { f1: v0.f1, f2: '3' } }] });
    assert.equal(text.status, 422, text.text);
    // the string "NaN" is a client's mistake, unlike a bare NaN token (a failed measurement, below)
    const nanText = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { f1: v0.f1, f2: 'NaN' } }] });
    assert.equal(nanText.status, 422, nanText.text);
    assert.deepEqual(errorPaths(nanText), ['evaluations[0].objectives.f2']);
    const broken = await api('POST', path, `{"evaluations":[{"id":"${c0.id}","objectives":{"f1":NaNa}}]}`);
    assert.equal(broken.status, 400, broken.text);

    const extra = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { ...v0, f3: 1 } }] });
    assert.equal(extra.status, 422, extra.text);
    assert.equal(extra.json.error.code, 'VALIDATION_FAILED');
    assert.deepEqual(errorPaths(extra), ['evaluations[0].objectives.f3']);

    const noList = await api('POST', path, { results: [] });
    assert.equal(noList.status, 422, noList.text);
    assert.equal(noList.json.error.code, 'VALIDATION_FAILED');
    const empty = await api('POST', path, {});
    assert.equal(empty.status, 422, empty.text);
    assert.ok(errorPaths(empty).includes('evaluations'), errorPaths(empty).join(', '));

    // a good entry next to a bad one: all or nothing
    const mixed = await api('POST', path, {
      evaluations: [
        { id: c0.id, objectives: v0 },
        { id: 'eval_nope', objectives: v0 },
      ],
    });
    assert.equal(mixed.status, 422, mixed.text);
    assert.deepEqual(errorPaths(mixed), ['evaluations[1].id']);
    assert.equal((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data.length, 4, 'a rejected post stores nothing');

    // a partial batch, then the same again (idempotent), then a different value (409)
    const posted = new Map<string, { f1: number; f2: number }>();
    const partial = await api('POST', path, { evaluations: [{ id: c0.id, objectives: v0 }] });
    assert.equal(partial.status, 200, partial.text);
    assert.deepEqual(partial.json.data, { accepted: 1, duplicates: 0, awaiting: 3, partial: [] });
    posted.set(c0.id, v0);
    const repost = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { f2: v0.f2, f1: v0.f1 } }] });
    assert.equal(repost.status, 200, repost.text);
    assert.deepEqual(repost.json.data, { accepted: 0, duplicates: 1, awaiting: 3, partial: [] });
    const changed = await api('POST', path, { evaluations: [{ id: c0.id, objectives: { f1: v0.f1, f2: v0.f2 + 1 } }] });
    assert.equal(changed.status, 409, changed.text);
    assert.equal(changed.json.error.code, 'INVALID_STATE');
    const asError = await api('POST', path, { evaluations: [{ id: c0.id, error: 'second thoughts' }] });
    assert.equal(asError.status, 409, asError.text);
    const waiting = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
    assert.deepEqual(
      waiting.map((c) => c.id),
      first.slice(1).map((c) => c.id),
    );
    assert.equal((await api('GET', `/v1/jobs/${jobId}`)).json.data.progress.current_phase, 'awaiting_evaluations');

    // the rest of the batch, as Python's json.dumps writes it: one unmeasurable, one with
    // non-finite values (a bare NaN token and 1e400), which fail that candidate only
    const cracked = first[1].id;
    const nonFinite = first[2].id;
    const rest = first.slice(1).map((c) => {
      if (c.id === cracked) return { id: c.id, error: 'sample cracked' };
      if (c.id === nonFinite) return { id: c.id, objectives: { f1: 'INF', f2: 'NAN' } };
      const v = zdt1(c.parameters.x1, c.parameters.x2);
      posted.set(c.id, v);
      return { id: c.id, objectives: v };
    });
    const pythonText = JSON.stringify({ evaluations: rest }).replace('"INF"', '1e400').replace('"NAN"', 'NaN');
    const restRes = await api('POST', path, pythonText);
    assert.equal(restRes.status, 200, restRes.text);
    assert.deepEqual(restRes.json.data, { accepted: 3, duplicates: 0, awaiting: 0, partial: [] }, 'a candidate with no finite value is failed, not partial');
    const nonFiniteError = "objective 'f1' is Infinity, not a finite number; objective 'f2' is NaN, not a finite number";

    // play the lab until the campaign completes
    const seen = new Set(first.map((c) => c.id));
    const iterations = new Set<number>([1]);
    let repostedAcrossIterations = false;
    const done = await eventually(
      async () => {
        const c = await campaign(id);
        if (c.status !== 'running') return c;
        const batch = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
        const fresh = batch.filter((b) => !seen.has(b.id));
        if (fresh.length === 0) return undefined;
        assert.ok(
          fresh.every((b) => b.iteration > 1 && b.id.startsWith('eval_')),
          JSON.stringify(fresh),
        );
        if (!repostedAcrossIterations) {
          // a result posted for an earlier, already stored iteration is still a harmless duplicate
          const again = await api('POST', path, { evaluations: [{ id: c0.id, objectives: v0 }] });
          assert.equal(again.status, 200, again.text);
          assert.deepEqual(again.json.data, { accepted: 0, duplicates: 1, awaiting: batch.length, partial: [] });
          const crackedAgain = await api('POST', path, { evaluations: [{ id: cracked, error: 'sample cracked' }] });
          assert.equal(crackedAgain.status, 200, crackedAgain.text);
          assert.equal(crackedAgain.json.data.duplicates, 1);
          assert.equal((await api('POST', path, { evaluations: [{ id: cracked, objectives: v0 }] })).status, 409);
          repostedAcrossIterations = true;
        }
        const evaluations = fresh.map((b) => {
          seen.add(b.id);
          iterations.add(b.iteration);
          const v = zdt1(b.parameters.x1, b.parameters.x2);
          posted.set(b.id, v);
          return { id: b.id, objectives: v };
        });
        const res = await api('POST', path, { evaluations });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.data.accepted, fresh.length);
        return undefined;
      },
      45_000,
      'the external campaign to complete',
    );
    assert.equal(done.status, 'completed');
    assert.deepEqual([...iterations].sort(), [1, 2, 3], 'initial design of 4, then two batches of 2');
    assert.equal(seen.size, 8);
    assert.equal(done.evaluations_completed, 8, 'the failed candidate counts against the budget');
    assert.equal(done.current_iteration, 3);

    const r = await results(id);
    // results list successful evaluations only: the cracked sample has no objective values
    assert.equal(r.evaluations.length, 6);
    assert.ok(!r.evaluations.some((e) => e.id === cracked || e.id === nonFinite));
    assert.deepEqual(
      (r as any).failed_evaluations.map((e: { id: string; error: string }) => [e.id, e.error]),
      [
        [cracked, 'sample cracked'],
        [nonFinite, nonFiniteError],
      ],
    );
    assert.deepEqual(new Set(r.evaluations.map((e) => e.id)), new Set(posted.keys()));
    for (const e of r.evaluations) {
      assert.deepEqual(e.objectives, posted.get(e.id), e.id);
      const proposed = first.find((c) => c.id === e.id);
      if (proposed) assert.deepEqual(e.parameters, proposed.parameters);
    }
    assert.equal(r.convergence_history.length, 3);
    assert.equal(r.convergence_history.at(-1), r.hypervolume);

    const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
    assert.equal(job.status, 'completed');
    const logs = await jobLogs(jobId);
    assert.ok(
      logs.some((l) => l.level === 'warning' && l.message.includes('sample cracked') && l.message.includes(cracked)),
      logs.map((l) => `${l.level}: ${l.message}`).join('\n'),
    );

    // nothing waits any more; the ended campaign takes no more results for unknown ids
    assert.deepEqual((await api('GET', `/v1/campaigns/${id}/candidates`)).json.data, []);
    const late = await api('POST', path, { evaluations: [{ id: 'eval_late', objectives: v0 }] });
    assert.equal(late.status, 422);
  });

  test('candidates and evaluations are for external campaigns only; unknown campaigns are 404', async () => {
    const builtin = await createCampaign('builtin', zdt1Mdl());
    const body = { evaluations: [{ id: 'eval_x', objectives: { f1: 1, f2: 1 } }] };
    for (const res of [await api('GET', `/v1/campaigns/${builtin}/candidates`), await api('POST', `/v1/campaigns/${builtin}/evaluations`, body)]) {
      assert.equal(res.status, 409, res.text);
      assert.equal(res.json.error.code, 'INVALID_STATE');
      assert.match(res.json.error.message, /builtin/);
    }
    const explicit = await createCampaign('explicit-external', { ...zdt1Mdl(), evaluator: { type: 'external' } });
    assert.deepEqual((await api('GET', `/v1/campaigns/${explicit}/candidates`)).json.data, [], 'not started: nothing proposed yet');
    for (const res of [await api('GET', '/v1/campaigns/camp_nope/candidates'), await api('POST', '/v1/campaigns/camp_nope/evaluations', body)]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.json.error.code, 'NOT_FOUND');
    }
  });

  test('a campaign whose every evaluation failed ends failed, not completed, when the budget is too small for max_failed_iterations', async () => {
    const id = await createCampaign('all-failing', zdt1Mdl({ evaluator: null, budget: 6, batch: 2 }));
    const jobId = await startCampaign(id);
    for (let told = 0; told < 6;) {
      const batch = await eventually(
        async () => {
          const data = (await api('GET', `/v1/campaigns/${id}/candidates`)).json.data as Candidate[];
          return data.length > 0 ? data : undefined;
        },
        30_000,
        `candidates after ${told}`,
      );
      const posted = await api('POST', `/v1/campaigns/${id}/evaluations`, {
        evaluations: batch.map((c) => ({ id: c.id, status: 'failed', reason: 'the press jammed' })),
      });
      assert.equal(posted.status, 200, posted.text);
      told += batch.length;
    }
    const ended = await waitForCampaign(id, ['failed', 'completed']);
    assert.equal(ended.status, 'failed');
    assert.match(ended.stop_message, /^The budget of 6 evaluations is spent and no evaluation succeeded \(6 failed\); the last error: .*the press jammed/);
    const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
    assert.equal(job.status, 'failed');
  });
});

/** A lab service speaking the http evaluator protocol with ZDT1; it can be told to answer 500. */
class Lab {
  server: Server;
  failing = false;
  /** after this many successful batches the lab goes down by itself */
  failAfterBatches = Infinity;
  batches = 0;
  failedRequests = 0;
  /** every candidate evaluated successfully, parameters as JSON */
  evaluated: string[] = [];

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/evaluate') {
          res.writeHead(404).end();
          return;
        }
        if (this.failing) {
          this.failedRequests += 1;
          res.writeHead(500, { 'content-type': 'text/plain' }).end('furnace offline');
          return;
        }
        const request = JSON.parse(body) as { candidates: { id: string; parameters: { x1: number; x2: number } }[]; objectives: string[] };
        if (JSON.stringify(request.objectives) !== '["f1","f2"]') {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`unexpected objectives ${JSON.stringify(request.objectives)}`);
          return;
        }
        const answer = {
          results: request.candidates.map((c) => {
            this.evaluated.push(JSON.stringify([c.parameters.x1, c.parameters.x2]));
            return { objectives: zdt1(c.parameters.x1, c.parameters.x2) };
          }),
        };
        this.batches += 1;
        if (this.batches >= this.failAfterBatches) this.failing = true;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/evaluate`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('outcome constraints through the API', () => {
  test('a lab posts outcomes; results, CSV and progress say which evaluations are feasible', async () => {
    const mdl = {
      ...zdt1Mdl({ evaluator: null, budget: 8, batch: 2 }),
      outcomes: [{ name: 'purity', unit: '%' }],
      outcome_constraints: [{ expression: 'purity >= 90' }],
    };
    const id = await createCampaign('outcomes', mdl);
    const jobId = await startCampaign(id);
    const path = `/v1/campaigns/${id}/evaluations`;
    // purity falls with x1: feasible where x1 <= 0.5
    const purity = (c: Candidate) => 100 - 20 * c.parameters.x1;
    let rounds = 0;
    while ((await campaign(id)).status === 'running' && rounds < 20) {
      const batch = await eventually(
        async () => {
          const c = await campaign(id);
          if (c.status !== 'running') return [] as Candidate[];
          const res = await api('GET', `/v1/campaigns/${id}/candidates`);
          return res.json.data.length > 0 ? (res.json.data as Candidate[]) : undefined;
        },
        30_000,
        'candidates',
      );
      if (batch.length === 0) break;
      if (rounds === 0) {
        const c0 = batch[0];
        const lacking = await api('POST', path, { evaluations: [{ id: c0.id, objectives: zdt1(c0.parameters.x1, c0.parameters.x2) }] });
        assert.equal(lacking.status, 422, lacking.text);
        assert.deepEqual(errorPaths(lacking), ['evaluations[0].outcomes.purity']);
        const unknown = await api('POST', path, {
          evaluations: [{ id: c0.id, objectives: zdt1(c0.parameters.x1, c0.parameters.x2), outcomes: { purity: 95, colour: 2 } }],
        });
        assert.equal(unknown.status, 422, unknown.text);
        assert.deepEqual(errorPaths(unknown), ['evaluations[0].outcomes.colour']);
        assert.match(unknown.json.error.details.errors[0].message, /is not an outcome of this campaign \(purity\)/);
      }
      const posted = await api('POST', path, {
        // "error": null beside the values, as a Python lab prints None, means no error
        evaluations: batch.map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x1, c.parameters.x2), outcomes: { purity: purity(c) }, error: null })),
      });
      assert.equal(posted.status, 200, posted.text);
      rounds++;
      await eventually(
        async () => {
          const res = await api('GET', `/v1/campaigns/${id}/candidates`);
          const c = await campaign(id);
          return c.status !== 'running' || !res.json.data.some((x: Candidate) => batch.some((b) => b.id === x.id)) ? true : undefined;
        },
        30_000,
        'the batch to be taken',
      );
    }
    const done = await waitForCampaign(id, ['completed']);
    assert.equal(done.stop_message, 'The budget of 8 evaluations is spent.');
    const res = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.equal(res.evaluations.length, 8);
    for (const e of res.evaluations) {
      assert.equal(e.outcomes.purity, 100 - 20 * e.parameters.x1);
      assert.equal(e.feasible, e.outcomes.purity >= 90, e.id);
      if (e.is_pareto) assert.ok(e.feasible);
    }
    const feasible = res.evaluations.filter((e: { feasible: boolean }) => e.feasible);
    for (const [name, value] of Object.entries(done.best_objectives)) {
      assert.equal(value, Math.min(...feasible.map((e: Row) => e.objectives[name])), `best ${name} among feasible evaluations`);
    }
    const csv = await api('GET', `/v1/campaigns/${id}/results?format=csv`);
    assert.equal(csv.text.split('\n')[0], 'id,iteration,is_pareto,x1,x2,f1,f2,purity,feasible');
    const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
    assert.equal(job.progress.feasible_evaluations, feasible.length);
  });
});

describe('http evaluator', () => {
  test('a lab that goes down fails the campaign; a retry resumes without evaluating anything twice', async () => {
    const lab = new Lab();
    const url = await lab.listen();
    try {
      // the lab goes down right after the batch of iteration 2 (current_iteration reaches 2); doing
      // it in the lab rather than on a poll of the campaign makes the failing iterations exact
      lab.failAfterBatches = 2;
      const id = await createCampaign('http-lab', zdt1Mdl({ budget: 16, batch: 2, evaluator: { type: 'http', url, timeout_seconds: 5 } }));
      const failedJob = await startCampaign(id);

      const failed = await waitForCampaign(id, ['failed']);
      const job = (await api('GET', `/v1/jobs/${failedJob}`)).json.data;
      assert.equal(job.status, 'failed');
      assert.ok(job.error, 'a failed job says why');
      assert.ok(job.finished_at);
      // iterations 1 (design of 4) and 2 succeed, 3 to 5 fail entirely: the engine's stop rule
      // (optimizer.max_failed_iterations, default 3)
      assert.equal(failed.current_iteration, 5);
      assert.match(failed.stop_message, /^Every evaluation failed in the last 3 iterations \(optimizer\.max_failed_iterations\); the last error: /);
      assert.equal(failed.evaluations_completed, 12, 'failed candidates count against the budget');
      assert.equal(lab.batches, 2);
      assert.equal(lab.failedRequests, 9, 'three iterations, each tried 1 + 2 times');
      const logs = await jobLogs(failedJob);
      const dump = logs.map((l) => `${l.level}: ${l.message}`).join('\n');
      assert.ok(
        logs.some((l) => l.level === 'warning' && /failed for the whole batch of iteration 3/.test(l.message) && /500/.test(l.message)),
        dump,
      );
      assert.ok(
        logs.some((l) => l.level === 'warning' && /whole batch of iteration 5/.test(l.message)),
        dump,
      );
      assert.ok(
        logs.some((l) => l.level === 'error' && /failed in the last 3 iterations \(optimizer\.max_failed_iterations\)/.test(l.message)),
        dump,
      );
      const saved = await results(id);
      assert.equal(saved.evaluations.length, 6);
      assert.equal(saved.convergence_history.length, 5);

      lab.failing = false;
      lab.failAfterBatches = Infinity;
      const retry = await api('POST', `/v1/jobs/${failedJob}/retry`);
      assert.equal(retry.status, 202, retry.text);
      assert.equal(retry.json.data.retry_of, failedJob);
      assert.equal(retry.json.data.status, 'queued');
      assert.equal(retry.json.data.campaign_id, id);
      const newJob = retry.json.data.id as string;
      assert.notEqual(newJob, failedJob);
      const twice = await api('POST', `/v1/jobs/${failedJob}/retry`);
      assert.equal(twice.status, 409, twice.text);
      assert.equal(twice.json.error.code, 'INVALID_STATE');

      const done = await waitForCampaign(id, ['completed']);
      assert.equal((await api('GET', `/v1/jobs/${newJob}`)).json.data.status, 'completed');
      assert.equal((await api('GET', `/v1/jobs/${failedJob}`)).json.data.status, 'failed', 'the failed job stays failed');
      assert.equal(done.evaluations_completed, 16);
      assert.equal(done.latest_job_id, newJob);

      const final = await results(id);
      for (const kept of saved.evaluations) {
        const now = final.evaluations.find((e) => e.id === kept.id);
        assert.ok(now, `${kept.id} is kept`);
        assert.deepEqual(now.parameters, kept.parameters);
        assert.deepEqual(now.objectives, kept.objectives);
        assert.equal(now.iteration, kept.iteration);
      }
      assert.equal(final.evaluations.length, 10, '16 minus the 6 failed candidates');
      assert.equal((final as any).failed_evaluations.length, 6);
      assert.ok(final.evaluations.filter((e) => !saved.evaluations.some((b) => b.id === e.id)).every((e) => e.iteration >= 6));
      assert.equal(lab.evaluated.length, 10, 'the lab measured each kept evaluation once');
      // a design may be kept twice (the noise check of a campaign that declares no noise measures
      // one again), but each kept evaluation was measured once: the lab's list is the kept list
      const kept = final.evaluations.map((e) => JSON.stringify([e.parameters.x1, e.parameters.x2]));
      assert.deepEqual([...lab.evaluated].sort(), kept.sort(), `no candidate evaluated twice: ${lab.evaluated.join(' ')}`);

      const newLogs = await jobLogs(newJob);
      assert.ok(
        newLogs.some((l) => /resuming after iteration 5\b/.test(l.message)),
        newLogs.map((l) => `${l.level}: ${l.message}`).join('\n'),
      );
      assert.equal(final.convergence_history.length, done.current_iteration);
      assert.equal(done.current_iteration, 7);
      assert.deepEqual(final.convergence_history.slice(0, 5), saved.convergence_history);
      assert.equal(final.convergence_history.at(-1), final.hypervolume);
      assert.equal(final.hypervolume, done.hypervolume);
    } finally {
      await lab.close();
    }
  });

  test('a host outside KILN_HTTP_EVALUATOR_HOSTS fails the campaign at once, saying so', async () => {
    const id = await createCampaign('forbidden-host', zdt1Mdl({ budget: 8, evaluator: { type: 'http', url: 'http://10.1.2.3/evaluate', timeout_seconds: 5 } }));
    const jobId = await startCampaign(id);
    const c = await waitForCampaign(id, ['failed'], 20_000);
    assert.equal(c.evaluations_completed, 0);
    const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /KILN_HTTP_EVALUATOR_HOSTS/);
    const logs = await jobLogs(jobId);
    assert.ok(
      logs.some((l) => l.level === 'error' && l.message.includes('KILN_HTTP_EVALUATOR_HOSTS') && l.message.includes('10.1.2.3')),
      logs.map((l) => `${l.level}: ${l.message}`).join('\n'),
    );
    // it does not come back by itself
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await campaign(id)).status, 'failed');
    assert.equal((await api('GET', `/v1/jobs?campaign_id=${id}`)).json.data.length, 1);
  });
});
