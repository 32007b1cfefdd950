import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Papa from 'papaparse';
import WebSocket from 'ws';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';
import { messageText } from '../src/api/ws-text.js';

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

async function createCampaign(name: string, mdl: unknown = zdt1Mdl(), domain = 'benchmark') {
  const res = await api('POST', '/v1/campaigns', { name, domain, mdl });
  assert.equal(res.status, 201, res.text);
  return res.json.data as { id: string };
}

async function waitForCampaign(id: string, statuses: string[], ms = 60_000) {
  return eventually(
    async () => {
      const res = await api('GET', `/v1/campaigns/${id}`);
      return statuses.includes(res.json.data.status) ? res.json.data : undefined;
    },
    ms,
    `campaign ${id} to reach ${statuses.join('/')}`,
  );
}

describe('campaign resources', () => {
  test('create answers 201 with the campaign resource; detail and list agree', async () => {
    const res = await api('POST', '/v1/campaigns', { name: 'first', domain: 'benchmark', mdl: zdt1Mdl({ budget: 8 }) });
    assert.equal(res.status, 201);
    const c = res.json.data;
    assert.match(c.id, /^camp_[0-9a-z]{20}$/);
    assert.deepEqual(
      {
        name: c.name,
        domain: c.domain,
        status: c.status,
        budget: c.budget,
        evaluations_completed: c.evaluations_completed,
        parameters_count: c.parameters_count,
        objectives_count: c.objectives_count,
      },
      { name: 'first', domain: 'benchmark', status: 'created', budget: 8, evaluations_completed: 0, parameters_count: 2, objectives_count: 2 },
    );
    assert.ok(!Number.isNaN(Date.parse(c.created_at)));
    const detail = (await api('GET', `/v1/campaigns/${c.id}`)).json.data;
    assert.equal(detail.current_iteration, 0);
    assert.equal(detail.hypervolume, 0);
    assert.equal(detail.pareto_size, 0);
    assert.deepEqual(detail.best_objectives, {});
    assert.equal(detail.mdl.optimizer.budget, 8);
    assert.equal(detail.mdl.parameters[1].name, 'x2');
  });

  test('lists filter, sort and page with meta; past the last page is empty; bad paging is 422', async () => {
    for (const [name, domain] of [
      ['b-water', 'water'],
      ['a-water', 'water'],
      ['c-battery', 'battery'],
    ])
      await createCampaign(name, zdt1Mdl(), domain);
    const water = await api('GET', '/v1/campaigns?domain=water&sort=name');
    assert.equal(water.status, 200);
    assert.deepEqual(
      water.json.data.map((c: { name: string }) => c.name),
      ['a-water', 'b-water'],
    );
    assert.deepEqual(water.json.meta, { page: 1, per_page: 20, total: 2, total_pages: 1 });
    const desc = await api('GET', '/v1/campaigns?domain=water&sort=-name&per_page=1&page=2');
    assert.deepEqual(
      desc.json.data.map((c: { name: string }) => c.name),
      ['a-water'],
    );
    assert.deepEqual(desc.json.meta, { page: 2, per_page: 1, total: 2, total_pages: 2 });
    const past = await api('GET', '/v1/campaigns?domain=water&page=9');
    assert.deepEqual(past.json.data, []);
    assert.equal(past.json.meta.total, 2);
    const created = await api('GET', '/v1/campaigns?status=created&domain=battery');
    assert.equal(created.json.data.length, 1);
    for (const query of ['per_page=101', 'per_page=0', 'page=1.5', 'page=x', 'sort=password', 'status=sleeping']) {
      const bad = await api('GET', `/v1/campaigns?${query}`);
      assert.equal(bad.status, 422, query);
      assert.equal(bad.json.error.code, 'VALIDATION_FAILED');
      assert.ok(bad.json.error.details.errors.length >= 1);
    }
  });

  test('validation lists every problem with its path', async () => {
    const mdl = zdt1Mdl() as any;
    mdl.parameters[0].bounds = [1, 0];
    mdl.objectives[1].direction = 'sideways';
    mdl.optimizer.budget = -3;
    const res = await api('POST', '/v1/campaigns', { name: 'broken', domain: 'Not A Slug', mdl });
    assert.equal(res.status, 422);
    assert.equal(res.json.error.code, 'VALIDATION_FAILED');
    const paths = res.json.error.details.errors.map((e: { path: string }) => e.path);
    for (const expected of ['mdl.parameters[0].bounds', 'mdl.objectives[1].direction', 'mdl.optimizer.budget', 'domain']) {
      assert.ok(paths.includes(expected), `${expected} in ${paths.join(', ')}`);
    }
    const unknown = await api('POST', '/v1/campaigns', { name: 'x', domain: 'water', mdl: zdt1Mdl(), colour: 'red' });
    assert.equal(unknown.status, 422);
    assert.deepEqual(
      unknown.json.error.details.errors.map((e: { path: string }) => e.path),
      ['colour'],
    );
    const mixed = await api('POST', '/v1/campaigns', { name: 'x', mdl: zdt1Mdl(), template_id: 'tmpl_x' });
    assert.equal(mixed.status, 422);
    const template = await api('POST', '/v1/campaigns', { name: 'x', template_id: 'water/unknown' });
    assert.equal(template.status, 422);
    assert.match(template.json.error.message, /unknown template/);
    const empty = await api('POST', '/v1/campaigns', { name: 'x', domain: 'water', mdl: zdt1Mdl(), dataset_id: '' });
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.json.error.details.errors, [
      { path: 'dataset_id', message: 'is empty: give a dataset id (ds_...) to warm-start from, or leave dataset_id out to start from an initial design' },
    ]);

    const none = await api('POST', '/v1/campaigns', { name: 'x', domain: 'water' });
    assert.equal(none.status, 422);
    assert.equal(none.json.error.details.errors[0].path, 'mdl');
  });

  test('the multipart form takes an MDL file; names and domain come from the document', async () => {
    const yaml = [
      'name: From a file',
      'domain: water',
      'parameters:',
      '  - { name: a, type: continuous, bounds: [0, 1] }',
      '  - { name: b, type: continuous, bounds: [0, 1] }',
      'objectives:',
      '  - { name: f1, direction: minimize }',
      '  - { name: f2, direction: minimize }',
      'optimizer: { method: cma-es, budget: 6, seed: 1 }',
      'evaluator: { type: builtin, name: zdt1 }',
    ].join('\n');
    const form = new FormData();
    form.append('mdl_file', new Blob([yaml], { type: 'application/yaml' }), 'material.yaml');
    const res = await api('POST', '/v1/campaigns', form);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.data.name, 'From a file');
    assert.equal(res.json.data.domain, 'water');

    const bad = new FormData();
    bad.append(
      'mdl_file',
      new Blob(['parameters: [\n  - { name: a, type: continuous, bounds: [0, 1] }\n  - oops: [\n'], { type: 'application/yaml' }),
      'bad.yaml',
    );
    const broken = await api('POST', '/v1/campaigns', bad);
    assert.equal(broken.status, 422);
    assert.ok(broken.json.error.details.errors.every((e: { path: string }) => e.path.startsWith('mdl_file')));

    const missing = new FormData();
    missing.append('name', 'no file');
    const noFile = await api('POST', '/v1/campaigns', missing);
    assert.equal(noFile.status, 422);
    assert.equal(noFile.json.error.details.errors[0].path, 'mdl_file');
  });

  test('a created campaign carries the pre-flight warnings about its MDL, in every creation form', async () => {
    const clean = await api('POST', '/v1/campaigns', { name: 'clean', domain: 'benchmark', mdl: zdt1Mdl() });
    assert.equal(clean.status, 201, clean.text);
    assert.deepEqual(clean.json.data.warnings, []);

    const tight = { ...zdt1Mdl({ budget: 4 }), constraints: [{ expression: 'x1 + x2 <= 0.1' }] };
    const res = await api('POST', '/v1/campaigns', { name: 'tight', domain: 'benchmark', mdl: tight });
    assert.equal(res.status, 201, res.text);
    const warnings = res.json.data.warnings as { path: string; message: string }[];
    assert.deepEqual(
      warnings.map((w) => w.path),
      ['constraints', 'optimizer.initial_samples'],
    );
    assert.match(warnings[0].message, /^only about 0\.\d+ % of the parameter box meets the constraints/);
    assert.match(warnings[1].message, /budget of 4 evaluations is no larger than the initial design of 4/);

    const form = new FormData();
    const yaml = [
      'parameters:',
      '  - { name: a, type: continuous, bounds: [0, 1] }',
      '  - { name: b, type: continuous, bounds: [0.5, 0.5] }',
      'objectives:',
      '  - { name: f1, direction: minimize, reference: -1 }',
      '  - { name: f2, direction: minimize }',
      'optimizer: { budget: 6 }',
      'evaluator: { type: builtin, name: zdt1 }',
    ].join('\n');
    form.append('mdl_file', new Blob([yaml], { type: 'application/yaml' }), 'material.yaml');
    form.append('name', 'from a file');
    form.append('domain', 'benchmark');
    const file = await api('POST', '/v1/campaigns', form);
    assert.equal(file.status, 201, file.text);
    assert.deepEqual(
      file.json.data.warnings.map((w: { path: string; line: number; column: number }) => [w.path, w.line, w.column]),
      [
        ['parameters[1].bounds', 3, 34],
        ['objectives[0].reference', 5, 38],
      ],
    );
  });

  test('bad requests get the envelope: 400, 401, 403, 404, 413', async () => {
    const malformed = await api('POST', '/v1/campaigns', '{"name": ', { 'Content-Type': 'application/json' });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.error.code, 'BAD_REQUEST');
    const wrongType = await api('POST', '/v1/campaigns', 'name=x', { 'Content-Type': 'text/plain' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.json.error.message, /application\/json/);
    const huge = await api('POST', '/v1/campaigns', { name: 'x'.repeat(3 * 1024 * 1024) });
    assert.equal(huge.status, 413);
    assert.equal(huge.json.error.code, 'PAYLOAD_TOO_LARGE');

    const anonymous = await client(kiln.base, null)('GET', '/v1/campaigns');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.json.error.code, 'UNAUTHENTICATED');
    const mistyped = await client(kiln.base, kiln.adminKey.slice(0, -1) + (kiln.adminKey.endsWith('a') ? 'b' : 'a'))('GET', '/v1/campaigns');
    assert.equal(mistyped.status, 401);
    const basic = await api('GET', '/v1/campaigns', undefined, { Authorization: 'Basic abc' });
    assert.equal(basic.status, 401);

    const { key } = await createApiKey(kiln.runtime.db, { organizationId: 'org_default', name: 'reader', scopes: ['campaigns:read'] });
    const reader = client(kiln.base, key);
    assert.equal((await reader('GET', '/v1/campaigns')).status, 200);
    const denied = await reader('POST', '/v1/campaigns', { name: 'x', domain: 'water', mdl: zdt1Mdl() });
    assert.equal(denied.status, 403);
    assert.equal(denied.json.error.code, 'INSUFFICIENT_SCOPE');
    assert.equal(denied.json.error.details.required_scope, 'campaigns:write');
    const deleteDenied = await reader('DELETE', '/v1/campaigns/camp_whatever');
    assert.equal(deleteDenied.json.error.details.required_scope, 'campaigns:delete');

    for (const path of ['/v1/campaigns/camp_nope', '/v1/campaigns/camp_nope/results', '/v1/jobs/job_nope', '/v1/jobs/job_nope/logs']) {
      const res = await api('GET', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.json.error.code, 'NOT_FOUND');
      assert.ok(res.headers.get('x-request-id'));
    }
  });

  test('another organization never sees a campaign (404), and the free plan runs at most 2 at once, waiting ones included', async () => {
    await ensureOrganization(kiln.runtime.db, { id: 'org_small', name: 'Small lab', plan: 'free' });
    const { key } = await createApiKey(kiln.runtime.db, { organizationId: 'org_small', name: 'small', scopes: ['admin'] });
    const small = client(kiln.base, key);
    const mine = await createCampaign('admin-only');
    assert.equal((await small('GET', `/v1/campaigns/${mine.id}`)).status, 404);
    assert.equal((await small('POST', `/v1/campaigns/${mine.id}/start`)).status, 404);
    assert.equal((await small('DELETE', `/v1/campaigns/${mine.id}`)).status, 404);
    assert.ok(!(await small('GET', '/v1/campaigns')).json.data.some((c: { id: string }) => c.id === mine.id));

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await small('POST', '/v1/campaigns', { name: `lab ${i}`, domain: 'water', mdl: zdt1Mdl({ evaluator: null, budget: 50 }) });
      ids.push(res.json.data.id);
    }
    const jobs: string[] = [];
    for (const id of ids.slice(0, 2)) {
      const started = await small('POST', `/v1/campaigns/${id}/start`);
      assert.equal(started.status, 202);
      jobs.push(started.json.data.job.id);
    }
    // both wait for the lab, holding no worker: they still count against the plan
    for (const job of jobs) {
      await eventually(async () => ((await small('GET', `/v1/jobs/${job}`)).json.data.status === 'waiting' ? true : undefined), 60_000, 'the job to wait');
    }
    const third = await small('POST', `/v1/campaigns/${ids[2]}/start`);
    assert.equal(third.status, 409);
    assert.equal(third.json.error.code, 'CONCURRENT_CAMPAIGN_LIMIT');
    assert.equal(third.json.error.details.limit, 2);
    for (const id of ids.slice(0, 2)) assert.equal((await small('DELETE', `/v1/campaigns/${id}`)).status, 200);
    assert.equal((await small('POST', `/v1/campaigns/${ids[2]}/start`)).status, 202);
    assert.equal((await small('DELETE', `/v1/campaigns/${ids[2]}`)).status, 200);
  });
});

describe('documentation and health', () => {
  test('the OpenAPI document and /docs are served without credentials and cover every route', async () => {
    const anonymous = client(kiln.base, null);
    const doc = await anonymous('GET', '/v1/openapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.json.openapi, '3.1.0');
    const operations = Object.values(doc.json.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    for (const id of [
      'createCampaign',
      'listCampaigns',
      'getCampaign',
      'startCampaign',
      'stopCampaign',
      'deleteCampaign',
      'getResults',
      'listCandidates',
      'postEvaluations',
      'listJobs',
      'getJob',
      'getJobLogs',
      'cancelJob',
      'retryJob',
    ]) {
      assert.ok(operations.includes(id), id);
    }
    const page = await anonymous('GET', '/docs');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.text, /\/v1\/campaigns\/\{campaign_id\}\/results/);
    const health = (await anonymous('GET', '/v1/health')).json.data;
    assert.deepEqual([health.status, health.database, health.tensor_backend], ['ok', 'ok', 'cpu']);
    assert.equal(health.workers.length, 1);
    assert.equal(health.workers[0].id, kiln.runtime.supervisor!.workerId);
  });
});

describe('running a campaign', () => {
  test('create → start → live progress over the WebSocket → completed with results and CSV', async () => {
    const { id } = await createCampaign('end to end', zdt1Mdl({ budget: 10, batch: 2 }));
    const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws?token=${kiln.adminKey}`);
    const events: any[] = [];
    ws.on('message', (raw) => events.push(JSON.parse(messageText(raw))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'subscribe', campaign_id: id }));
    await eventually(async () => (events.some((e) => e.type === 'subscribed') ? true : undefined), 5_000, 'subscription');

    const started = await api('POST', `/v1/campaigns/${id}/start`, { timeout_hours: 2 });
    assert.equal(started.status, 202);
    assert.equal(started.json.data.campaign.status, 'running');
    assert.equal(started.json.data.job.status, 'queued');
    assert.equal(started.json.data.job.timeout_hours, 2);
    const jobId = started.json.data.job.id;
    assert.match(jobId, /^job_/);

    const done = await waitForCampaign(id, ['completed', 'converged', 'failed']);
    assert.equal(done.status, 'completed');
    assert.equal(done.evaluations_completed, 10);
    assert.equal(done.current_iteration, 4);
    assert.ok(done.hypervolume > 0);
    assert.deepEqual(Object.keys(done.best_objectives).sort(), ['f1', 'f2']);

    const job = (await api('GET', `/v1/jobs/${jobId}`)).json.data;
    assert.equal(job.status, 'completed');
    assert.match(job.worker_id, /^worker_/);
    assert.deepEqual(
      { ...job.progress, best_objectives: undefined, hypervolume: undefined },
      {
        iteration: 4,
        total_iterations: 4,
        evaluations_completed: 10,
        budget: 10,
        current_phase: 'completed',
        best_objectives: undefined,
        hypervolume: undefined,
        feasible_evaluations: 10,
      },
    );
    assert.ok(job.timing.elapsed_seconds > 0 && job.timing.avg_iteration_seconds > 0);
    assert.equal(job.timing.estimated_remaining_seconds, 0);

    await eventually(async () => (events.some((e) => e.type === 'job.status' && e.data.status === 'completed') ? true : undefined), 5_000, 'completion event');
    ws.close();
    const progress = events.filter((e) => e.type === 'job.progress');
    assert.ok(progress.length >= 4, `progress events: ${progress.length}`);
    assert.ok(progress.every((e) => e.job_id === jobId && e.campaign_id === id && typeof e.timestamp === 'string' && !('organization_id' in e)));
    const iterations = progress.map((e) => e.data.iteration);
    assert.deepEqual(
      iterations,
      [...iterations].sort((a, b) => a - b),
      'progress arrives in order',
    );
    assert.ok(events.some((e) => e.type === 'campaign.status' && e.data.status === 'completed'));
    assert.ok(events.some((e) => e.type === 'job.log' && /Iteration 1/.test(e.data.message)));

    const results = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.equal(results.evaluations.length, 10);
    assert.equal(results.convergence_history.length, 4);
    assert.equal(results.convergence_history.at(-1), results.hypervolume);
    assert.equal(results.hypervolume, done.hypervolume);
    assert.deepEqual(results.reference_point, { f1: 1.1, f2: 10 });
    assert.ok(results.evaluations.every((e: { id: string }) => e.id.startsWith('eval_')));
    assert.equal(new Set(results.evaluations.map((e: { id: string }) => e.id)).size, 10);
    const front = results.evaluations.filter((e: { is_pareto: boolean }) => e.is_pareto);
    assert.deepEqual(results.pareto_front, front);
    assert.equal(done.pareto_size, front.length);

    // One job.progress per stored iteration, whose summaries rebuild the results without a read.
    assert.deepEqual(iterations, [1, 2, 3, 4], 'one job.progress per stored iteration');
    const rebuilt = new Map<string, { id: string; is_pareto: boolean }>();
    for (const { data } of progress) {
      assert.equal(data.summary.iteration, data.iteration);
      assert.equal(data.summary.evaluations_completed, data.evaluations_completed);
      assert.deepEqual(data.summary.best_objectives, data.best_objectives);
      for (const left of data.summary.left_pareto_front) rebuilt.set(left, { ...rebuilt.get(left)!, is_pareto: false });
      for (const row of data.summary.evaluations) rebuilt.set(row.id, row);
    }
    assert.deepEqual(
      [...rebuilt.values()].sort((a, b) => a.id.localeCompare(b.id)),
      [...results.evaluations].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    );
    assert.deepEqual(
      progress.map((e) => e.data.summary.hypervolume),
      results.convergence_history,
    );
    assert.equal(progress.at(-1).data.summary.pareto_size, front.length);

    const paretoOnly = (await api('GET', `/v1/campaigns/${id}/results?pareto_only=true`)).json.data;
    assert.deepEqual(Object.keys(paretoOnly), ['pareto_front']);
    assert.deepEqual(paretoOnly.pareto_front, front);

    const csv = await api('GET', `/v1/campaigns/${id}/results?format=csv`);
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment/);
    const parsed = Papa.parse<Record<string, string>>(csv.text.trim(), { header: true });
    assert.deepEqual(parsed.meta.fields, ['id', 'iteration', 'is_pareto', 'x1', 'x2', 'f1', 'f2']);
    assert.equal(parsed.data.length, 10);
    for (const row of parsed.data) {
      const original = results.evaluations.find((e: { id: string }) => e.id === row.id);
      assert.equal(Number(row.f1), original.objectives.f1);
      assert.equal(Number(row.x2), original.parameters.x2);
      assert.equal(row.is_pareto, String(original.is_pareto));
    }
    const csvFront = Papa.parse((await api('GET', `/v1/campaigns/${id}/results?format=csv&pareto_only=true`)).text.trim(), { header: true });
    assert.equal(csvFront.data.length, front.length);

    const again = await api('POST', `/v1/campaigns/${id}/start`);
    assert.equal(again.status, 409);
    assert.equal(again.json.error.code, 'INVALID_STATE');
    assert.equal(again.json.error.details.status, 'completed');
    assert.equal((await api('POST', `/v1/campaigns/${id}/stop`)).status, 409);
    assert.equal((await api('POST', `/v1/jobs/${jobId}/cancel`)).status, 409);
    assert.equal((await api('POST', `/v1/jobs/${jobId}/retry`)).status, 409);

    const logs = (await api('GET', `/v1/jobs/${jobId}/logs`)).json.data;
    assert.ok(logs.some((l: { message: string }) => /picked up the job/.test(l.message)));
    assert.ok(logs.some((l: { message: string }) => /Completed/.test(l.message)));
    assert.ok(
      logs.every(
        (l: { level: string; timestamp: string }) => ['debug', 'info', 'warning', 'error'].includes(l.level) && !Number.isNaN(Date.parse(l.timestamp)),
      ),
    );
    const infoOnly = (await api('GET', `/v1/jobs/${jobId}/logs?level=info`)).json.data;
    assert.ok(infoOnly.length < logs.length && infoOnly.every((l: { level: string }) => l.level !== 'debug'), 'surrogate debug entries are filtered out');
    const tail = (await api('GET', `/v1/jobs/${jobId}/logs?tail=2`)).json.data;
    assert.deepEqual(tail, logs.slice(-2));
    const since = (await api('GET', `/v1/jobs/${jobId}/logs?since=${encodeURIComponent(logs[logs.length - 3].timestamp)}`)).json.data;
    assert.ok(since.length <= 2 && since.length >= 1);
    assert.equal((await api('GET', `/v1/jobs/${jobId}/logs?level=loud`)).status, 422);

    const jobs = await api('GET', `/v1/jobs?campaign_id=${id}`);
    assert.equal(jobs.json.data.length, 1);
    assert.deepEqual(Object.keys(jobs.json.data[0].progress).sort(), ['budget', 'evaluations_completed', 'iteration', 'total_iterations']);
    assert.equal((await api('GET', `/v1/jobs?status=completed&campaign_id=${id}`)).json.meta.total, 1);
    assert.equal((await api('GET', `/v1/jobs?status=queued&campaign_id=${id}`)).json.meta.total, 0);
  });

  test('stop mid-run keeps the evaluations; start resumes from them', async () => {
    const { id } = await createCampaign('stoppable', zdt1Mdl({ budget: 40, batch: 1 }));
    const started = (await api('POST', `/v1/campaigns/${id}/start`)).json.data;
    await eventually(async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.current_iteration >= 2 ? true : undefined), 60_000, 'two iterations');
    const stop = await api('POST', `/v1/campaigns/${id}/stop`);
    assert.equal(stop.status, 202);
    assert.equal(stop.json.data.job.id, started.job.id);
    assert.equal(stop.json.data.job.cancel_requested, true);
    const stopped = await waitForCampaign(id, ['stopped']);
    const job = (await api('GET', `/v1/jobs/${started.job.id}`)).json.data;
    assert.equal(job.status, 'cancelled');
    const kept = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    assert.equal(kept.evaluations.length, stopped.evaluations_completed);
    assert.ok(kept.evaluations.length >= 5 && kept.evaluations.length < 40);

    const resumed = await api('POST', `/v1/campaigns/${id}/start`);
    assert.equal(resumed.status, 202);
    await eventually(
      async () => ((await api('GET', `/v1/campaigns/${id}`)).json.data.evaluations_completed > stopped.evaluations_completed ? true : undefined),
      60_000,
      'progress after resume',
    );
    assert.equal((await api('POST', `/v1/jobs/${resumed.json.data.job.id}/cancel`)).status, 202);
    await waitForCampaign(id, ['stopped']);
    const after = (await api('GET', `/v1/campaigns/${id}/results`)).json.data;
    for (const e of kept.evaluations) {
      assert.deepEqual(after.evaluations.find((a: { id: string }) => a.id === e.id)?.parameters, e.parameters, 'saved evaluations unchanged');
    }
    assert.deepEqual(after.convergence_history.slice(0, kept.convergence_history.length), kept.convergence_history);
  });

  test('a queued job is cancelled at once; deleting a campaign removes it with its jobs', async () => {
    // the single worker slot is busy with the first campaign, so the second stays queued
    const busy = await createCampaign('busy', zdt1Mdl({ budget: 60, batch: 1 }));
    const queued = await createCampaign('waiting');
    await api('POST', `/v1/campaigns/${busy.id}/start`);
    await eventually(async () => ((await api('GET', `/v1/campaigns/${busy.id}`)).json.data.current_iteration >= 1 ? true : undefined), 60_000);
    const waiting = (await api('POST', `/v1/campaigns/${queued.id}/start`)).json.data;
    const cancelled = await api('POST', `/v1/jobs/${waiting.job.id}/cancel`);
    assert.equal(cancelled.status, 202);
    assert.equal(cancelled.json.data.status, 'cancelled');
    assert.equal((await api('GET', `/v1/campaigns/${queued.id}`)).json.data.status, 'stopped');

    const removed = await api('DELETE', `/v1/campaigns/${busy.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.json.data, { id: busy.id, deleted: true });
    assert.equal((await api('GET', `/v1/campaigns/${busy.id}`)).status, 404);
    assert.equal((await api('GET', `/v1/jobs?campaign_id=${busy.id}`)).json.meta.total, 0);
    const rows = await kiln.runtime.db('evaluations').where({ campaign_id: busy.id }).count({ n: '*' });
    assert.equal(Number(rows[0].n), 0);
    // the slot is free again: the next campaign runs
    const next = await createCampaign('after delete', zdt1Mdl({ budget: 6 }));
    await api('POST', `/v1/campaigns/${next.id}/start`);
    assert.equal((await waitForCampaign(next.id, ['completed', 'failed'])).status, 'completed');
  });

  test('a job running past timeout_hours fails with a log entry saying so', async () => {
    const { id } = await createCampaign('slow', zdt1Mdl({ budget: 200, batch: 1 }));
    const bad = await api('POST', `/v1/campaigns/${id}/start`, { timeout_hours: -1 });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.error.details.errors[0].path, 'timeout_hours');
    const started = (await api('POST', `/v1/campaigns/${id}/start`, { timeout_hours: 0.0005 })).json.data;
    const failed = await waitForCampaign(id, ['failed', 'completed']);
    assert.equal(failed.status, 'failed');
    const job = (await api('GET', `/v1/jobs/${started.job.id}`)).json.data;
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'timed out');
    const logs = (await api('GET', `/v1/jobs/${started.job.id}/logs?level=error`)).json.data;
    assert.equal(logs.length, 1);
    assert.match(logs[0].message, /ran past its timeout of 1\.8 seconds/);
    assert.ok(failed.evaluations_completed < 200);
  });
});
