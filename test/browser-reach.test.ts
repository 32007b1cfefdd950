import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/** A campaign short of its reference box: its page and its job's page say how far the closest evaluation still is. */

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;
let call: ReturnType<typeof dataClient>;

before(async () => {
  site = await startBrowserKiln();
  ({ kiln, browser } = site);
  call = dataClient(kiln.base, kiln.adminKey);
});

after(() => site?.stop());

test('while the hypervolume is 0 the campaign and job pages name the closest evaluation and its gap per objective', async () => {
  // ZDT1 with f1 < 0.05 has f2 > 0.77: nothing dominates (0.05, 0.05)
  const base = zdt1Mdl({ budget: 8, batch: 2 });
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, reference: 0.05 })) };
  const { id } = await call('POST', '/v1/campaigns', { name: 'far from the box', domain: 'benchmark', mdl });
  const started = await call('POST', `/v1/campaigns/${id}/start`);
  await eventually(async () => ((await call('GET', `/v1/campaigns/${id}`)).status === 'completed' ? true : undefined), 60_000, 'the campaign to finish');
  const results = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(results.hypervolume, 0);
  const { evaluation_id: closest, distance } = results.reference_distance as { evaluation_id: string; distance: Record<string, number> };
  assert.ok(distance.f1 > 0 || distance.f2 > 0, 'outside the box, the closest evaluation misses some reference');

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const onCampaign = await page.getByTestId('reference-distance').innerText();
  const shown = new RegExp(`^Reference point not reached yet: the closest evaluation, ${closest}, misses f1 by ([\\d.e+-]+), f2 by ([\\d.e+-]+)\\.$`).exec(
    onCampaign,
  );
  assert.ok(shown, onCampaign);
  // the dashboard writes 5 significant digits
  for (const [i, name] of ['f1', 'f2'].entries()) {
    assert.ok(Math.abs(Number(shown[i + 1]) - distance[name]) <= 1e-4 * distance[name], `${name}: ${shown[i + 1]} shown against ${distance[name]}`);
  }
  assert.deepEqual(await problems(page), []);

  await page.goto(`${kiln.base}/#/jobs/${started.job.id}`);
  assert.match(await page.getByTestId('reference-distance').innerText(), new RegExp(`the closest evaluation, ${closest}, misses f1 by`));
  assert.deepEqual(await problems(page), []);
  await context.close();
});
