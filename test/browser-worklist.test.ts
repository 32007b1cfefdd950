import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { zdt1 } from './support/campaign-fixtures.js';
import { inWindow, problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/** A lab round trip in the dashboard alone: download the worklist, fill it, upload it, type the last row, see the results. */

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

const LAB_MDL = {
  // definition order on purpose not alphabetical: the worklist keeps it
  parameters: [
    { name: 'x2', type: 'continuous', bounds: [0, 1], unit: 'g' },
    { name: 'x1', type: 'continuous', bounds: [0, 1], unit: 'mol/L' },
  ],
  objectives: [
    { name: 'f1', direction: 'minimize', reference: 1.1, unit: 'MPa' },
    { name: 'f2', direction: 'minimize', reference: 10, unit: '%' },
  ],
  optimizer: { method: 'cma-es', budget: 8, batch_size: 2, seed: 7, initial_samples: 4 },
};

test('the initial design shows as a worklist that downloads, comes back filled as a CSV upload and typed row by row', async () => {
  const { id } = await call('POST', '/v1/campaigns', { name: 'lab worklist', domain: 'benchmark', mdl: LAB_MDL });
  await call('POST', `/v1/campaigns/${id}/start`);
  const first = await eventually(
    async () => {
      const data = (await call('GET', `/v1/campaigns/${id}/candidates`)) as { id: string; parameters: Record<string, number> }[];
      return data.length === 4 ? data : undefined;
    },
    60_000,
    'the initial design',
  );

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const table = page.getByTestId('worklist-table');
  await table.waitFor();
  assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['id', 'x2 (g)', 'x1 (mol/L)', 'f1 (MPa)', 'f2 (%)', 'status', 'reason']);
  assert.deepEqual(
    await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))),
    first.map((c) => c.id),
  );
  // values written out to 5 significant digits of the range [0, 1], never in exponent notation
  const shown = await table.locator('tbody tr').first().locator('td').allInnerTexts();
  assert.equal(Number(shown[1]), Number(first[0].parameters.x2.toFixed(4)));
  assert.doesNotMatch(shown.join(' '), /e-/);
  await page.screenshot({ path: `${ARTIFACTS}/worklist-initial-design.png`, fullPage: true });

  // download, fill three rows in a "spreadsheet" (one failed with a reason), leave the last for later
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download worklist/ }).click()]);
  const text = readFileSync(await download.path(), 'utf8');
  assert.equal(text.charCodeAt(0), 0xfeff, 'a byte-order mark, so Excel reads it as UTF-8');
  const lines = text
    .slice(1)
    .split(/\r?\n/)
    .filter((l) => l !== '');
  const header = lines[0].split(',');
  assert.deepEqual(header.slice(0, 4), ['id', 'iteration', 'x2 (g)', 'x1 (mol/L)'], 'headed as the screen heads them');
  const filled = [lines[0]];
  for (const [i, line] of lines.slice(1).entries()) {
    const cells = line.split(',');
    const c = first.find((x) => x.id === cells[0])!;
    const v = zdt1(c.parameters.x1, c.parameters.x2);
    if (i < 2) {
      cells[header.indexOf('f1 (MPa)')] = String(v.f1);
      cells[header.indexOf('f2 (%)')] = String(v.f2);
    } else if (i === 2) {
      cells[header.indexOf('status')] = 'failed';
      cells[header.indexOf('reason')] = 'sample cracked';
    }
    filled.push(cells.join(','));
  }
  await page.getByTestId('worklist-upload').setInputFiles({ name: 'worklist.csv', mimeType: 'text/csv', buffer: Buffer.from('\ufeff' + filled.join('\r\n')) });
  await page.getByTestId('worklist-message').getByText('3 results accepted; 1 still awaited.').waitFor();
  await eventually(async () => ((await table.locator('tbody tr').count()) === 1 ? true : undefined), 10_000, 'one row left');
  const last = first[3];
  assert.equal(await table.locator('tbody tr').first().getAttribute('data-id'), last.id);

  // a result posted for the batch in progress (not an evaluation yet) is corrected in the form too
  const posted = first[0];
  const measured = zdt1(posted.parameters.x1, posted.parameters.x2);
  const corrections = page.getByTestId('corrections');
  const picker = corrections.getByTestId('correction-evaluation');
  await picker.focus();
  await picker.locator('option', { hasText: `${posted.id} (iteration 1, posted, batch in progress)` }).waitFor({ state: 'attached' });
  await picker.selectOption(posted.id);
  assert.equal(Number(await corrections.getByLabel('corrected f1').inputValue()), measured.f1, 'the form starts from the posted value');
  const fixed = Number((measured.f1 + 0.01).toFixed(6));
  await corrections.getByLabel('corrected f1').fill(String(fixed));
  await corrections.getByRole('button', { name: 'Save the correction' }).click();
  await corrections.getByTestId('correction-message').getByText(`${posted.id} corrected`).waitFor();
  const [correction] = await call('GET', `/v1/campaigns/${id}/corrections?evaluation_id=${posted.id}`);
  assert.equal(correction.previous.objectives.f1, measured.f1);
  assert.equal(correction.corrected.objectives.f1, fixed);

  // a typed value that is not a number is refused before anything is posted
  await page.getByLabel(`f1 of ${last.id}`).fill('abc');
  await page.getByRole('button', { name: 'Post the typed results' }).click();
  await page
    .getByRole('alert')
    .getByText(/"abc" for f1 is not a number/)
    .waitFor();
  const v = zdt1(last.parameters.x1, last.parameters.x2);
  await page.getByLabel(`f1 of ${last.id}`).fill(String(v.f1));
  await page.getByLabel(`f2 of ${last.id}`).fill(String(v.f2));
  await page.getByRole('button', { name: 'Post the typed results' }).click();
  await page.getByTestId('worklist-message').getByText('1 result accepted; 0 still awaited.').waitFor();

  // the next batch comes as the next worklist, and the results show on the page
  await page.getByText('Measure these 2 candidates (iteration 2)').waitFor({ timeout: 60_000 });
  const results = await call('GET', `/v1/campaigns/${id}/results`);
  assert.equal(results.evaluations.length, 3);
  assert.equal(results.failed_evaluations.length, 1);
  assert.equal(results.evaluations.find((r: { id: string }) => r.id === posted.id).objectives.f1, fixed, 'the batch was told the corrected value');
  assert.match(results.failed_evaluations[0].error, /sample cracked/);
  // the evaluations table names each evaluation, and its column count matches the table
  const evaluations = page.getByTestId('evaluations');
  await evaluations.locator('td', { hasText: first[0].id }).first().waitFor();
  const headings = (await evaluations.locator('thead th').allInnerTexts()).map((h) => h.trim());
  assert.deepEqual(headings, ['iteration', 'id', 'state', 'Pareto', 'x2 (g)', 'x1 (mol/L)', 'f1 (MPa)', 'f2 (%)']);
  // every stored row is listed with its state, the failed one too
  assert.equal(await evaluations.locator(`tr[data-id="${first[2].id}"] td.state`).innerText(), 'failed: sample cracked');
  assert.equal((await page.getByTestId('column-chooser').locator('summary').innerText()).trim(), `Columns (${headings.length} of ${headings.length} shown)`);
  // the header counts the front the page draws
  const front = ((await call('GET', `/v1/campaigns/${id}/results`)).evaluations as { is_pareto: boolean }[]).filter((r) => r.is_pareto).length;
  assert.ok((await page.locator('main').innerText()).includes(`Pareto front (${front})`), 'the chart legend counts the same front');
  await eventually(
    async () => (Number(await page.getByTestId('pareto-size').innerText()) === front ? true : undefined),
    10_000,
    `a front of ${front} in the header`,
  );
  assert.ok(front > 0);
  assert.deepEqual(await problems(page), []);
  await page.screenshot({ path: `${ARTIFACTS}/worklist-after-upload.png`, fullPage: true });
  await context.close();
});

test("an upload's answer shows beside the upload control, in the window, and stays when that upload completes the campaign, until dismissed", async () => {
  // a design of ten rows: the table below the upload control reaches past an 800 px window
  const { id } = await call('POST', '/v1/campaigns', {
    name: 'lab answer',
    domain: 'benchmark',
    mdl: { ...LAB_MDL, optimizer: { method: 'cma-es', budget: 10, batch_size: 2, seed: 5, initial_samples: 10 } },
  });
  await call('POST', `/v1/campaigns/${id}/start`);
  const design = await eventually(
    async () => {
      const data = (await call('GET', `/v1/campaigns/${id}/candidates`)) as { id: string; parameters: Record<string, number> }[];
      return data.length === 10 ? data : undefined;
    },
    60_000,
    'the initial design',
  );
  const worklist = await fetch(`${kiln.base}/v1/campaigns/${id}/worklist`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } }).then((r) => r.text());
  const lines = worklist
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter((l) => l !== '');
  const header = lines[0].split(',');
  /** The worklist with the rows of `ids` measured, `blank` measured but for f2. */
  const filled = (ids: string[], blank?: string) =>
    Buffer.from(
      [
        lines[0],
        ...lines.slice(1).map((line) => {
          const cells = line.split(',');
          const c = design.find((x) => x.id === cells[0])!;
          if (!ids.includes(c.id)) return line;
          const v = zdt1(c.parameters.x1, c.parameters.x2);
          cells[header.indexOf('f1 (MPa)')] = String(v.f1);
          cells[header.indexOf('f2 (%)')] = c.id === blank ? '' : String(v.f2);
          return cells.join(',');
        }),
      ].join('\r\n'),
    );

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByTestId('worklist-table').waitFor();
  const upload = page.getByTestId('worklist-upload');
  const answer = page.getByTestId('worklist-answer');
  assert.equal(await answer.getAttribute('aria-live'), 'polite', 'a live region before any answer, so a screen reader announces it');
  // a first part of the batch: the answer right under the upload control, in the window
  await upload.setInputFiles({ name: 'first-part.csv', mimeType: 'text/csv', buffer: filled(design.slice(0, 6).map((c) => c.id)) });
  await answer.getByTestId('worklist-message').getByText('first-part.csv: 6 results accepted; 4 still awaited.').waitFor();
  await page.getByText('Measure these 4 candidates (iteration 1, the initial design)').waitFor();
  const control = (await upload.locator('xpath=ancestor::p[1]').boundingBox())!;
  const box = await inWindow(answer, 'the answer');
  assert.ok(
    box.y >= control.y + control.height - 1 && box.y - (control.y + control.height) < 24,
    `the answer right under the upload control: ${JSON.stringify({ control, box })}`,
  );

  // the rest, one cell left blank: this answer replaces the first, and the campaign completes with it
  const rest = design.slice(6);
  await upload.setInputFiles({
    name: 'the-rest.csv',
    mimeType: 'text/csv',
    buffer: filled(
      rest.map((c) => c.id),
      rest[1].id,
    ),
  });
  await answer.getByTestId('worklist-message').getByText('the-rest.csv: 4 results accepted; 0 still awaited.').waitFor();
  await page.getByTestId('status').getByText('completed').waitFor({ timeout: 60_000 });
  await page.getByTestId('worklist-empty').getByText('The campaign is no longer running (completed): no candidate awaits a result.').waitFor();
  assert.doesNotMatch(await answer.innerText(), /first-part/, 'one answer, the latest');
  assert.equal(
    await answer.getByTestId('worklist-partial').getByText(`${rest[1].id}: no f2`).count(),
    1,
    'the blank cell, still named after the campaign completed',
  );
  await inWindow(answer, 'the answer after the campaign completed');
  await page.screenshot({ path: `${ARTIFACTS}/worklist-answer-completed.png` });
  assert.deepEqual(await problems(page), []);

  // dismissed, it goes, and with it the worklist of the ended campaign
  await answer.getByRole('button', { name: "Dismiss the worklist's answer" }).click();
  await page.getByTestId('worklist').waitFor({ state: 'detached' });
  await context.close();
});
