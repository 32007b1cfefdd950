import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import type { Browser, Locator, Page } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { inWindow, problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/**
 * The lab round trip in the browser alone, campaign creation included, at 1280×800, as a scientist
 * would follow it: the campaign made with the form for results people enter, started, each
 * batch's worklist downloaded and uploaded back filled (a wrong header refused first, a blank cell
 * stored as partial and said so), a batch abandoned from the worklist, one abandoned row corrected
 * in the Corrections form, the budget spent, and the results read on the page and as CSV. The API
 * is called only to check that a refused file stored nothing. Screenshots: lab-roundtrip-*.png.
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

const HEADINGS = ['salt_concentration (mol/L)', 'ec_fraction (vol fraction)', 'conductivity (mS/cm)', 'cost (USD/kg)', 'viscosity (mPa·s)'];

/** What the lab measures for a recipe as the worklist writes it: a made-up closed form, to 3 decimals as an instrument shows it. */
function measure(salt: number, ec: number): Record<'conductivity' | 'cost' | 'viscosity', string> {
  return {
    conductivity: (3 + 8 * ec + 4 * salt - 2 * salt * salt).toFixed(3),
    cost: (10 + 8 * salt + 5 * ec).toFixed(3),
    viscosity: (1.5 + 3 * salt * salt + 4 * ec).toFixed(3),
  };
}

/**
 * The downloaded worklist filled in as a spreadsheet would leave it: each row's measurements from
 * the recipe in its own cells, `blank` left empty, the header as `header` makes it. Only the
 * columns before status, reason and note are touched, so splitting at commas is safe.
 */
function filled(text: string, options: { header?: (h: string[]) => string[]; blank?: { row: number; column: string } } = {}): { file: Buffer; ids: string[] } {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter((l) => l !== '');
  const header = lines[0].split(',');
  const at = (name: string) => header.indexOf(name);
  const rows = lines.slice(1).map((line, k) => {
    const cells = line.split(',');
    const v = measure(Number(cells[at('salt_concentration (mol/L)')]), Number(cells[at('ec_fraction (vol fraction)')]));
    cells[at('conductivity (mS/cm)')] = v.conductivity;
    cells[at('cost (USD/kg)')] = v.cost;
    cells[at('viscosity (mPa·s)')] = v.viscosity;
    if (options.blank?.row === k) cells[at(options.blank.column)] = '';
    return cells;
  });
  const head = (options.header ?? ((h) => h))(header);
  return { file: Buffer.from('\ufeff' + [head, ...rows].map((cells) => cells.join(',')).join('\r\n') + '\r\n'), ids: rows.map((cells) => cells[0]) };
}

async function shot(page: Page, name: string, fullPage = false): Promise<string> {
  const path = `${ARTIFACTS}/lab-roundtrip-${name}.png`;
  await page.screenshot({ path, fullPage });
  return path;
}

/** Waits until `locator` reads as `pattern` (the header follows the WebSocket, a moment after the worklist), and returns what it reads. */
async function reads(locator: Locator, pattern: RegExp): Promise<string> {
  let last = '';
  try {
    return await eventually(
      async () => {
        last = await locator.innerText();
        return pattern.test(last) ? last : undefined;
      },
      30_000,
      String(pattern),
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; the page read "${last}"`);
  }
}

/** Brings a part of the page, with its section's heading, to the top of the window, in one step in the page (the live page may redraw it between two of Playwright's). */
async function into(page: Page, testId: string): Promise<void> {
  await page.evaluate((id) => {
    const part = document.querySelector(`[data-testid="${id}"]`);
    (part?.closest('section') ?? part)?.scrollIntoView({ block: 'start' });
  }, testId);
}

/** The file a button saves, as text. */
async function saved(page: Page, button: string): Promise<string> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  return readFileSync(await download.path(), 'utf8');
}

test('the lab round trip in the browser alone: a campaign made with the form, a wrong header, a blank cell, an abandoned batch, a correction, the budget spent', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  const screenshots: string[] = [];

  // 1. the campaign, made with the form: parameters with units and steps, objectives with units
  // and references, an outcome and a constraint on it; budget 12 in batches of 2 (an initial design of 6)
  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByRole('link', { name: 'New campaign with results you enter' }).click();
  await page.getByRole('heading', { name: 'New campaign with results you enter' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Electrolyte round trip');
  await page.getByLabel('Domain').fill('battery');
  const parameter = (name: string, lower: string, upper: string, step: string, unit: string, n: number) => [
    [`name of parameter ${n}`, name],
    [`lower bound of parameter ${n}`, lower],
    [`upper bound of parameter ${n}`, upper],
    [`step of parameter ${n}`, step],
    [`unit of parameter ${n}`, unit],
  ];
  const objective = (name: string, unit: string, reference: string, n: number) => [
    [`name of objective ${n}`, name],
    [`unit of objective ${n}`, unit],
    [`reference of objective ${n}`, reference],
  ];
  const fill = async (fields: string[][]) => {
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
  };
  await fill(parameter('salt_concentration', '0.5', '2', '0.05', 'mol/L', 1));
  await page.getByRole('button', { name: 'Add a parameter', exact: true }).click();
  await fill(parameter('ec_fraction', '0.1', '0.5', '0.05', 'vol fraction', 2));
  await fill(objective('conductivity', 'mS/cm', '2', 1));
  await page.getByRole('button', { name: 'Add an objective', exact: true }).click();
  await fill(objective('cost', 'USD/kg', '30', 2));
  await page.getByLabel('direction of objective 2').selectOption('minimize');
  await page.getByRole('button', { name: 'Add an outcome', exact: true }).click();
  await fill([
    ['name of outcome 1', 'viscosity'],
    ['unit of outcome 1', 'mPa·s'],
  ]);
  await page.getByRole('button', { name: 'Add an outcome constraint', exact: true }).click();
  await page.getByLabel('condition of outcome constraint 1').fill('viscosity <= 10');
  await page.getByLabel('Budget (experiments)').fill('12');
  await page.getByLabel('Batch size').fill('2');
  await page.waitForFunction(() => document.querySelector('[data-testid="lab-campaign-yaml"]')?.textContent?.includes('batch_size: 2'));
  const yaml = await page.getByTestId('lab-campaign-yaml').innerText();
  for (const line of ['step: 0.05', 'unit: mol/L', 'reference: 30', 'expression: viscosity <= 10', 'type: external'])
    assert.ok(yaml.includes(line), `the YAML beside the form says ${line}`);
  screenshots.push(await shot(page, '1-form', true));
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.waitForURL(/#\/campaigns\/camp_\w+$/);
  await page.getByRole('heading', { name: 'Electrolyte round trip' }).waitFor();
  const id = new URL(page.url()).hash.split('/')[2];

  // 2. started: the initial design as a worklist, headed with units, stepped values on their grid
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByText('Measure these 6 candidates (iteration 1, the initial design)').waitFor({ timeout: 60_000 });
  const worklist = page.getByTestId('worklist-table');
  assert.deepEqual(await worklist.locator('thead th').allInnerTexts(), ['id', ...HEADINGS, 'status', 'reason']);
  for (const cells of await worklist
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('td')).map((td) => td.textContent))))
    for (const value of cells.slice(1, 3)) assert.match(value ?? '', /^\d\.\d\d$/, 'a value on its 0.05 step, with its decimals');
  const header = page.getByTestId('status').locator('xpath=..');
  await reads(header, /^running · battery · 0 \/ 12 evaluations/);
  screenshots.push(await shot(page, '2-started'));

  // 3. the lab's file with a typo in a heading: refused on the screen, naming it and the expected columns; nothing stored
  const design = await saved(page, 'Download worklist (CSV)');
  assert.equal(
    design.replace(/^\uFEFF/, '').split('\r\n')[0],
    `id,iteration,${HEADINGS.join(',')},status,reason,note`,
    'the file heads its columns as the screen does',
  );
  const upload = page.getByTestId('worklist-upload');
  const typo = filled(design, { header: (h) => h.map((c) => (c === 'conductivity (mS/cm)' ? 'conductivty' : c)) });
  await upload.setInputFiles({ name: 'design.csv', mimeType: 'text/csv', buffer: typo.file });
  const refusal = page.getByTestId('worklist-error');
  await refusal.getByText(/"conductivty" is not a column of this campaign \(did you mean conductivity\?\)/).waitFor();
  assert.match(
    await refusal.innerText(),
    /nothing was stored.*Expected the worklist's columns: id, iteration, salt_concentration \(mol\/L\), ec_fraction \(vol fraction\), conductivity \(mS\/cm\), cost \(USD\/kg\), viscosity \(mPa·s\)/s,
  );
  await inWindow(refusal, 'the refusal');
  assert.equal(await worklist.locator('tbody tr').count(), 6, 'the batch still awaits every result');
  assert.match(await header.innerText(), / 0 \/ 12 evaluations/);
  assert.equal(((await call('GET', `/v1/campaigns/${id}/candidates`)) as unknown[]).length, 6, 'nothing was stored');
  assert.deepEqual((await call('GET', `/v1/campaigns/${id}/results`)).evaluations, []);
  screenshots.push(await shot(page, '3-wrong-header'));

  // 4. the same file headed as the dashboard heads it: accepted, said under the upload control
  await upload.setInputFiles({ name: 'design.csv', mimeType: 'text/csv', buffer: filled(design).file });
  const answer = page.getByTestId('worklist-answer');
  await answer.getByText('design.csv: 6 results accepted; 0 still awaited.').waitFor();
  assert.equal(await refusal.count(), 0, 'the refusal gives way to the answer');
  await page.getByText('Measure these 2 candidates (iteration 2)').waitFor({ timeout: 60_000 });
  await inWindow(answer, 'the answer');
  await reads(header, / 6 \/ 12 evaluations · iteration 1/);
  screenshots.push(await shot(page, '4-accepted'));

  // 5. a round with a blank cell: stored as partial, the answer naming the row and the missing objective
  const second = filled(await saved(page, 'Download worklist (CSV)'), { blank: { row: 0, column: 'cost (USD/kg)' } });
  await upload.setInputFiles({ name: 'round-2.csv', mimeType: 'text/csv', buffer: second.file });
  await answer.getByText('round-2.csv: 2 results accepted; 0 still awaited.').waitFor();
  const [partial] = second.ids;
  await answer.getByTestId('worklist-partial').getByText(`${partial}: no cost`).waitFor();
  await inWindow(answer, 'the partial row named');
  await page.getByText('Measure these 2 candidates (iteration 3)').waitFor({ timeout: 60_000 });
  await answer.getByText(`${partial}: no cost`).waitFor();
  const table = page.getByTestId('evaluations');
  const stateOf = (evaluation: string) => table.locator(`tr[data-id="${evaluation}"] td.state`);
  assert.equal(await stateOf(partial).innerText(), 'partial (cost not measured)');
  await reads(header, / 8 \/ 12 evaluations \(7 measured, 1 partial\)/);
  screenshots.push(await shot(page, '5-blank-cell'));

  // 6. a batch abandoned from the worklist (the furnace broke down): its status and reason per row, posted as typed
  const abandoned = await worklist.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')!));
  for (const row of abandoned) {
    await page.getByLabel(`status of ${row}`).selectOption('abandoned');
    await page.getByLabel(`reason for ${row}`).fill('furnace broke down');
  }
  await page.getByRole('button', { name: 'Post the typed results' }).click();
  await page.getByTestId('worklist-message').getByText('2 results accepted; 0 still awaited.').waitFor();
  await page.getByText('Measure these 2 candidates (iteration 4)').waitFor({ timeout: 60_000 });
  await inWindow(page.getByTestId('worklist-answer-typed'), 'the answer under the typed results');
  // the next batch is out, and the abandoned rows stay abandoned: their own label, their own count
  for (const row of abandoned) {
    await table.locator(`tr[data-id="${row}"][data-status="abandoned"]`).waitFor();
    assert.equal(await stateOf(row).innerText(), 'abandoned: furnace broke down');
  }
  await reads(header, / 10 \/ 12 evaluations \(7 measured, 1 partial, 2 abandoned\)/);
  assert.equal(await page.getByTestId('evaluation-counts').getAttribute('data-abandoned'), '2');
  assert.equal(await page.getByTestId('evaluation-counts').getAttribute('data-failed'), '0', 'abandoned is not failed');
  await into(page, 'evaluations');
  screenshots.push(await shot(page, '6-abandoned'));

  // 7. one abandoned row measured after all: the Corrections form opens it as abandoned, it is corrected to measured
  const [revived, still] = abandoned;
  const corrections = page.getByTestId('corrections');
  const picker = corrections.getByTestId('correction-evaluation');
  await picker.locator('option', { hasText: `${revived} (iteration 3, abandoned)` }).waitFor({ state: 'attached' });
  await picker.selectOption(revived);
  const status = corrections.getByTestId('correction-status');
  assert.equal(await status.inputValue(), 'abandoned', 'an abandoned result opens as abandoned, not failed');
  assert.equal(await corrections.getByLabel('reason of the failure').inputValue(), 'furnace broke down');
  await status.selectOption('measured');
  const recipe = await table.locator(`tr[data-id="${revived}"] td`).allInnerTexts();
  const value = measure(Number(recipe.at(-5)), Number(recipe.at(-4)));
  await corrections.getByLabel('corrected conductivity').fill(value.conductivity);
  await corrections.getByLabel('corrected cost').fill(value.cost);
  await corrections.getByLabel('corrected viscosity').fill(value.viscosity);
  await corrections.getByLabel('why the value is corrected').fill('measured the next morning, in the spare furnace');
  await corrections.getByRole('button', { name: 'Save the correction' }).click();
  await corrections
    .getByTestId('correction-message')
    .getByText(`${revived} corrected: abandoned (furnace broke down) → conductivity ${Number(value.conductivity)} mS/cm`)
    .waitFor();
  await table.locator(`tr[data-id="${revived}"][data-status="measured"] .badge`, { hasText: 'corrected' }).waitFor();
  assert.equal(await stateOf(revived).innerText(), 'measured');
  assert.equal(await stateOf(still).innerText(), 'abandoned: furnace broke down', 'the other stays abandoned');
  const entry = corrections.getByTestId('corrections-history').locator(`tr[data-evaluation="${revived}"]`);
  assert.equal(await entry.locator('del').innerText(), 'abandoned (furnace broke down)');
  assert.match(await entry.innerText(), /measured the next morning, in the spare furnace/);
  await reads(header, /\(8 measured, 1 partial, 1 abandoned\)/);
  await into(page, 'corrections');
  screenshots.push(await shot(page, '7-corrected'));

  // 8. the last batch spends the budget: the campaign completes, and the answer stays where it was read
  await page.evaluate(() => window.scrollTo(0, 0));
  await upload.setInputFiles({ name: 'round-4.csv', mimeType: 'text/csv', buffer: filled(await saved(page, 'Download worklist (CSV)')).file });
  await answer.getByText('round-4.csv: 2 results accepted; 0 still awaited.').waitFor();
  await page.getByTestId('status').getByText('completed').waitFor({ timeout: 60_000 });
  await page.getByText('The campaign is no longer running (completed): no candidate awaits a result.').waitFor();
  await inWindow(answer, 'the answer after the campaign completed');
  await reads(header, /^completed · battery · 12 \/ 12 evaluations \(10 measured, 1 partial, 1 abandoned\) · iteration 4/);
  await page.getByTestId('stop-message').getByText('The budget of 12 evaluations is spent.').waitFor();
  screenshots.push(await shot(page, '8-completed'));

  // 9. the results: every evaluation in the table with its state, the plots, the results CSV
  const counts = page.getByTestId('evaluation-counts');
  assert.match(await counts.innerText(), /^\d+ infeasible, 1 partial, 0 failed, 1 abandoned$/);
  const infeasible = Number(await counts.getAttribute('data-infeasible'));
  const plotted = await page.locator('[data-testid="plots"] .uplot').count();
  assert.equal(plotted, 2, 'the convergence plot and the Pareto front');
  assert.match(await page.getByTestId('failed-evaluations').locator('summary').innerText(), /^1 abandoned evaluation: no objective values/);
  await into(page, 'plots');
  screenshots.push(await shot(page, '9-plots'));
  const states = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')));
  assert.equal(states.length, 12, 'every evaluation in the table');
  assert.deepEqual([...states].sort(), [...Array(10).fill('measured'), 'partial', 'abandoned'].sort());
  await into(page, 'evaluations');
  screenshots.push(await shot(page, '10-evaluations'));
  const csv = Papa.parse<Record<string, string>>((await saved(page, 'Download CSV')).replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true });
  assert.deepEqual(csv.meta.fields, [
    'id',
    'iteration',
    'is_pareto',
    'salt_concentration',
    'ec_fraction',
    'conductivity',
    'cost',
    'viscosity',
    'feasible',
    'status',
    'reason',
  ]);
  assert.equal(csv.data.length, 12);
  const row = (evaluation: string) => csv.data.find((r) => r.id === evaluation)!;
  assert.deepEqual([row(partial).status, row(partial).cost], ['partial', '']);
  assert.deepEqual([row(still).status, row(still).reason], ['abandoned', 'furnace broke down']);
  assert.equal(Number(row(revived).conductivity), Number(value.conductivity), 'the corrected value');
  assert.equal(csv.data.filter((r) => r.status === 'measured' && r.feasible === 'false').length, infeasible, 'the infeasible ones the page counts');
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.deepEqual(await problems(page), []);
  assert.deepEqual(failures, []);
  await page.screenshot({ path: `${ARTIFACTS}/lab-roundtrip-11-full-page.png`, fullPage: true });
  console.log(`screenshots: ${[...screenshots, `${ARTIFACTS}/lab-roundtrip-11-full-page.png`].join(', ')}`);
  await context.close();
});
