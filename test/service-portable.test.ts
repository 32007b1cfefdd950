import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportCampaignTo, runFolderDocument } from '../src/cli/export.js';
import { initialState, tell } from '../src/engine/campaign/state.js';
import { step } from '../src/engine/campaign/step.js';
import { validateMdl } from '../src/engine/mdl/parse.js';
import { builtinEvaluators } from '../src/engine/problems/registry.js';
import { initTensorBackend } from '../src/engine/tensor/backend.js';
import { replayResults } from '../src/cli/replay.js';
import { runCampaignFile } from '../src/cli/run.js';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let api: ReturnType<typeof client>;
/** a second organization of the same server: the campaign moves there */
let other: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  api = client(kiln.base, kiln.adminKey);
  await ensureOrganization(kiln.runtime.db, { id: 'org_lab_b', name: 'Lab B', plan: 'enterprise' });
  other = client(kiln.base, (await createApiKey(kiln.runtime.db, { organizationId: 'org_lab_b', name: 'lab b', scopes: ['admin'] })).key);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

interface Row {
  id: string;
  iteration: number;
  parameters: Record<string, number>;
  objectives: Record<string, number>;
}

async function create(request: typeof api, name: string, mdl: unknown): Promise<string> {
  const res = await request('POST', '/v1/campaigns', { name, domain: 'benchmark', mdl });
  assert.equal(res.status, 201, res.text);
  return res.json.data.id;
}

async function statusOf(request: typeof api, id: string) {
  return (await request('GET', `/v1/campaigns/${id}`)).json.data;
}

async function settled(request: typeof api, id: string, wanted: string[], ms = 90_000) {
  return eventually(
    async () => {
      const c = await statusOf(request, id);
      return wanted.includes(c.status) ? c : undefined;
    },
    ms,
    `${id} to be ${wanted.join(' or ')}`,
  );
}

/** Evaluations in the order the engine recorded them, without ids (the import gives new ones). */
async function evaluations(request: typeof api, id: string): Promise<Omit<Row, 'id'>[]> {
  const res = await request('GET', `/v1/campaigns/${id}/results`);
  assert.equal(res.status, 200, res.text);
  return (res.json.data.evaluations as Row[]).map(({ iteration, parameters, objectives }) => ({ iteration, parameters, objectives }));
}

async function exported(request: typeof api, id: string) {
  const res = await request('GET', `/v1/campaigns/${id}/export`);
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-disposition') ?? '', /attachment/);
  return res.json;
}

test('a campaign stopped mid-run moves to another organization and finishes there as it would have at home', async () => {
  const mdl = zdt1Mdl({ budget: 16, batch: 2, seed: 11 });
  const home = await create(api, 'portable-home', mdl);
  assert.equal((await api('POST', `/v1/campaigns/${home}/start`)).status, 202);
  await eventually(async () => ((await statusOf(api, home)).current_iteration >= 2 ? true : undefined), 60_000, 'two iterations');
  assert.equal((await api('POST', `/v1/campaigns/${home}/stop`)).status, 202);
  const stopped = await settled(api, home, ['stopped']);
  assert.ok(stopped.evaluations_completed < 16, 'stopped before the budget was spent');

  const doc = await exported(api, home);
  assert.equal(doc.kiln_export_version, 1);
  assert.equal(doc.source.campaign_id, home);
  assert.equal(doc.campaign.status, 'stopped');
  assert.equal(doc.campaign.seed, 11);
  assert.equal(doc.iterations.length, stopped.current_iteration);
  assert.equal(doc.evaluations.length, stopped.evaluations_completed);
  assert.ok(
    doc.iterations.every((i: { receipt: unknown }) => i.receipt !== null),
    'every iteration keeps its receipt',
  );
  assert.ok(doc.evaluations.every((e: { feasible: boolean | null; status: string }) => e.status === 'completed' && e.feasible === true));
  const before = await evaluations(api, home);

  const imported = await other('POST', '/v1/campaigns/import', { ...doc, name: 'portable-away' });
  assert.equal(imported.status, 201, imported.text);
  const away = imported.json.data;
  assert.notEqual(away.id, home);
  assert.equal(away.name, 'portable-away');
  assert.equal(away.status, 'stopped');
  assert.equal(away.budget, 16);
  assert.equal(away.evaluations_completed, stopped.evaluations_completed);
  assert.equal(away.current_iteration, stopped.current_iteration);
  assert.equal(away.hypervolume, stopped.hypervolume);
  assert.equal(away.imported.iterations, doc.iterations.length);
  assert.ok(
    Object.values(away.imported.evaluation_ids).every((id) => (id as string).includes(away.id.replace('camp_', ''))),
    'new evaluation ids of the new campaign',
  );
  assert.equal((await api('GET', `/v1/campaigns/${away.id}`)).status, 404, 'the copy belongs to the importing organization');
  assert.deepEqual(await evaluations(other, away.id), before, 'the history arrives intact, in order');
  const receipts = (await other('GET', `/v1/campaigns/${away.id}/results`)).json.data.iterations;
  assert.deepEqual(
    receipts.map((i: { receipt: unknown }) => i.receipt),
    doc.iterations.map((i: { receipt: unknown }) => i.receipt),
    'receipts survive the move',
  );

  // both continue: the copy proposes what the original would have (same seed, same state)
  assert.equal((await other('POST', `/v1/campaigns/${away.id}/start`)).status, 202);
  assert.equal((await api('POST', `/v1/campaigns/${home}/start`)).status, 202);
  const [awayDone, homeDone] = [await settled(other, away.id, ['completed']), await settled(api, home, ['completed'])];
  assert.equal(awayDone.evaluations_completed, 16, 'the budget counts the imported evaluations');
  const after = await evaluations(other, away.id);
  assert.deepEqual(after.slice(0, before.length), before, 'evaluations up to the export point are the original ones');
  assert.deepEqual(after, await evaluations(api, home), 'and the continuation matches the original campaign continued at home');
  assert.equal(awayDone.hypervolume, homeDone.hypervolume);

  // the same document continues locally, and its receipts replay
  const dir = mkdtempSync(join(tmpdir(), 'kiln-portable-'));
  const file = join(dir, 'campaign.json');
  writeFileSync(file, JSON.stringify(doc));
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), isTTY: false };
  assert.equal(await replayResults(file, { backend: 'cpu' }, io), 0, lines.join('\n'));
  assert.match(lines.join('\n'), new RegExp(`All ${doc.iterations.length} iterations replayed identically`));
  const out = join(dir, 'local');
  assert.equal(await runCampaignFile(undefined, { resumeFrom: file, out, backend: 'cpu' }, io), 0, lines.join('\n'));
  const local = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).evaluations as Row[];
  assert.deepEqual(
    local.map(({ iteration, parameters, objectives }) => ({ iteration, parameters, objectives })),
    after,
    'kiln run --resume-from continues it as the service did',
  );
});

test('an ask/tell campaign exported with a pending batch keeps it, and the results already posted', async () => {
  const mdl = zdt1Mdl({ budget: 8, batch: 2, seed: 5, evaluator: { type: 'external' } });
  const home = await create(api, 'portable-asktell', mdl);
  assert.equal((await api('POST', `/v1/campaigns/${home}/start`)).status, 202);
  const batch = await eventually(
    async () => {
      const res = await api('GET', `/v1/campaigns/${home}/candidates`);
      return res.json.data.length > 0 ? (res.json.data as Row[]) : undefined;
    },
    60_000,
    'the initial design',
  );
  // the lab measured the first candidate before the move
  const first = batch[0];
  const posted = await api('POST', `/v1/campaigns/${home}/evaluations`, {
    evaluations: [{ id: first.id, objectives: zdt1(first.parameters.x1, first.parameters.x2) }],
  });
  assert.equal(posted.status, 200, posted.text);

  const doc = await exported(api, home);
  assert.equal(doc.campaign.status, 'running', 'exported while its job waits for results');
  const pending = doc.evaluations.filter((e: { status: string }) => e.status === 'pending');
  assert.equal(pending.length, batch.length);
  assert.deepEqual(pending.find((e: Row) => e.id === first.id).objectives, zdt1(first.parameters.x1, first.parameters.x2));

  const res = await api('POST', '/v1/campaigns/import', doc);
  assert.equal(res.status, 201, res.text);
  const copy = res.json.data;
  assert.equal(copy.status, 'stopped');
  assert.equal(copy.imported.pending, batch.length);
  const waiting = (await api('GET', `/v1/campaigns/${copy.id}/candidates`)).json.data as Row[];
  assert.deepEqual(
    waiting.map((c) => c.parameters),
    batch.slice(1).map((c) => c.parameters),
    'the copy lists the same batch, less the candidate already measured',
  );
  assert.equal((await api('POST', `/v1/campaigns/${home}/stop`)).status, 202);

  assert.equal((await api('POST', `/v1/campaigns/${copy.id}/start`)).status, 202);
  // play the lab until the budget is spent
  await eventually(
    async () => {
      const c = await statusOf(api, copy.id);
      if (c.status === 'completed') return c;
      const open = (await api('GET', `/v1/campaigns/${copy.id}/candidates`)).json.data as Row[];
      if (open.length > 0) {
        const told = open.map((p) => ({ id: p.id, objectives: zdt1(p.parameters.x1, p.parameters.x2) }));
        assert.equal((await api('POST', `/v1/campaigns/${copy.id}/evaluations`, { evaluations: told })).status, 200);
      }
      return undefined;
    },
    90_000,
    'the copy to complete',
  );
  const done = await evaluations(api, copy.id);
  assert.equal(done.length, 8);
  assert.deepEqual(
    done[0],
    { iteration: 1, parameters: first.parameters, objectives: zdt1(first.parameters.x1, first.parameters.x2) },
    'the result posted before the move counts',
  );
});

test('a kiln run folder, exported, continues in the service', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-portable-'));
  const file = join(dir, 'zdt1.json');
  writeFileSync(file, JSON.stringify({ name: 'zdt1 local', ...zdt1Mdl({ budget: 12, batch: 2, seed: 3 }) }));
  const out = join(dir, 'run');
  const controller = new AbortController();
  const lines: string[] = [];
  // interrupt after the second iteration, as Ctrl-C would
  const io = {
    out: (line: string) => {
      lines.push(line);
      if (line.startsWith('iteration 2:')) controller.abort();
    },
    err: (line: string) => lines.push(line),
    isTTY: false,
  };
  assert.equal(await runCampaignFile(file, { out, backend: 'cpu', signal: controller.signal }, io), 130, lines.join('\n'));

  const target = join(dir, 'campaign.json');
  assert.equal(await exportCampaignTo(out, { output: target }, io), 0, lines.join('\n'));
  const doc = JSON.parse(readFileSync(target, 'utf8'));
  assert.equal(doc.source.kind, 'kiln-run');
  assert.equal(doc.campaign.status, 'stopped');
  assert.equal(doc.campaign.domain, null, 'the MDL names no domain');

  const noDomain = await api('POST', '/v1/campaigns/import', doc);
  assert.equal(noDomain.status, 422, noDomain.text);
  assert.equal(noDomain.json.error.details.errors[0].path, 'domain');

  const res = await api('POST', '/v1/campaigns/import', { ...doc, domain: 'benchmark' });
  assert.equal(res.status, 201, res.text);
  const copy = res.json.data;
  assert.equal(copy.name, 'zdt1 local');
  assert.equal(copy.status, 'stopped');
  const local = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')).evaluations as Row[];
  assert.ok(local.length < 12, 'the run stopped before its budget');
  const strip = (rows: Row[]) => rows.map(({ iteration, parameters, objectives }) => ({ iteration, parameters, objectives }));
  assert.deepEqual(await evaluations(api, copy.id), strip(local));

  assert.equal((await api('POST', `/v1/campaigns/${copy.id}/start`)).status, 202);
  const done = await settled(api, copy.id, ['completed']);
  assert.equal(done.evaluations_completed, 12);
  assert.deepEqual((await evaluations(api, copy.id)).slice(0, local.length), strip(local));
});

test('a batch proposed but not evaluated when exported is evaluated first where the campaign lands', async () => {
  // a run stopped between proposing iteration 4 and evaluating it, as a crash or a move mid-iteration leaves it
  await initTensorBackend('cpu');
  const mdl = validateMdl(zdt1Mdl({ budget: 14, batch: 2, seed: 9 }), { builtins: builtinEvaluators });
  assert.ok(mdl.ok);
  let state = initialState(mdl.mdl, { seed: 9 });
  const receipts = [];
  for (let k = 0; k < 3; k++) {
    const next = await step(mdl.mdl, state);
    receipts.push(next.receipt!);
    state = tell(
      mdl.mdl,
      next.state,
      next.proposals.map((p) => ({ id: p.id, objectives: zdt1(p.parameters.x1 as number, p.parameters.x2 as number) })),
    ).state;
  }
  state = (await step(mdl.mdl, state)).state;
  const pending = state.pending.map((p) => p.parameters);
  assert.equal(pending.length, 2);
  const doc = runFolderDocument('mid-iteration', { version: 1, mdl: mdl.mdl, seed: 9, cwd: '.', state, receipts });

  const res = await api('POST', '/v1/campaigns/import', { ...doc, domain: 'benchmark' });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.json.data.imported.pending, 2);
  assert.equal((await api('POST', `/v1/campaigns/${res.json.data.id}/start`)).status, 202);
  await settled(api, res.json.data.id, ['completed']);
  const there = await evaluations(api, res.json.data.id);
  assert.equal(there.length, 14);
  assert.deepEqual(
    there.filter((e) => e.iteration === 4).map((e) => e.parameters),
    pending,
    'the pending batch is iteration 4, evaluated as proposed',
  );

  // and locally, from the same document, to the same end
  const dir = mkdtempSync(join(tmpdir(), 'kiln-portable-'));
  writeFileSync(join(dir, 'campaign.json'), JSON.stringify(doc));
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), isTTY: false };
  assert.equal(await runCampaignFile(undefined, { resumeFrom: join(dir, 'campaign.json'), out: join(dir, 'out'), backend: 'cpu' }, io), 0, lines.join('\n'));
  assert.match(lines.join('\n'), /evaluating its pending batch of 2 first/);
  const local = JSON.parse(readFileSync(join(dir, 'out', 'results.json'), 'utf8')).evaluations as Row[];
  assert.deepEqual(
    local.map(({ iteration, parameters, objectives }) => ({ iteration, parameters, objectives })),
    there,
  );
});

test('documents that cannot be imported are refused with the problem and where it is', async () => {
  const id = await create(api, 'portable-bad', zdt1Mdl({ budget: 6, batch: 2 }));
  const good = await exported(api, id);
  // kiln export <campaign-id> --url downloads the same document
  const saved = join(mkdtempSync(join(tmpdir(), 'kiln-portable-')), 'remote.json');
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
  assert.equal(await exportCampaignTo(id, { url: kiln.base, apiKey: kiln.adminKey, output: saved }, io), 0, lines.join('\n'));
  assert.deepEqual({ ...JSON.parse(readFileSync(saved, 'utf8')), exported_at: null }, { ...good, exported_at: null });
  assert.equal(await exportCampaignTo('camp_nope', { url: kiln.base, apiKey: kiln.adminKey }, io), 1);
  assert.match(lines.at(-1)!, /answered 404: No campaign with id camp_nope/);
  const refuse = async (body: unknown, status: number, path: RegExp, message: RegExp, headers: Record<string, string> = {}) => {
    const res = await api('POST', '/v1/campaigns/import', body, headers);
    assert.equal(res.status, status, res.text);
    if (path.source !== '^$')
      assert.ok(
        res.json.error.details.errors.some((e: { path: string }) => path.test(e.path)),
        res.text,
      );
    assert.match(res.json.error.message, message, res.text);
    return res;
  };
  await refuse({ ...good, kiln_export_version: 2 }, 422, /^kiln_export_version$/, /reads version 1/);
  await refuse({ name: 'x' }, 422, /^kiln_export_version$/, /not a Kiln export document/);
  await refuse([good], 422, /body|\(body\)/, /./);
  const badMdl = structuredClone(good);
  badMdl.campaign.mdl.optimizer.budget = -3;
  await refuse(badMdl, 422, /^campaign\.mdl\.optimizer\.budget$/, /MDL does not validate/);
  const withRows = structuredClone(good);
  withRows.evaluations = [{ id: 'w1', iteration: 0, status: 'completed', parameters: { x1: 0.5, x3: 1 }, objectives: { f1: 1, f2: 2 } }];
  const res = await refuse(withRows, 422, /^evaluations\[0\]\.parameters\.x3$/, /problems/);
  assert.ok(
    res.json.error.details.errors.some((e: { path: string; message: string }) => e.path === 'evaluations[0].parameters.x2' && /missing/.test(e.message)),
    res.text,
  );
  const badShape = structuredClone(good);
  badShape.evaluations = [{ id: 'w1' }];
  await refuse(badShape, 422, /^evaluations\[0\]\./, /./);
  await refuse('{"kiln_export_version": 1,', 400, /^$/, /JSON/i);
  await refuse('x'.repeat(33 * 1024 * 1024), 413, /^$/, /larger than 32mb/, { 'Content-Type': 'application/json' });
  // prior data count against the plan's row limit, as a dataset's would
  await ensureOrganization(kiln.runtime.db, { id: 'org_free_lab', name: 'Free lab', plan: 'free' });
  const free = client(kiln.base, (await createApiKey(kiln.runtime.db, { organizationId: 'org_free_lab', name: 'free', scopes: ['admin'] })).key);
  const prior = Array.from({ length: 10_001 }, (_, k) => ({
    id: `w${k}`,
    iteration: 0,
    status: 'completed',
    parameters: { x1: (k % 100) / 100, x2: 0.5 },
    objectives: { f1: 1, f2: 2 },
  }));
  const tooMuch = await free('POST', '/v1/campaigns/import', { ...good, evaluations: prior });
  assert.equal(tooMuch.status, 413, tooMuch.text);
  assert.match(tooMuch.json.error.message, /10001 warm-start rows .* at most 10000/);
  // a refused import creates nothing
  const list = (await api('GET', '/v1/campaigns?per_page=100')).json.data as { name: string }[];
  assert.equal(list.filter((c) => c.name === 'portable-bad').length, 1);
});
