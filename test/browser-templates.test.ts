import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { parse } from 'yaml';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import type { TestKiln } from './support/service.js';

/** a built-in template (templates/water/desalination-membrane.yaml) */
const BUILTIN = 'Desalination membrane, water permeance vs salt rejection';

const mdl = (bounds: string) => `domain: water
description: brine concentrator by membrane distillation
parameters:
  - { name: feed_temperature, type: continuous, bounds: ${bounds}, unit: K }
  - { name: salinity, type: continuous, bounds: [0.5, 4], unit: wt% }
objectives:
  - { name: recovery, direction: maximize, unit: '%' }
  - { name: specific_energy, direction: minimize, unit: kWh/m3 }
optimizer:
  budget: 24
  seed: 3
`;
const REVERSED = mdl('[1, 0]');
const FIXED = mdl('[280, 340]');
const BROKEN = 'domain: water\nparameters:\n  - { name: x, type: continuous, bounds: [0, 1]\nobjectives: []\n';

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;

before(async () => {
  site = await startBrowserKiln();
  ({ kiln, browser } = site);
});

after(() => site?.stop());

/** Every value of `expected` is in `actual` at the same place; the server may add defaults around them. */
function assertContains(actual: unknown, expected: unknown, at = 'mdl'): void {
  if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${at} is an object or array`);
    if (Array.isArray(expected)) assert.equal((actual as unknown[]).length, expected.length, `${at} has ${expected.length} items`);
    for (const [key, value] of Object.entries(expected)) assertContains((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
  } else {
    assert.deepEqual(actual, expected, at);
  }
}

test('signed in: an MDL error is shown at its path, a team template is created from a file, listed with its badge, stored as entered, then deleted', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  const scripts: string[] = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.url());
  });
  await page.goto(`${kiln.base}/#/templates`);
  await page.getByTestId('template').filter({ hasText: BUILTIN }).waitFor();
  const builtinCard = page.getByTestId('template').filter({ hasText: BUILTIN });
  assert.equal(await builtinCard.getByRole('button', { name: 'Delete' }).count(), 0, 'a built-in has no Delete');
  assert.equal(await builtinCard.getByTestId('visibility').count(), 0, 'a built-in has no visibility badge');
  const scriptsAtLoad = scripts.length;

  await page.getByText('New template', { exact: true }).click();
  await page.getByLabel('Name', { exact: true }).fill('Brine concentrator');
  await page.getByLabel('Description').fill('Membrane distillation of RO brine');
  await page.getByLabel('Tags (comma-separated)').fill('brine, distillation');
  await page.getByLabel('Visibility').selectOption('team');
  assert.match(await page.locator('main').innerText(), /only you/, 'private is explained');
  assert.match(await page.locator('main').innerText(), /everyone in your organization/, 'team is explained');

  const mdlBox = page.getByLabel('MDL (YAML or JSON)');
  await mdlBox.fill(BROKEN);
  await page.getByRole('button', { name: 'Create template' }).click();
  const alert = page.getByRole('alert').first();
  await alert.waitFor();
  assert.match(await alert.innerText(), /YAML syntax error at line \d+, column \d+/);
  assert.ok(scripts.length > scriptsAtLoad, `the YAML parser is its own chunk, fetched on first use (${scripts.slice(scriptsAtLoad).join(', ')})`);

  await mdlBox.fill(REVERSED);
  await page.getByRole('button', { name: 'Create template' }).click();
  const errors = page.getByTestId('template-errors');
  await errors.waitFor();
  assert.match(await page.getByRole('alert').first().innerText(), /The template was not created: (one problem|\d+ problems) to fix/);
  assert.doesNotMatch(await page.getByRole('alert').first().innerText(), /details\.errors/, 'no API wording');
  const listed = await errors.locator('li').allInnerTexts();
  assert.ok(
    listed.some((e) => /^parameters\[0\]\.bounds: .*lower bound 1 must be below upper bound 0/.test(e)),
    `the bounds error at its place in the document, without the request's mdl. prefix: ${listed.join(' | ')}`,
  );

  await page
    .getByLabel('or load it from a file (.yaml, .yml, .json)')
    .setInputFiles({ name: 'brine.yaml', mimeType: 'application/yaml', buffer: Buffer.from(FIXED) });
  await page.waitForFunction((text) => (document.getElementById('template-mdl') as HTMLTextAreaElement).value === text, FIXED);
  await page.getByRole('button', { name: 'Create template' }).click();

  const card = page.getByTestId('template').filter({ hasText: 'water/brine-concentrator' });
  await card.waitFor();
  assert.equal(await card.getByTestId('visibility').innerText(), 'team');
  assert.equal(await errors.count(), 0, 'the errors are gone');
  assert.equal(await mdlBox.inputValue(), '', 'the form is reset');
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), '');
  assert.equal(await page.getByLabel('Visibility').inputValue(), 'private');

  const res = await fetch(`${kiln.base}/v1/templates/${encodeURIComponent('water/brine-concentrator')}`, {
    headers: { Authorization: `Bearer ${kiln.adminKey}` },
  });
  assert.equal(res.status, 200);
  const stored = (await res.json()).data;
  assert.equal(stored.visibility, 'team');
  assert.equal(stored.builtin, false);
  assert.equal(stored.name, 'Brine concentrator');
  assert.equal(stored.description, 'Membrane distillation of RO brine');
  assert.deepEqual(stored.tags, ['brine', 'distillation']);
  assertContains(stored.mdl, { ...parse(FIXED), tags: ['brine', 'distillation'] });
  await page.screenshot({ path: `${ARTIFACTS}/templates-custom.png`, fullPage: true });

  await card.getByRole('button', { name: 'Delete' }).click();
  await card.waitFor({ state: 'detached' });
  assert.equal(dialogs.length, 1, 'one confirm before deleting');
  assert.match(dialogs[0], /water\/brine-concentrator/);
  const gone = await fetch(`${kiln.base}/v1/templates/${stored.id}`, { headers: { Authorization: `Bearer ${kiln.adminKey}` } });
  assert.equal(gone.status, 404, 'deleted on the server too');
  assert.equal(await builtinCard.count(), 1, 'the built-ins stay listed');
  assert.deepEqual(failures, [], 'no script errors on the page');
  await context.close();
});

test('a guest browses templates but sees no create form and no Delete', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/templates`);
  await page.getByTestId('template').filter({ hasText: BUILTIN }).waitFor();
  assert.ok((await page.getByTestId('template').count()) > 1, 'the built-ins are listed');
  assert.equal(await page.getByText('New template', { exact: true }).count(), 0);
  assert.equal(await page.getByLabel('MDL (YAML or JSON)').count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Create template' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Delete' }).count(), 0);
  await context.close();
});
