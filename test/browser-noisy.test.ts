import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { zdt1Mdl } from './support/campaign-fixtures.js';
import { problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/** A noisy campaign's page: the model's front, measured beside predicted ± sd, and both hypervolumes. */

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

test("a noisy campaign's page shows the model's front with measured and predicted ± sd values and the raw measurements' hypervolume", async () => {
  const base = zdt1Mdl({ budget: 10, batch: 2, evaluator: { type: 'builtin', name: 'zdt1', noise: 0.05, seed: 2 } });
  const mdl = { ...base, objectives: base.objectives.map((o) => ({ ...o, noise: { sd: 0.05 } })) };
  const { id } = await call('POST', '/v1/campaigns', { name: 'noisy lab', domain: 'benchmark', mdl });
  await call('POST', `/v1/campaigns/${id}/start`);
  await eventually(async () => ((await call('GET', `/v1/campaigns/${id}`)).status === 'completed' ? true : undefined), 60_000, 'the campaign to finish');
  const results = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(results.noisy, true);

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const table = page.getByTestId('noisy-front');
  await table.waitFor();
  assert.match(await page.getByTestId('hypervolume-basis').innerText(), /the model's predictions/);
  assert.match(await page.getByTestId('noise-reason').innerText(), /declares measurement noise on f1, f2/);
  const measured = Number(await page.getByTestId('measured-hypervolume').innerText());
  assert.ok(Math.abs(measured - results.measured_hypervolume) <= 1e-4 * Math.abs(results.measured_hypervolume), `${measured}`);
  const headline = Number(await page.getByTestId('hypervolume').innerText());
  assert.ok(Math.abs(headline - results.hypervolume) <= 1e-4 * Math.abs(results.hypervolume), `${headline}`);
  assert.equal(await table.locator('tbody tr').count(), results.pareto_front.length);
  const headings = await table.locator('thead th').allInnerTexts();
  assert.deepEqual(headings, ['design', 'measurements', 'x1', 'x2', 'f1 measured', 'f2 measured', 'f1 predicted ± sd', 'f2 predicted ± sd']);
  const first = await table.locator('tbody tr').first().locator('td').allInnerTexts();
  assert.equal(first[0], results.pareto_front[0].design_id);
  assert.match(first[6], /^-?[\d.e+-]+ ± [\d.e+-]+$/);
  // the design column is as wide as its ids and clear of the next one, and stays in view when the table scrolls
  for (const row of await table.locator('tbody tr').all()) {
    const [design, measurements] = [row.locator('td').nth(0), row.locator('td').nth(1)];
    const fits = await design.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(fits.scroll <= fits.client, `the design id fits its cell (${fits.scroll} > ${fits.client} px)`);
    const [a, b] = [(await design.boundingBox())!, (await measurements.boundingBox())!];
    assert.ok(a.x + a.width <= b.x + 0.5, `the design cell ends at ${a.x + a.width}, the measurements start at ${b.x}`);
  }
  const box = table.locator('xpath=..');
  await box.evaluate((el) => (el.scrollLeft = el.scrollWidth));
  const [outer, design] = [(await box.boundingBox())!, (await table.locator('tbody td').first().boundingBox())!];
  assert.ok(design.x >= outer.x - 0.5, 'the design column stays in view when the table scrolls');
  await box.evaluate((el) => (el.scrollLeft = 0));
  assert.deepEqual(await problems(page), []);
  await page.screenshot({ path: `${ARTIFACTS}/noisy-front.png`, fullPage: true });
  await context.close();
});
