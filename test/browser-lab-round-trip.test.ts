import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/**
 * The whole lab round trip in the dashboard alone, at 1280×800: download the worklist for Excel,
 * fill it, upload it, correct one value; with the pages a lab user sees on the way (the waiting
 * job, the wide evaluations table, the model checks) and the correction checked through the API.
 */

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

// ten parameters with long names and units: wider than a laptop's window
const NAMES = Array.from({ length: 10 }, (_, i) => `precursor_${String(i + 1).padStart(2, '0')}_concentration`);
const LAB_MDL = {
  parameters: NAMES.map((name) => ({ name, type: 'continuous', bounds: [0, 1], unit: 'mol/L' })),
  objectives: [
    { name: 'f1', direction: 'minimize', reference: 1.1, unit: 'MPa' },
    { name: 'f2', direction: 'minimize', reference: 11, unit: '%' },
  ],
  optimizer: { method: 'cma-es', budget: 10, batch_size: 2, seed: 11, initial_samples: 6 },
};

/** ZDT1 in ten dimensions (f1 = x1, f2 = g (1 − √(x1/g)), g = 1 + 9 mean(x2…x10)): what the lab "measures". */
function measure(p: Record<string, number>): { f1: number; f2: number } {
  const x = NAMES.map((n) => p[n]);
  const g = 1 + (9 * x.slice(1).reduce((s, v) => s + v, 0)) / 9;
  return { f1: x[0], f2: g * (1 - Math.sqrt(x[0] / g)) };
}

async function shot(page: Page, name: string) {
  const path = `${ARTIFACTS}/${name}.png`;
  await page.screenshot({ path });
  return path;
}

test('a lab round trip in the dashboard alone: download for Excel, fill, upload, correct one value', async () => {
  const { id } = await call('POST', '/v1/campaigns', { name: 'lab round trip', domain: 'benchmark', mdl: LAB_MDL });
  await call('POST', `/v1/campaigns/${id}/start`);
  const first = await eventually(
    async () => {
      const data = (await call('GET', `/v1/campaigns/${id}/candidates`)) as { id: string; parameters: Record<string, number> }[];
      return data.length === 6 ? data : undefined;
    },
    60_000,
    'the initial design',
  );
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));

  // the job waits for the lab: no ETA (the lab's time is not the optimizer's), the pending count instead
  const { latest_job_id: jobId } = await call('GET', `/v1/campaigns/${id}`);
  await eventually(async () => ((await call('GET', `/v1/jobs/${jobId}`)).status === 'waiting' ? true : undefined), 30_000, 'the job to wait');
  await page.goto(`${kiln.base}/#/jobs/${jobId}`);
  await page.getByTestId('job-status').getByText('waiting').waitFor();
  const jobLine = await page.getByTestId('job-status').locator('xpath=..').innerText();
  assert.match(jobLine, /waiting for 6 results, holding no worker/);
  assert.doesNotMatch(jobLine, /ETA/);
  const screenshots = [await shot(page, 'lab-1-job-waiting')];

  // 1. download the worklist for Excel: tab-separated, UTF-8 with a byte-order mark, definition order
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const worklist = page.getByTestId('worklist-table');
  await worklist.waitFor();
  screenshots.push(await shot(page, 'lab-2-worklist'));
  // the worklist scrolls sideways inside its box with each row's id kept in view
  const worklistBox = worklist.locator('xpath=..');
  assert.ok(await worklistBox.evaluate((el) => el.scrollWidth > el.clientWidth), 'ten parameters and the result fields are wider than the window');
  await worklistBox.evaluate((el) => (el.scrollLeft = el.scrollWidth));
  const [outer, idOfRow] = [(await worklistBox.boundingBox())!, (await worklist.locator('tbody td').first().boundingBox())!];
  assert.ok(idOfRow.x >= outer.x - 0.5 && idOfRow.x + idOfRow.width <= outer.x + outer.width, 'the id stays in view beside the result fields');
  await worklistBox.evaluate((el) => (el.scrollLeft = 0));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download for Excel (tab-separated)' }).click()]);
  assert.equal(download.suggestedFilename(), `${id}-worklist.tsv`);
  const text = readFileSync(await download.path(), 'utf8');
  assert.equal(text.charCodeAt(0), 0xfeff, 'a byte-order mark, so Excel reads the units as UTF-8');
  const lines = text
    .slice(1)
    .split('\r\n')
    .filter((l) => l !== '');
  const header = lines[0].split('\t');
  assert.deepEqual(header, ['id', 'iteration', ...NAMES.map((n) => `${n} (mol/L)`), 'f1 (MPa)', 'f2 (%)', 'status', 'reason', 'note']);
  assert.equal(lines.length, 7);

  // 2. fill it as a spreadsheet would: every row measured, one f1 with its decimal point misplaced
  const typo = first[2];
  const truth = measure(typo.parameters);
  const typed = truth.f1 * 10;
  const filled = [lines[0]];
  for (const line of lines.slice(1)) {
    const cells = line.split('\t');
    const c = first.find((x) => x.id === cells[0])!;
    const v = measure(c.parameters);
    cells[header.indexOf('f1 (MPa)')] = String(c === typo ? typed : v.f1);
    cells[header.indexOf('f2 (%)')] = String(v.f2);
    filled.push(cells.join('\t'));
  }

  // 3. upload it back as it is
  await page
    .getByTestId('worklist-upload')
    .setInputFiles({ name: `${id}-worklist.tsv`, mimeType: 'text/tab-separated-values', buffer: Buffer.from('\ufeff' + filled.join('\r\n') + '\r\n') });
  await page.getByTestId('worklist-message').getByText('6 results accepted; 0 still awaited.').waitFor();
  await page.getByText('Measure these 2 candidates (iteration 2)').waitFor({ timeout: 60_000 });
  const before = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(before.evaluations.find((r: { id: string }) => r.id === typo.id).objectives.f1, typed);
  screenshots.push(await shot(page, 'lab-3-uploaded'));

  // the wide table scrolls inside its box, the id column stays in view, the page does not overflow
  const scroll = page.getByTestId('evaluations-scroll');
  await scroll.locator('td', { hasText: typo.id }).first().waitFor();
  const headings = await scroll.locator('thead th').count();
  assert.equal(headings, 4 + NAMES.length + 2, 'iteration, id, state, Pareto, the parameters and the objectives');
  assert.equal((await page.getByTestId('column-chooser').locator('summary').innerText()).trim(), `Columns (${headings} of ${headings} shown)`);
  const widths = await scroll.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
  assert.ok(widths.scroll > widths.client, `ten parameters are wider than the window: ${widths.scroll} > ${widths.client} px`);
  assert.deepEqual(
    await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth })).then((w) => w.page <= w.window),
    true,
    'the page itself does not scroll sideways',
  );
  await scroll.scrollIntoViewIfNeeded();
  await scroll.evaluate((el) => (el.scrollLeft = el.scrollWidth));
  const box = (await scroll.boundingBox())!;
  const idCell = (await scroll.locator('tbody tr').first().locator('td').nth(1).boundingBox())!;
  assert.ok(idCell.x >= box.x && idCell.x + idCell.width <= box.x + box.width, 'the id column stays in view when scrolled to the right');
  const lastHeading = (await scroll.locator('thead th').last().boundingBox())!;
  assert.ok(lastHeading.x + lastHeading.width <= box.x + box.width + 1, 'the last column is reachable inside the box');
  screenshots.push(await shot(page, 'lab-4-evaluations-scrolled'));

  // the model checks: round ticks on both axes and a legend that explains the red points
  const check = page.getByTestId('model-check').first();
  await check.waitFor({ timeout: 60_000 });
  const ticks = (await check.locator('text.x-tick').allTextContents()).map(Number);
  assert.ok(ticks.length >= 4, `${ticks.length} ticks`);
  const step = ticks[1] - ticks[0];
  const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  assert.ok(
    [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6),
    `a round step: ${step}`,
  );
  for (let k = 1; k < ticks.length; k++) assert.ok(Math.abs(ticks[k] - ticks[k - 1] - step) < step * 1e-6, `evenly spaced: ${ticks.join(', ')}`);
  assert.deepEqual(await check.locator('text.y-tick').allTextContents(), await check.locator('text.x-tick').allTextContents());
  const legend = page.getByTestId('model-check-legend');
  assert.match(await legend.innerText(), /red: outside it, the model missed this measurement/);
  const missed = await check.locator('g.missed').count();
  assert.match(await check.locator('figcaption').innerText(), new RegExp(`· ${missed} of \\d+ outside ±1.96σ \\(red\\)$`));
  await page.getByTestId('model-report').scrollIntoViewIfNeeded();
  screenshots.push(await shot(page, 'lab-5-model-checks'));

  // 4. correct the misplaced decimal point in the dashboard
  const corrections = page.getByTestId('corrections');
  await corrections.getByTestId('correction-evaluation').selectOption(typo.id);
  const f1 = corrections.getByLabel('corrected f1');
  assert.equal(Number(await f1.inputValue()), typed, 'the form starts from the stored value');
  await f1.fill(String(truth.f1));
  await corrections.getByLabel('why the value is corrected').fill('decimal point misplaced');
  await corrections.getByRole('button', { name: 'Save the correction' }).click();
  await corrections.getByTestId('correction-message').getByText(`${typo.id} corrected`).waitFor();
  const history = corrections.getByTestId('corrections-history');
  await history.waitFor();
  const entry = history.locator(`tr[data-evaluation="${typo.id}"]`);
  assert.equal(await entry.locator('del').innerText(), `f1 ${Number(typed.toPrecision(5))} MPa, f2 ${Number(truth.f2.toPrecision(5))} %`);
  await corrections.scrollIntoViewIfNeeded();
  screenshots.push(await shot(page, 'lab-6-corrected'));

  // through the API: the evaluation carries the new value, the history the old one with who and when
  const keys = (await call('GET', '/v1/api-keys')) as { id: string; name: string; key_prefix: string }[];
  const admin = keys.find((k) => kiln.adminKey.startsWith(k.key_prefix))!;
  const after = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(after.evaluations.find((r: { id: string }) => r.id === typo.id).objectives.f1, truth.f1);
  const list = (await call('GET', `/v1/campaigns/${id}/corrections?evaluation_id=${typo.id}`)) as {
    previous: { objectives: Record<string, number> };
    corrected: { objectives: Record<string, number> };
    corrected_by: string;
    corrected_at: string;
    comment: string;
  }[];
  assert.equal(list.length, 1);
  assert.equal(list[0].previous.objectives.f1, typed);
  assert.equal(list[0].corrected.objectives.f1, truth.f1);
  assert.equal(list[0].corrected_by, admin.id);
  assert.equal(list[0].comment, 'decimal point misplaced');
  assert.ok(Math.abs(Date.parse(list[0].corrected_at) - Date.now()) < 120_000);
  assert.match(await entry.innerText(), new RegExp(`${admin.name} \\(${admin.id}\\)`), 'the history names who corrected it');
  // the table shows the corrected value once the page has re-read the results
  await scroll
    .locator('tr', { hasText: typo.id })
    .getByText(String(Number(truth.f1.toPrecision(5))), { exact: true })
    .first()
    .waitFor();
  // the table marks the corrected evaluation, and only it
  assert.deepEqual(
    await scroll
      .locator('tbody tr', { has: page.locator('.badge', { hasText: 'corrected' }) })
      .locator('td:nth-child(2)')
      .allInnerTexts(),
    [`${typo.id}corrected`],
  );
  assert.deepEqual(await problems(page), []);
  assert.deepEqual(failures, []);
  await page.screenshot({ path: `${ARTIFACTS}/lab-7-full-page.png`, fullPage: true });
  console.log(`screenshots: ${screenshots.join(', ')}, ${ARTIFACTS}/lab-7-full-page.png`);
  await context.close();
});
