import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { eventually, type TestKiln } from './support/service.js';

/** a built-in template (templates/water/desalination-membrane.yaml) */
const TEMPLATE = 'Desalination membrane, water permeance vs salt rejection';

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;

before(async () => {
  site = await startBrowserKiln();
  ({ kiln, browser } = site);
});

after(() => site?.stop());

const points = async (page: Page, testId: string) => Number(await page.getByTestId(testId).getAttribute('data-points'));

/** The MDL preview `testId` once it shows YAML (not the JSON it starts with), checked to wrap rather than scroll sideways. */
async function previewedMdl(page: Page, testId: string): Promise<any> {
  await page.waitForFunction((id) => !document.querySelector(`[data-testid="${id}"]`)?.textContent?.trimStart().startsWith('{'), testId);
  const preview = page.getByTestId(testId);
  const { scrollWidth, clientWidth } = await preview.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `the ${testId} preview wraps (${scrollWidth} > ${clientWidth})`);
  return parse(await preview.innerText());
}

test('sign in with a key, create a campaign from a template, start it, watch both plots gain points live, stop it, download CSV', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await page.goto(kiln.base);
  await page.getByLabel('API key or token').fill('svc_live_wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').innerText(), /malformed|mistyped|not known/);
  await page.getByLabel('API key or token').fill(kiln.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
  await page.getByText('No campaigns yet').waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/campaigns-empty.png` });

  const template = page.getByLabel('Template', { exact: true });
  await template.locator('option', { hasText: TEMPLATE }).waitFor({ state: 'attached' });
  await template.selectOption({ label: TEMPLATE });
  await page.getByLabel('Budget').fill('80');
  await page.getByLabel('Seed').fill('7');
  await page.getByText("Parameter bounds and the template's MDL").click();
  const templateMdl = await previewedMdl(page, 'template-mdl');
  const first = templateMdl.parameters.find((p: { bounds?: number[] }) => p.bounds);
  const narrowed = [first.bounds[0], first.bounds[0] + (first.bounds[1] - first.bounds[0]) / 2];
  await page.getByLabel(`${first.name} upper bound`).fill(String(narrowed[1]));
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.getByRole('button', { name: 'Start' }).waitFor();
  assert.equal(await page.getByTestId('status').innerText(), 'created');
  await page.getByTestId('plots-empty').getByText('start the campaign').waitFor();
  const id = new URL(page.url()).hash.split('/')[2];
  const stored = (await (await fetch(`${kiln.base}/v1/campaigns/${id}`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } })).json()).data;
  assert.equal(stored.budget, 80);
  assert.equal(stored.mdl.optimizer.seed, 7);
  assert.deepEqual(stored.mdl.parameters.find((p: { name: string }) => p.name === first.name).bounds, narrowed, 'the bound typed in the form');

  await page.getByRole('button', { name: 'Start' }).click();
  // read from the page as it updates over the WebSocket, without reloading
  const seen = new Set<string>();
  await eventually(
    async () => {
      const c = await points(page, 'convergence-plot');
      const p = await points(page, 'pareto-plot');
      seen.add(`${c}:${p}`);
      const growth = [...seen].map((s) => s.split(':').map(Number));
      const grew = growth.some(([c1, p1]) => growth.some(([c2, p2]) => c2 > c1 && c1 > 0 && p2 > p1));
      return grew ? true : undefined;
    },
    60_000,
    'both plots to gain points while the campaign runs',
  );
  await page.screenshot({ path: `${ARTIFACTS}/campaign-running.png` });

  const stop = page.getByRole('button', { name: 'Stop' });
  if (await stop.isVisible()) await stop.click();
  await eventually(
    async () => (['stopped', 'completed', 'converged'].includes(await page.getByTestId('status').innerText()) ? true : undefined),
    60_000,
    'the campaign to stop',
  );
  const uplotPoints = await page.locator('[data-testid="pareto-plot"] canvas').count();
  assert.ok(uplotPoints >= 1, 'the Pareto plot is drawn');
  await page.screenshot({ path: `${ARTIFACTS}/campaign-stopped.png` });

  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  const csv = readFileSync(await csvDownload.path(), 'utf8');
  assert.equal(csvDownload.suggestedFilename(), `${id}-results.csv`);
  assert.match(csv.split('\n')[0], /^id,iteration,is_pareto,/);
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download JSON' }).click()]);
  const json = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8'));
  assert.equal(json.data.evaluations.length, csv.trim().split('\n').length - 1, 'the JSON and the CSV hold the same evaluations');
  const [exportDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export' }).click()]);
  assert.equal(exportDownload.suggestedFilename(), `${id}-export.json`);
  const exportText = readFileSync(await exportDownload.path(), 'utf8');
  const exported = JSON.parse(exportText);
  assert.equal(exported.kiln_export_version, 1);
  const told = exported.evaluations.filter((e: { iteration: number; status: string }) => e.status !== 'pending' && e.iteration > 0).length;
  assert.equal(told, (await campaignNow(id)).evaluations_completed, 'the export holds every evaluation');

  await page.getByRole('link', { name: '← Campaigns' }).click();
  // the campaign page's tables stay until the list replaces them: wait for a row of the list
  await page.getByTestId('campaign-row').first().waitFor();
  assert.equal(await page.getByTestId('campaign-row').count(), 1);
  await page.getByLabel('Domain', { exact: true }).fill('battery');
  await page.getByLabel('Domain', { exact: true }).press('Enter');
  await page.getByText('No campaigns in battery.').waitFor();
  await page.getByLabel('Domain', { exact: true }).fill('water');
  await page.getByLabel('Domain', { exact: true }).press('Enter');
  await page.getByTestId('campaign-row').waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/campaigns.png` });
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await page.getByRole('button', { name: `Delete ${TEMPLATE}` }).click();
  assert.match(asked, /cannot be undone/);
  assert.equal(await page.getByTestId('campaign-row').count(), 1, 'dismissing the confirm keeps the campaign');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: `Delete ${TEMPLATE}` }).click();
  await page.getByText('No campaigns in water.').waitFor();
  assert.equal((await fetch(`${kiln.base}/v1/campaigns/${id}`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } })).status, 404, 'deleted');

  // the export brings the deleted campaign back: a bad document first shows its problems
  await page.getByText('Import a campaign from an export document').click();
  const badVersion = JSON.stringify({ ...exported, kiln_export_version: 9 });
  await page.getByLabel('Export document (JSON)').setInputFiles({ name: 'old.json', mimeType: 'application/json', buffer: Buffer.from(badVersion) });
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByTestId('import-errors').waitFor();
  assert.match(await page.getByTestId('import-errors').innerText(), /kiln_export_version: is 9; this Kiln .* reads version 1/);
  await page.getByLabel('Export document (JSON)').setInputFiles({ name: 'campaign.json', mimeType: 'application/json', buffer: Buffer.from(exportText) });
  await page.getByLabel('Name (optional').fill('Membrane, moved');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('heading', { name: 'Membrane, moved' }).waitFor();
  const moved = new URL(page.url()).hash.split('/')[2];
  assert.notEqual(moved, id);
  const back = await campaignNow(moved);
  assert.equal(back.evaluations_completed, told);
  assert.ok(['stopped', 'completed', 'converged'].includes(await page.getByTestId('status').innerText()));
  await page.screenshot({ path: `${ARTIFACTS}/campaign-imported.png` });

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key or token').waitFor();
  assert.deepEqual(failures, [], 'no script errors on the pages');
});

async function campaignNow(id: string) {
  return (await (await fetch(`${kiln.base}/v1/campaigns/${id}`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } })).json()).data;
}

test('settings: create a key and see its secret once, then only its prefix; revoke it; generate a token', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${kiln.base}/#/settings/api-keys`);
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByLabel('Name').fill('ci reader');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.getByTestId('secret').innerText();
  assert.match(secret, /^svc_live_[0-9A-Za-z]{30}$/);
  const res = await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${secret}` } });
  assert.equal(res.status, 200, 'the shown key works');
  await page.screenshot({ path: `${ARTIFACTS}/api-keys-secret.png` });
  await page.getByRole('button', { name: 'Done' }).click();
  const row = page.getByTestId('key-row').filter({ hasText: 'ci reader' });
  await row.waitFor();
  const text = await page.locator('main').innerText();
  assert.ok(!text.includes(secret), 'the secret is gone from the page');
  assert.ok(text.includes(secret.slice(0, 17)), 'its prefix is listed');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByText(/revoked/).waitFor();
  assert.equal((await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${secret}` } })).status, 401, 'revoked at once');

  await page.getByLabel('Name').fill('lab network only');
  await page.getByLabel(/Allowed IPs/).fill('10.1.2.3, 10.9.0.0/16');
  await page.getByRole('button', { name: 'Create key' }).click();
  const fenced = await page.getByTestId('secret').innerText();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByTestId('key-row').filter({ hasText: 'lab network only' }).getByText('10.1.2.3, 10.9.0.0/16').waitFor();
  const outside = await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${fenced}` } });
  assert.equal(outside.status, 403, 'loopback is not among its addresses');
  assert.equal(((await outside.json()) as { error: { code: string } }).error.code, 'IP_NOT_ALLOWED');

  await page.getByLabel('Valid for (days)').fill('7');
  await page.getByRole('button', { name: 'Generate new token' }).click();
  const token = await page.getByTestId('secret').innerText();
  assert.equal(token.split('.').length, 3);
  assert.equal((await fetch(`${kiln.base}/v1/campaigns`, { headers: { Authorization: `Bearer ${token}` } })).status, 200, 'the token works');
  await page.screenshot({ path: `${ARTIFACTS}/api-keys.png` });
  await context.close();
});

test('guests browse templates (filter, search, MDL) and look up materials without signing in', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(kiln.base);
  await page.getByRole('link', { name: 'browse templates' }).click();
  await page.getByRole('heading', { name: 'Templates' }).waitFor();
  await page.getByTestId('template').first().waitFor();
  const all = await page.getByTestId('template').count();
  assert.ok(all >= 8, `${all} templates`);
  await page.getByLabel('Domain').selectOption('battery');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="template"]').length < n, all);
  const battery = await page.getByTestId('template').allInnerTexts();
  assert.ok(battery.length >= 2 && battery.every((t) => t.includes('battery/')));
  // one template says retention (two are electrolytes)
  await page.getByLabel('Search').fill('retention');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="template"]').length === 1);
  await page.getByRole('button', { name: 'View MDL' }).click();
  const mdl = await previewedMdl(page, 'mdl');
  assert.equal(mdl.domain, 'battery');
  assert.ok(mdl.parameters.length > 0);
  const download = page.getByRole('button', { name: 'Download material.yaml' });
  assert.ok(await download.isDisabled(), 'a guest is offered no download that would fail');
  assert.match(await download.evaluate((b) => document.getElementById(b.getAttribute('aria-describedby')!)!.textContent), /Sign in to download/);
  await page.screenshot({ path: `${ARTIFACTS}/templates.png` });

  await page.getByRole('link', { name: 'Materials' }).click();
  await page.getByLabel('Formula').fill('LiFeP(O4');
  await page.getByRole('button', { name: 'Look up' }).click();
  assert.match(await page.getByRole('alert').innerText(), /position/);
  await page.getByLabel('Formula').fill('LiFePO4');
  await page.getByRole('button', { name: 'Look up' }).click();
  assert.equal(await page.getByTestId('molar-mass').first().innerText(), '157.755');
  await page.screenshot({ path: `${ARTIFACTS}/materials.png` });
  await context.close();
});

test('datasets: upload with a validation report, see the preview, refuse a file that misses a column', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${kiln.base}/#/datasets`);
  await page.getByText('No datasets yet.').waitFor();
  const mdl = JSON.stringify({
    parameters: [
      { name: 'x1', type: 'continuous', bounds: [0, 1] },
      { name: 'x2', type: 'continuous', bounds: [0, 1] },
    ],
    objectives: [
      { name: 'f1', direction: 'minimize' },
      { name: 'f2', direction: 'minimize' },
    ],
    optimizer: { method: 'cma-es', budget: 10 },
  });
  const rows = ['x1,x2,f1,f2', ...Array.from({ length: 14 }, (_, i) => `${(i / 14).toFixed(3)},0.5,${i},${14 - i}`), '1.5,0.5,1,1', '0.2,0.2,,3'];
  await page.getByLabel('File (CSV, JSON or Parquet)').setInputFiles({ name: 'runs.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
  await page.getByLabel('Name', { exact: true }).fill('past runs');
  await page.getByLabel('Check against an MDL (optional, YAML or JSON)').fill(mdl);
  await page.getByRole('button', { name: 'Upload' }).click();
  const dataset = page.getByTestId('dataset');
  await dataset.waitFor();
  assert.match(await dataset.innerText(), /16 rows/);
  assert.equal(await page.getByTestId('preview').locator('tbody tr').count(), 10);
  assert.match(await dataset.innerText(), /row 15, x1: is outside the bounds \[0, 1\]/);
  assert.match(await dataset.innerText(), /row 16.*no value for f1/s);
  await page.screenshot({ path: `${ARTIFACTS}/datasets.png` });

  await page.getByLabel('File (CSV, JSON or Parquet)').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('x1,f1,f2\n0.1,1,2\n') });
  await page.getByLabel('Check against an MDL (optional, YAML or JSON)').fill(mdl);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.locator('main').innerText(), /column "x2" of the MDL is missing/);

  await dataset.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('No datasets yet.').waitFor();
  await context.close();
});

test("a campaign's evaluations table sorts and marks the Pareto rows; the job page follows the log live and filters by level", async () => {
  const h = { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': 'application/json' };
  const created = await (
    await fetch(`${kiln.base}/v1/campaigns`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ template_id: 'water/desalination-membrane', name: 'logged', overrides: { optimizer: { budget: 40 } } }),
    })
  ).json();
  const id = created.data.id;
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByRole('link', { name: 'Job and log' }).click();
  const log = page.getByTestId('log');
  // entries arrive over the WebSocket while the job runs
  await log.getByText(/Iteration 2 /).waitFor({ timeout: 60_000 });
  await page
    .getByTestId('job-status')
    .getByText(/completed|cancelled|failed/)
    .waitFor({ timeout: 60_000 });
  await log.getByText(/Completed|Converged/).waitFor();
  const infoCount = await log.locator('li').count();
  await page.getByLabel('Level').selectOption('debug');
  assert.ok((await log.locator('li').count()) > infoCount, 'debug entries appear when asked for');
  await page.getByLabel('Level').selectOption('error');
  assert.equal(await log.locator('li').count(), 0);
  await page.screenshot({ path: `${ARTIFACTS}/job.png` });

  await page.getByRole('link', { name: '← Campaign' }).click();
  const table = page.getByTestId('evaluations');
  await table.waitFor();
  const results = await (await fetch(`${kiln.base}/v1/campaigns/${id}/results`, { headers: h })).json();
  assert.equal(await table.locator('tbody tr').count(), results.data.evaluations.length);
  assert.ok((await table.locator('tr.pareto').count()) >= 1);
  const objective = (await table.locator('thead th').last().innerText()).trim();
  await table.getByRole('button', { name: objective }).click();
  const firstValues = await table.locator('tbody tr td:last-child').allInnerTexts();
  const numbers = firstValues.map(Number);
  assert.deepEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
    'sorted ascending by the clicked objective',
  );
  await table.getByRole('button', { name: objective }).click();
  const descending = (await table.locator('tbody tr td:last-child').allInnerTexts()).map(Number);
  assert.deepEqual(
    descending,
    [...numbers].sort((a, b) => b - a),
  );
  await page.screenshot({ path: `${ARTIFACTS}/campaign-evaluations.png`, fullPage: true });
  await context.close();
});

test('a campaign from pasted YAML: validation errors shown at their paths, then created; the list filters by status', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByText('New campaign from an MDL document').click();
  const yaml = (budget: number, low: number) =>
    [
      'name: Pasted ZDT1',
      'domain: benchmark',
      'parameters:',
      `  - { name: x1, type: continuous, bounds: [${low}, 0] }`,
      '  - { name: x2, type: continuous, bounds: [0, 1] }',
      'objectives:',
      '  - { name: f1, direction: minimize }',
      '  - { name: f2, direction: minimize }',
      `optimizer: { method: cma-es, budget: ${budget}, seed: 1 }`,
      'evaluator: { type: builtin, name: zdt1 }',
    ].join('\n');
  await page.getByLabel('Paste YAML or JSON').fill(yaml(-5, 1));
  await page.getByRole('button', { name: 'Create from MDL' }).click();
  const errors = page.getByTestId('mdl-errors');
  await errors.waitFor();
  const text = await errors.innerText();
  assert.match(text, /^parameters\[0\]\.bounds: lower bound 1 must be below upper bound 0/m);
  assert.match(text, /^optimizer\.budget: /m);
  assert.doesNotMatch(text, /mdl_file/, 'paths are in the pasted document, not the request');
  const alert = await page.getByRole('alert').innerText();
  assert.equal(alert, 'The campaign was not created: 2 problems to fix, listed below.');
  await page.screenshot({ path: `${ARTIFACTS}/mdl-errors.png` });
  await page
    .getByLabel('Paste YAML or JSON')
    .fill(yaml(10, -1).replace('[-1, 0]', '[0, 1]').replace('Pasted ZDT1', 'Tight ZDT1') + '\nconstraints: [{expression: x1 + x2 <= 0.1}]');
  await page.getByRole('button', { name: 'Create from MDL' }).click();
  const warnings = page.getByTestId('preflight-warnings');
  await warnings.waitFor();
  assert.match(await warnings.innerText(), /^line 11: constraints: only about 0\.\d+ % of the parameter box meets the constraints/);
  await page.screenshot({ path: `${ARTIFACTS}/mdl-warnings.png` });
  await page.getByRole('link', { name: 'Open the campaign' }).click();
  await page.getByRole('heading', { name: 'Tight ZDT1' }).waitFor();
  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByText('New campaign from an MDL document').click();
  await page.getByLabel('Paste YAML or JSON').fill(yaml(10, -1).replace('[-1, 0]', '[0, 1]'));
  await page.getByRole('button', { name: 'Create from MDL' }).click();
  await page.getByRole('heading', { name: 'Pasted ZDT1' }).waitFor();
  assert.equal(await page.getByTestId('status').innerText(), 'created');

  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByRole('link', { name: 'Pasted ZDT1' }).waitFor();
  await page.getByLabel('Status').selectOption('failed');
  await page.getByText('No failed campaigns.').waitFor();
  await page.getByLabel('Status').selectOption('created');
  await page.getByRole('link', { name: 'Pasted ZDT1' }).waitFor();
  await context.close();
});

test('three objectives: the Pareto plot becomes a matrix of every pair of objectives', async () => {
  const h = { Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': 'application/json' };
  const created = await (
    await fetch(`${kiln.base}/v1/campaigns`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ template_id: 'battery/cathode-composition', name: 'three objectives', overrides: { optimizer: { budget: 16 } } }),
    })
  ).json();
  const id = created.data.id;
  await fetch(`${kiln.base}/v1/campaigns/${id}/start`, { method: 'POST', headers: h });
  await eventually(
    async () => ((await (await fetch(`${kiln.base}/v1/campaigns/${id}`, { headers: h })).json()).data.status !== 'running' ? true : undefined),
    90_000,
    'the campaign to finish',
  );
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const matrix = page.getByTestId('pareto-matrix');
  await matrix.waitFor();
  assert.equal(await matrix.getAttribute('data-pairs'), '3');
  assert.equal(await matrix.locator('canvas').count(), 3);
  const labels = await matrix.locator('[role="img"]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label')));
  assert.deepEqual(
    labels.map((l) => l!.split(':')[0]),
    ['cycle_life against specific_energy', 'material_cost against specific_energy', 'material_cost against cycle_life'],
  );
  await page.screenshot({ path: `${ARTIFACTS}/pareto-matrix.png`, fullPage: true });
  await context.close();
});
