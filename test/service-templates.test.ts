import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { createApiKey } from '../src/service/api-keys.js';
import { ensureOrganization } from '../src/store/organizations.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { client, eventually, startTestKiln, TestPostgres, type TestKiln } from './support/service.js';

let postgres: TestPostgres;
let kiln: TestKiln;
let admin: ReturnType<typeof client>;

before(async () => {
  postgres = await TestPostgres.start();
  kiln = await startTestKiln(await postgres.database());
  admin = client(kiln.base, kiln.adminKey);
});

after(async () => {
  await kiln?.stop();
  await postgres?.stop();
});

async function member(organizationId: string, scopes: string[] = ['templates:read', 'templates:write', 'campaigns:write', 'campaigns:read']) {
  const { key } = await createApiKey(kiln.runtime.db, { organizationId, name: 'member', scopes: scopes as never });
  return client(kiln.base, key);
}

test('built-in templates: list with domain and search filters, detail by id or slug, material.yaml round trip', async () => {
  const all = await admin('GET', '/v1/templates?per_page=100');
  assert.equal(all.status, 200);
  const builtins = all.json.data.filter((t: { builtin: boolean }) => t.builtin);
  assert.ok(builtins.length >= 8, `${builtins.length} built-in templates`);
  const domains = new Set(builtins.map((t: { domain: string }) => t.domain));
  assert.ok(domains.has('water') && domains.has('battery') && domains.size >= 3);
  for (const t of builtins) {
    assert.match(t.id, /^tmpl_/);
    assert.equal(t.slug.split('/')[0], t.domain);
    assert.ok(t.description.length > 40 && t.tags.length > 0 && t.default_budget > 0 && t.parameters_count > 0 && t.objectives_count >= 2);
    assert.equal(t.visibility, 'public');
  }
  const water = (await admin('GET', '/v1/templates?domain=water&per_page=100')).json.data;
  assert.ok(water.length >= 2 && water.every((t: { domain: string }) => t.domain === 'water'));
  const word = builtins[0].name
    .split(/\s+/)
    .find((w: string) => w.length > 4)!
    .toLowerCase();
  const found = (await admin('GET', `/v1/templates?search=${encodeURIComponent(word.toUpperCase())}&per_page=100`)).json.data;
  assert.ok(
    found.some((t: { id: string }) => t.id === builtins[0].id),
    `search "${word}"`,
  );
  assert.ok(found.every((t: { name: string; description: string }) => `${t.name} ${t.description}`.toLowerCase().includes(word)));
  assert.deepEqual((await admin('GET', '/v1/templates?search=zzzz-no-such-thing')).json.data, []);
  const paged = await admin('GET', '/v1/templates?per_page=3&page=2');
  assert.deepEqual(paged.json.meta, { page: 2, per_page: 3, total: all.json.meta.total, total_pages: Math.ceil(all.json.meta.total / 3) });

  const byId = (await admin('GET', `/v1/templates/${builtins[0].id}`)).json.data;
  // a slug in a path is one segment: its / is encoded
  const bySlug = (await admin('GET', `/v1/templates/${encodeURIComponent(builtins[0].slug)}`)).json.data;
  assert.deepEqual(byId, bySlug);
  assert.ok(byId.mdl.parameters.length === byId.parameters_count);
  const download = await admin('GET', `/v1/templates/${encodeURIComponent(builtins[0].slug)}/download`);
  assert.equal(download.status, 200);
  assert.match(download.headers.get('content-type') ?? '', /^application\/yaml/);
  assert.equal(download.headers.get('content-disposition'), 'attachment; filename="material.yaml"');
  assert.deepEqual(parse(download.text), byId.mdl);
  assert.equal((await admin('GET', '/v1/templates/tmpl_nope')).status, 404);
});

test('custom templates: private and team visibility within an organization, none across organizations', async () => {
  await ensureOrganization(kiln.runtime.db, { id: 'org_a', name: 'Lab A', plan: 'pro' });
  await ensureOrganization(kiln.runtime.db, { id: 'org_b', name: 'Lab B', plan: 'pro' });
  const alice = await member('org_a');
  const bob = await member('org_a');
  const carol = await member('org_b');
  const mdl = { ...zdt1Mdl(), domain: 'benchmark', tags: ['zdt'] };
  const mine = await alice('POST', '/v1/templates', { name: 'My ZDT1 Recipe', description: 'private one', mdl, visibility: 'private' });
  assert.equal(mine.status, 201, mine.text);
  assert.equal(mine.json.data.slug, 'benchmark/my-zdt1-recipe');
  assert.equal(mine.json.data.visibility, 'private');
  assert.deepEqual(mine.json.data.tags, ['zdt']);
  const shared = (await alice('POST', '/v1/templates', { name: 'Team ZDT1', description: 'for everyone in lab A', mdl, visibility: 'team' })).json.data;

  const ids = async (who: ReturnType<typeof client>) =>
    (await who('GET', '/v1/templates?domain=benchmark&per_page=100')).json.data.map((t: { id: string }) => t.id).sort();
  assert.deepEqual(await ids(alice), [mine.json.data.id, shared.id].sort());
  assert.deepEqual(await ids(bob), [shared.id]);
  assert.deepEqual(await ids(carol), []);
  assert.equal((await bob('GET', `/v1/templates/${mine.json.data.id}`)).status, 404);
  assert.equal((await carol('GET', `/v1/templates/${encodeURIComponent(shared.slug)}`)).status, 404);
  assert.equal((await carol('POST', '/v1/campaigns', { template_id: shared.id, name: 'x' })).status, 422);

  const duplicate = await alice('POST', '/v1/templates', { name: 'my zdt1 recipe!', description: '', mdl, visibility: 'team' });
  assert.equal(duplicate.status, 422);
  assert.equal(duplicate.json.error.details.errors[0].path, 'name');
  const sameNameElsewhere = await carol('POST', '/v1/templates', { name: 'My ZDT1 Recipe', description: '', mdl, visibility: 'private' });
  assert.equal(sameNameElsewhere.status, 201, 'slugs are unique per organization');
  const bad = await alice('POST', '/v1/templates', {
    name: 'Broken',
    description: '',
    mdl: { ...mdl, domain: undefined, optimizer: { method: 'cma-es', budget: 0 } },
    visibility: 'team',
  });
  assert.equal(bad.status, 422);
  assert.ok(bad.json.error.details.errors.some((e: { path: string }) => e.path === 'mdl.optimizer.budget'));
  const readOnly = await member('org_a', ['templates:read']);
  const denied = await readOnly('POST', '/v1/templates', { name: 'x', description: '', mdl, visibility: 'team' });
  assert.equal(denied.status, 403);
  assert.equal(denied.json.error.details.required_scope, 'templates:write');

  const builtin = (await alice('GET', '/v1/templates?per_page=1')).json.data[0];
  const deletable = async (who: ReturnType<typeof client>, id: string) => (await who('GET', `/v1/templates/${id}`)).json.data.can_delete;
  assert.equal(await deletable(alice, shared.id), true, 'its creator may delete it');
  assert.equal(await deletable(bob, shared.id), false, 'another member may not');
  assert.equal((await bob('GET', '/v1/templates?domain=benchmark')).json.data[0].can_delete, false, 'the list says so too');
  assert.equal(await deletable(admin, builtin.id), false, 'nobody deletes a built-in');
  const builtinDelete = await admin('DELETE', `/v1/templates/${builtin.id}`);
  assert.equal(builtinDelete.status, 409);
  assert.equal((await bob('DELETE', `/v1/templates/${shared.id}`)).status, 403, 'only its creator or an admin');
  assert.equal((await carol('DELETE', `/v1/templates/${shared.id}`)).status, 404);
  assert.deepEqual((await alice('DELETE', `/v1/templates/${shared.id}`)).json.data, { id: shared.id, deleted: true });
  assert.equal((await bob('GET', `/v1/templates/${shared.id}`)).status, 404);
});

test('a campaign from a template with overrides runs end to end; bad overrides are 422 with paths', async () => {
  const template = (await admin('GET', '/v1/templates?domain=water&per_page=1')).json.data[0];
  const detail = (await admin('GET', `/v1/templates/${template.id}`)).json.data;
  const first = detail.mdl.parameters.find((p: { type: string }) => p.type === 'continuous');
  const [low, high] = first.bounds;
  const narrowed = [low + (high - low) / 4, high - (high - low) / 4];
  const created = await admin('POST', '/v1/campaigns', {
    template_id: template.slug,
    name: 'from a template',
    overrides: { optimizer: { budget: 8, seed: 11, batch_size: 2 }, parameters: { [first.name]: { bounds: narrowed } } },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.data.domain, template.domain);
  assert.equal(created.json.data.budget, 8);
  const campaign = (await admin('GET', `/v1/campaigns/${created.json.data.id}`)).json.data;
  assert.deepEqual(campaign.mdl.parameters.find((p: { name: string }) => p.name === first.name).bounds, narrowed);
  assert.equal(campaign.mdl.optimizer.seed, 11);
  assert.equal(campaign.mdl.optimizer.method, detail.mdl.optimizer.method, 'members not overridden are kept');
  assert.deepEqual(campaign.mdl.objectives, detail.mdl.objectives);
  const byName = await admin('POST', '/v1/campaigns', { template_id: template.id });
  assert.equal(byName.json.data.name, template.name, 'the name defaults to the template name');

  const unknown = await admin('POST', '/v1/campaigns', { template_id: template.id, name: 'x', overrides: { parameters: { nope: { bounds: [0, 1] } } } });
  assert.equal(unknown.status, 422);
  assert.equal(unknown.json.error.details.errors[0].path, 'overrides.parameters.nope');
  const reversed = await admin('POST', '/v1/campaigns', {
    template_id: template.id,
    name: 'x',
    overrides: { parameters: { [first.name]: { bounds: [high, low] } } },
  });
  assert.equal(reversed.status, 422);
  assert.match(reversed.json.error.details.errors[0].path, /^overrides\.parameters\[\d+\]\.bounds$/);
  const missing = await admin('POST', '/v1/campaigns', { template_id: 'water/no-such-template', name: 'x' });
  assert.equal(missing.status, 422);
  assert.match(missing.json.error.message, /unknown template/);

  await admin('POST', `/v1/campaigns/${created.json.data.id}/start`);
  const done = await eventually(async () => {
    const c = (await admin('GET', `/v1/campaigns/${created.json.data.id}`)).json.data;
    return ['completed', 'converged', 'failed'].includes(c.status) ? c : undefined;
  }, 90_000);
  assert.equal(done.status, 'completed');
  assert.equal(done.evaluations_completed, 8);
  const results = (await admin('GET', `/v1/campaigns/${created.json.data.id}/results`)).json.data;
  for (const e of results.evaluations) {
    const v = e.parameters[first.name];
    assert.ok(v >= narrowed[0] - 1e-9 && v <= narrowed[1] + 1e-9, `${first.name}=${v} inside the overridden bounds`);
  }
});
