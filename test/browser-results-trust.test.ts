import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/**
 * The lab walk's findings in the dashboard alone, at 1280×800 with screenshots: a worklist whose
 * header has a typo is refused on the screen, naming the column and the expected ones; a blank
 * cell is stored as partial and said so, row by row; every row is in the evaluations table with
 * its state; an abandoned batch stays abandoned, late results for it name every row and the
 * Corrections form, and correcting one starts from "abandoned"; a repeated design is marked
 * before it is measured; the hypervolume says what it measures.
 */

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;
let call: ReturnType<typeof dataClient>;

before(async () => {
  site = await startBrowserKiln({ WORKER_CONCURRENCY: '2' });
  ({ kiln, browser } = site);
  call = dataClient(kiln.base, kiln.adminKey);
});

after(() => site?.stop());

function labMdl(optimizer: Record<string, unknown> = {}) {
  return {
    parameters: [
      { name: 'salt', type: 'continuous', bounds: [0.5, 2], step: 0.05, unit: 'mol/kg' },
      { name: 'solvent_ratio', type: 'continuous', bounds: [0, 1] },
      { name: 'temperature', type: 'integer', bounds: [20, 60], unit: '°C' },
    ],
    objectives: [
      { name: 'conductivity', direction: 'maximize', unit: 'mS/cm', reference: 0 },
      { name: 'viscosity', direction: 'minimize', unit: 'mPa·s', reference: 20 },
    ],
    optimizer: { method: 'cma-es', budget: 8, batch_size: 2, seed: 3, initial_samples: 4, ...optimizer },
  };
}

type Candidate = { id: string; iteration: number; parameters: { salt: number; solvent_ratio: number; temperature: number } };

function measure(p: Candidate['parameters']) {
  return { conductivity: 5 + 3 * p.salt - 2 * p.solvent_ratio, viscosity: 2 + p.salt * 4 + p.temperature / 20 };
}

async function startedLab(name: string, optimizer: Record<string, unknown> = {}): Promise<{ id: string; first: Candidate[] }> {
  const { id } = await call('POST', '/v1/campaigns', { name, domain: 'battery', mdl: labMdl(optimizer) });
  await call('POST', `/v1/campaigns/${id}/start`);
  const first = await eventually(
    async () => {
      const data = (await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[];
      return data.length === 4 ? data : undefined;
    },
    60_000,
    'the initial design',
  );
  return { id, first };
}

/** A worklist filled as a spreadsheet would: the header as `header` says, every row measured but `blank` (a cell left empty). */
function filled(text: string, first: Candidate[], header: (cells: string[]) => string[] = (h) => h, blank?: { id: string; column: string }): Buffer {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter((l) => l !== '');
  const columns = lines[0].split(',');
  const rows = lines.slice(1).map((line) => {
    const cells = line.split(',');
    const c = first.find((x) => x.id === cells[0])!;
    const v = measure(c.parameters);
    cells[columns.indexOf('conductivity (mS/cm)')] = String(v.conductivity);
    cells[columns.indexOf('viscosity (mPa·s)')] = String(v.viscosity);
    if (blank?.id === c.id) cells[columns.indexOf(blank.column)] = '';
    return cells.join(',');
  });
  return Buffer.from('\ufeff' + [header(columns).join(','), ...rows].join('\r\n') + '\r\n');
}

/** Scrolls a section into the screenshot's view, in one step in the page (the live page may redraw it between two of Playwright's). */
async function into(page: Page, testId: string): Promise<void> {
  await page.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.scrollIntoView({ block: 'center' }), testId);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
}

test('the lab walk in the browser: a wrong header, a blank cell, a correction, the hypervolume explained', async () => {
  const { id, first } = await startedLab('trust lab');
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const worklist = page.getByTestId('worklist-table');
  await worklist.waitFor();
  assert.deepEqual((await worklist.locator('thead th').allInnerTexts()).slice(0, 4), ['id', 'salt (mol/kg)', 'solvent_ratio', 'temperature (°C)']);
  for (const salt of await worklist.locator('tbody tr td:nth-child(2)').allInnerTexts())
    assert.match(salt, /^\d\.\d\d$/, 'a stepped value with its step’s decimals');

  // the worklist as the screen shows it: the same headings and values
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download worklist (CSV)' }).click()]);
  const text = readFileSync(await download.path(), 'utf8');
  const fileRows = text.replace(/^\uFEFF/, '').split('\r\n');
  assert.equal(fileRows[0], 'id,iteration,salt (mol/kg),solvent_ratio,temperature (°C),conductivity (mS/cm),viscosity (mPa·s),status,reason,note');
  const screen = await worklist.locator('tbody tr').first().locator('td').allInnerTexts();
  assert.deepEqual(fileRows[1].split(',').slice(2, 5), screen.slice(1, 4), 'the file writes the values the screen shows');

  // 1. a typo in a heading: refused on the screen, naming it and the expected columns; nothing stored
  const typo = filled(text, first, (h) => h.map((c) => (c === 'conductivity (mS/cm)' ? 'conductivty (mS/cm)' : c)));
  await page.getByTestId('worklist-upload').setInputFiles({ name: 'worklist.csv', mimeType: 'text/csv', buffer: typo });
  const refusal = page.getByTestId('worklist-error');
  await refusal.getByText(/"conductivty \(mS\/cm\)" is not a column of this campaign \(did you mean conductivity\?\)/).waitFor();
  assert.match(await refusal.innerText(), /nothing was stored.*Expected the worklist's columns: id, iteration, salt \(mol\/kg\), solvent_ratio/s);
  await into(page, 'worklist-error');
  await shot(page, 'trust-1-wrong-header');
  assert.equal(((await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[]).length, 4, 'nothing was stored');

  // 2. the header as the screen heads it, one cell left blank: stored as partial, and said so
  const [, b] = first;
  await page
    .getByTestId('worklist-upload')
    .setInputFiles({ name: 'worklist.csv', mimeType: 'text/csv', buffer: filled(text, first, undefined, { id: b.id, column: 'viscosity (mPa·s)' }) });
  await page.getByTestId('worklist-message').getByText('4 results accepted; 0 still awaited.').waitFor();
  const partial = page.getByTestId('worklist-partial');
  await partial.getByText(`${b.id}: no viscosity`).waitFor();
  assert.equal(await refusal.count(), 0, 'the refusal is gone');
  await into(page, 'worklist-partial');
  await shot(page, 'trust-2-blank-cell');

  // every row is in the evaluations table with its state
  const table = page.getByTestId('evaluations');
  const row = table.locator(`tr[data-id="${b.id}"]`);
  await row.waitFor({ timeout: 60_000 });
  assert.equal(await row.getAttribute('data-status'), 'partial');
  assert.equal(await row.locator('td.state').innerText(), 'partial (viscosity not measured)');
  await eventually(async () => (/\(3 measured, 1 partial\)/.test(await page.getByTestId('state-counts').innerText()) ? true : undefined), 10_000, 'the counts');
  assert.match(await page.getByTestId('evaluation-counts').innerText(), /1 partial/);

  // 3. corrected in the dashboard when the value is known
  const corrections = page.getByTestId('corrections');
  const picker = corrections.getByTestId('correction-evaluation');
  await picker.locator('option', { hasText: `${b.id} (iteration 1, partial)` }).waitFor({ state: 'attached' });
  await picker.selectOption(b.id);
  assert.equal(await corrections.getByTestId('correction-status').inputValue(), 'measured');
  assert.equal(await corrections.getByLabel('corrected viscosity').inputValue(), '', 'the value not measured is empty');
  const v = measure(b.parameters);
  await corrections.getByLabel('corrected viscosity').fill(String(v.viscosity));
  await corrections.getByLabel('why the value is corrected').fill('viscometer reading found');
  await corrections.getByRole('button', { name: 'Save the correction' }).click();
  await corrections
    .getByTestId('correction-message')
    .getByText(new RegExp(`${b.id} corrected: .*\\(partial\\) → conductivity`))
    .waitFor();
  await eventually(async () => ((await row.getAttribute('data-status')) === 'measured' ? true : undefined), 10_000, 'the corrected row');
  await into(page, 'corrections');
  await shot(page, 'trust-3-corrected');

  // the hypervolume says what it measures: the reference point, its unit, why it can fall
  const explained = page.getByTestId('hypervolume-explained');
  await explained.locator('summary').click();
  const words = await explained.innerText();
  assert.match(words, /What the hypervolume measures \(in mS\/cm × mPa·s\)/);
  assert.match(words, /conductivity 0 mS\/cm \(given; only values above it count\), viscosity 20 mPa·s \(given; only values below it count\)/);
  assert.match(words, /can fall between rounds/);
  await into(page, 'hypervolume-explained');
  await shot(page, 'trust-4-hypervolume-explained');
  assert.deepEqual(await problems(page), []);
  assert.deepEqual(failures, []);

  // 4. a repeated design is marked before it is measured: the noise check, as it comes, in a copy of this campaign
  await eventually(async () => (((await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[]).length === 2 ? true : undefined), 60_000, 'batch 2');
  await call('POST', `/v1/campaigns/${id}/stop`);
  await eventually(async () => ((await call('GET', `/v1/campaigns/${id}`)).status === 'stopped' ? true : undefined), 30_000, 'the stop');
  const document = (await fetch(`${kiln.base}/v1/campaigns/${id}/export`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } }).then((r) => r.json())) as {
    evaluations: { id: string; parameters: unknown }[];
    engine_state: { pending: { id: string; parameters: unknown }[] };
  };
  const probe = document.engine_state.pending.at(-1)!;
  probe.parameters = document.evaluations.find((e) => e.id === first[0].id)!.parameters;
  document.evaluations.find((e) => e.id === probe.id)!.parameters = probe.parameters;
  const copy = await call('POST', '/v1/campaigns/import', { ...document, name: 'trust lab, noise check' });
  await call('POST', `/v1/campaigns/${copy.id}/start`);
  await page.goto(`${kiln.base}/#/campaigns/${copy.id}`);
  const repeated = copy.imported.evaluation_ids[probe.id] as string;
  const badge = page.getByTestId('worklist-table').locator(`tr[data-id="${repeated}"] .badge`);
  await badge.waitFor({ timeout: 60_000 });
  assert.equal(await badge.innerText(), `repeat of ${copy.imported.evaluation_ids[first[0].id]}`);
  assert.match(await page.getByTestId('worklist-repeats').innerText(), new RegExp(`${repeated} is a repeat of eval_\\w+, on purpose: the noise check`));
  await shot(page, 'trust-5-repeat');
  await call('POST', `/v1/campaigns/${copy.id}/stop`);
  await context.close();
});

test('an abandoned batch in the browser: late results are refused naming every row and the Corrections form; a correction starts from abandoned', async () => {
  // 7.2 s for each batch; a budget that keeps the campaign running through the test
  const { id, first } = await startedLab('trust abandoned', { batch_deadline_hours: 0.002, budget: 60 });
  const old = await fetch(`${kiln.base}/v1/campaigns/${id}/worklist`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } }).then((r) => r.text());
  await eventually(async () => ((await call('GET', `/v1/campaigns/${id}`)).current_iteration >= 1 ? true : undefined), 60_000, 'the deadline');

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByTestId('worklist-table').waitFor();
  // the lab uploads the batch it measured, after its deadline
  await page.getByTestId('worklist-upload').setInputFiles({ name: 'worklist.csv', mimeType: 'text/csv', buffer: filled(old, first) });
  const refusal = page.getByTestId('worklist-error');
  await refusal.getByText(/4 candidates already have a different result, so nothing of this post was stored/).waitFor();
  const said = await refusal.innerText();
  for (const c of first)
    assert.ok(said.includes(`${c.id} (line `) && said.includes('is stored as abandoned: no result within optimizer.batch_deadline_hours'), said);
  assert.match(said, /the campaign page's Corrections, under the evaluations table/);
  await into(page, 'worklist-error');
  await shot(page, 'trust-6-abandoned-batch');

  // abandoned has its own label and count
  const table = page.getByTestId('evaluations');
  const row = table.locator(`tr[data-id="${first[0].id}"]`);
  await row.waitFor();
  assert.equal(await row.getAttribute('data-status'), 'abandoned');
  assert.match(await row.locator('td.state').innerText(), /^abandoned: no result within optimizer\.batch_deadline_hours \(0\.002 h\)$/);
  assert.match(await page.getByTestId('state-counts').innerText(), /\d+ abandoned\)$/);
  assert.match(await page.getByTestId('evaluation-counts').innerText(), /0 failed, \d+ abandoned$/);

  // the correction starts from the stored state, abandoned, not failed
  const corrections = page.getByTestId('corrections');
  const picker = corrections.getByTestId('correction-evaluation');
  await picker.locator('option', { hasText: `${first[0].id} (iteration 1, abandoned)` }).waitFor({ state: 'attached' });
  await picker.selectOption(first[0].id);
  const status = corrections.getByTestId('correction-status');
  assert.equal(await status.inputValue(), 'abandoned');
  assert.equal(await corrections.getByLabel('reason of the failure').inputValue(), 'no result within optimizer.batch_deadline_hours (0.002 h)');
  await status.selectOption('measured');
  const v = measure(first[0].parameters);
  await corrections.getByLabel('corrected conductivity').fill(String(v.conductivity));
  await corrections.getByLabel('corrected viscosity').fill(String(v.viscosity));
  await corrections.getByLabel('why the value is corrected').fill('measured after the deadline');
  await corrections.getByRole('button', { name: 'Save the correction' }).click();
  await corrections
    .getByTestId('correction-message')
    .getByText(`${first[0].id} corrected: abandoned (no result within optimizer.batch_deadline_hours (0.002 h)) →`)
    .waitFor();
  await eventually(async () => ((await row.getAttribute('data-status')) === 'measured' ? true : undefined), 10_000, 'the corrected row');
  const results = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(results.evaluations.find((r: { id: string }) => r.id === first[0].id).status, 'measured');
  assert.ok(results.failed_evaluations.filter((r: { iteration: number }) => r.iteration === 1).every((r: { status: string }) => r.status === 'abandoned'));
  await into(page, 'corrections');
  await shot(page, 'trust-7-abandoned-corrected');
  await call('POST', `/v1/campaigns/${id}/stop`);
  await context.close();
});
