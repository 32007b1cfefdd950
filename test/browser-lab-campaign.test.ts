import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { hoverUntilRead, problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/**
 * A campaign whose results people enter, made in the dashboard alone at 1280×800: from the empty
 * form (the YAML as typed, the API's problem at its field, fixed, created, started), and from the
 * built-in lab template; then that campaign's page as a lab sees it with results in: the worklist
 * and the next candidates' columns in the window, the outcome constraint named as its quantity and
 * limit, the recipe in the Pareto plot's read-out.
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

const TEMPLATE = 'Electrolyte screening in the lab, conductivity vs stability vs cost, viscosity at most 10 mPa·s';

async function labPage(): Promise<{ page: Page; failures: string[]; close: () => Promise<void> }> {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  return { page, failures, close: () => context.close() };
}

/** The YAML beside the form once it shows `line` (it is written a moment after each keystroke), as a document. */
const yamlOf = async (page: Page, line: string) => {
  await page.waitForFunction((text) => document.querySelector('[data-testid="lab-campaign-yaml"]')?.textContent?.includes(text), line);
  return parse(await page.getByTestId('lab-campaign-yaml').innerText()) as Record<string, unknown>;
};

/** The keyboard adds a row: Enter on the section's button, and the new row's first field has the focus. */
async function addRow(page: Page, button: string, first: string): Promise<void> {
  await page.getByRole('button', { name: button, exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => document.activeElement?.id === id, first);
}

test('a people-entered campaign from the empty form in the browser alone: the YAML as typed, a bad bound at its field, fixed, created, started', async () => {
  const { page, failures, close } = await labPage();
  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByRole('link', { name: 'New campaign with results you enter' }).click();
  await page.getByRole('heading', { name: 'New campaign with results you enter' }).waitFor();
  assert.equal(new URL(page.url()).hash, '#/campaigns/new');
  assert.deepEqual(await problems(page), [], 'the empty form: every field labelled, nothing wider than the window, readable contrast');
  await page.screenshot({ path: `${ARTIFACTS}/lab-form-1-empty.png` });

  await page.getByLabel('Name', { exact: true }).fill('Electrolyte screen');
  await page.getByLabel('Domain').fill('battery');
  await page.getByLabel('name of parameter 1').fill('salt_concentration');
  // the bounds the wrong way round
  await page.getByLabel('lower bound of parameter 1').fill('2');
  await page.getByLabel('upper bound of parameter 1').fill('0.5');
  await page.getByLabel('step of parameter 1').fill('0.05');
  await page.getByLabel('unit of parameter 1').fill('mol/L');
  await addRow(page, 'Add a parameter', 'parameters[1].name');
  await page.keyboard.type('ec_fraction');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.type('0.1');
  await page.keyboard.press('Tab');
  await page.keyboard.type('0.5');
  await page.getByLabel('unit of parameter 2').fill('vol fraction');
  await addRow(page, 'Add a parameter', 'parameters[2].name');
  await page.keyboard.type('co_solvent');
  await page.getByLabel('type of parameter 3').selectOption('categorical');
  await page.getByLabel('choices, comma-separated of parameter 3').fill('EMC, DMC, DEC');
  await page.getByLabel('name of objective 1').fill('conductivity');
  await page.getByLabel('unit of objective 1').fill('mS/cm');
  await page.getByLabel('reference of objective 1').fill('5');
  await addRow(page, 'Add an objective', 'objectives[1].name');
  await page.keyboard.type('cost');
  await page.getByLabel('direction of objective 2').selectOption('minimize');
  await page.getByLabel('unit of objective 2').fill('USD/kg');
  await page.getByLabel('reference of objective 2').fill('30');
  // a row added by mistake goes again by keyboard, and the focus returns to its section's add button
  await addRow(page, 'Add an objective', 'objectives[2].name');
  await page.getByRole('button', { name: 'Remove objective 3', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'add-objectives');
  assert.equal(await page.locator('[data-testid="objective-rows"] tbody tr[data-row]').count(), 2);
  await addRow(page, 'Add an outcome', 'outcomes[0].name');
  await page.keyboard.type('viscosity');
  await page.getByLabel('unit of outcome 1').fill('mPa·s');
  await addRow(page, 'Add an outcome constraint', 'outcome_constraints[0].expression');
  await page.keyboard.type('viscosity <= 10');
  await page.getByLabel('Budget (experiments)').fill('24');
  await page.getByLabel('Batch size').fill('4');

  // the YAML shows the document as typed, before anything is sent
  const expected = {
    name: 'Electrolyte screen',
    domain: 'battery',
    parameters: [
      { name: 'salt_concentration', type: 'continuous', bounds: [2, 0.5], step: 0.05, unit: 'mol/L' },
      { name: 'ec_fraction', type: 'continuous', bounds: [0.1, 0.5], unit: 'vol fraction' },
      { name: 'co_solvent', type: 'categorical', values: ['EMC', 'DMC', 'DEC'] },
    ],
    objectives: [
      { name: 'conductivity', direction: 'maximize', unit: 'mS/cm', reference: 5 },
      { name: 'cost', direction: 'minimize', unit: 'USD/kg', reference: 30 },
    ],
    outcomes: [{ name: 'viscosity', unit: 'mPa·s' }],
    outcome_constraints: [{ expression: 'viscosity <= 10' }],
    optimizer: { budget: 24, batch_size: 4 },
    evaluator: { type: 'external' },
  };
  assert.deepEqual(await yamlOf(page, 'batch_size: 4'), expected);
  assert.match(await page.getByTestId('lab-campaign-yaml').innerText(), /bounds: \[2, 0\.5\]/, 'short lists on one line, as the templates write them');

  // the API refuses the bounds: its message at the bounds of the first parameter, which takes the focus
  await page.getByRole('button', { name: 'Create campaign' }).click();
  const problem = page.locator('[data-testid="field-problem"][data-path="parameters[0].bounds"]');
  await problem.waitFor();
  assert.equal(await problem.innerText(), 'Bounds: lower bound 2 must be below upper bound 0.5');
  assert.match(await page.getByTestId('lab-campaign-refusal').innerText(), /^The campaign was not created: one problem to fix, shown at its field\.$/);
  const lower = page.getByLabel('lower bound of parameter 1');
  for (const bound of [lower, page.getByLabel('upper bound of parameter 1')]) {
    assert.equal(await bound.getAttribute('aria-invalid'), 'true');
    assert.equal(await bound.getAttribute('aria-describedby'), await problem.getAttribute('id'), 'the field is described by its problem');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'lower bound of parameter 1');
  const [row, said] = [(await page.locator('[data-testid="parameter-rows"] tr[data-row="0"]').boundingBox())!, (await problem.boundingBox())!];
  assert.ok(said.y >= row.y + row.height - 1 && said.y - (row.y + row.height) < 24, `the problem right under its row (${JSON.stringify({ row, said })})`);
  assert.equal(await page.getByLabel('name of parameter 2').getAttribute('aria-invalid'), null, 'other fields are not marked');
  assert.equal(new URL(page.url()).hash, '#/campaigns/new', 'nothing was created');
  assert.deepEqual(await problems(page), [], 'the refused form');
  await page.screenshot({ path: `${ARTIFACTS}/lab-form-2-refused.png` });

  await lower.fill('0.5');
  await page.getByLabel('upper bound of parameter 1').fill('2');
  assert.deepEqual(((await yamlOf(page, 'bounds: [0.5, 2]')).parameters as { bounds?: number[] }[])[0].bounds, [0.5, 2], 'the YAML follows the fix');
  await page.screenshot({ path: `${ARTIFACTS}/lab-form-3-fixed.png`, fullPage: true });
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.waitForURL(/#\/campaigns\/camp_\w+$/);
  await page.getByRole('heading', { name: 'Electrolyte screen' }).waitFor();
  const id = new URL(page.url()).hash.split('/')[2];
  const stored = await call('GET', `/v1/campaigns/${id}`);
  assert.equal(stored.status, 'created');
  assert.deepEqual(
    stored.mdl.parameters.map((p: { name: string; bounds?: number[]; step?: number; unit?: string; values?: string[] }) => [
      p.name,
      p.bounds,
      p.step,
      p.unit,
      p.values,
    ]),
    [
      ['salt_concentration', [0.5, 2], 0.05, 'mol/L', undefined],
      ['ec_fraction', [0.1, 0.5], undefined, 'vol fraction', undefined],
      ['co_solvent', undefined, undefined, undefined, ['EMC', 'DMC', 'DEC']],
    ],
  );
  assert.deepEqual(stored.mdl.objectives, expected.objectives);
  assert.deepEqual(stored.mdl.outcomes, expected.outcomes);
  assert.deepEqual(
    stored.mdl.outcome_constraints.map((c: { expression: string }) => c.expression),
    ['viscosity <= 10'],
  );
  assert.equal(stored.mdl.optimizer.budget, 24);
  assert.equal(stored.mdl.optimizer.batch_size, 4);
  assert.equal(stored.mdl.evaluator.type, 'external');

  // before the start the model report says it has not started; once it runs, no longer
  const message = page.getByTestId('model-message');
  await message.getByText('The campaign has not started').waitFor();
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByTestId('status').getByText('running').waitFor();
  await message.getByText(/^No model report yet/).waitFor({ timeout: 10_000 });
  await page.getByText('Measure these 8 candidates (iteration 1, the initial design)').waitFor({ timeout: 30_000 });
  assert.deepEqual(await page.getByTestId('worklist-table').locator('thead th').allInnerTexts(), [
    'id',
    'salt_concentration (mol/L)',
    'ec_fraction (vol fraction)',
    'co_solvent',
    'conductivity (mS/cm)',
    'cost (USD/kg)',
    'viscosity (mPa·s)',
    'status',
    'reason',
  ]);
  assert.doesNotMatch(await page.locator('main').innerText(), /has not started/);
  await page.screenshot({ path: `${ARTIFACTS}/lab-form-4-created.png` });
  assert.deepEqual(failures, []);
  await close();
});

/** The lab's measurements for the electrolyte template: a made-up closed form, only to fill results in. */
function measure(p: Record<string, number | string>) {
  const [salt, ec, fec, vc] = [p.salt_concentration, p.ec_fraction, p.fec_wt, p.vc_wt].map(Number);
  return {
    objectives: {
      conductivity: 11 - 6 * (salt - 1.1) ** 2 - 4 * (ec - 0.3) ** 2 - 0.1 * (fec + vc),
      oxidation_limit: 4.3 + 0.15 * salt + 0.02 * fec,
      cost: 12 + 6 * salt + 0.8 * (fec + vc) + (p.co_solvent === 'DEC' ? 2 : 0),
    },
    outcomes: { viscosity: 2 + 4 * salt * salt + 6 * ec },
  };
}

let templateCampaign = '';

test('the form filled from the built-in lab template holds all of it, and creates the campaign as the template has it', async () => {
  const { page, failures, close } = await labPage();
  await page.goto(`${kiln.base}/#/templates`);
  const card = page.getByTestId('template').filter({ hasText: TEMPLATE });
  await card.getByRole('link', { name: 'Fill the form for results you enter' }).click();
  await page.getByRole('status').getByText(`Filled in from the template “${TEMPLATE}”`).waitFor();
  assert.equal(await page.locator('[data-testid="parameter-rows"] tbody tr[data-row]').count(), 5);
  const template = (await call('GET', `/v1/templates/${encodeURIComponent('battery/electrolyte-lab-screening')}`)).mdl;
  assert.deepEqual(
    await yamlOf(page, 'name: vc_wt'),
    { ...template, description: template.description.trim() },
    'every member of the template, those without a field too',
  );
  await page.getByLabel('Name', { exact: true }).fill('Lab screen');
  await page.getByRole('button', { name: 'Create campaign' }).click();
  await page.waitForURL(/#\/campaigns\/camp_\w+$/);
  templateCampaign = new URL(page.url()).hash.split('/')[2];
  const stored = await call('GET', `/v1/campaigns/${templateCampaign}`);
  assert.equal(stored.name, 'Lab screen');
  assert.deepEqual(stored.mdl.parameters, template.parameters);
  assert.deepEqual(stored.mdl.outcome_constraints, template.outcome_constraints);
  assert.deepEqual(failures, []);
  await close();
});

test("the lab template's campaign with results in, at 1280 px: the worklist's status and the next candidates' expected improvement in the window, viscosity ≤ 10 mPa·s named so, the recipe on hover", async () => {
  assert.ok(templateCampaign, 'the campaign of the test before');
  const id = templateCampaign;
  await call('POST', `/v1/campaigns/${id}/start`);
  const design = await eventually(
    async () => {
      const pending = (await call('GET', `/v1/campaigns/${id}/candidates`)) as { id: string; parameters: Record<string, number | string> }[];
      return pending.length === 12 ? pending : undefined;
    },
    60_000,
    'the initial design',
  );
  await call('POST', `/v1/campaigns/${id}/evaluations`, { evaluations: design.map((c) => ({ id: c.id, ...measure(c.parameters) })) });
  await eventually(
    async () => {
      const model = await call('GET', `/v1/campaigns/${id}/model`);
      return model.next.length === 4 ? model : undefined;
    },
    120_000,
    'the model report of the next batch',
  );

  const { page, failures, close } = await labPage();
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByText('Measure these 4 candidates (iteration 2)').waitFor({ timeout: 30_000 });
  const inWindow = async (what: string, box: { x: number; width: number } | null) =>
    assert.ok(box && box.x >= 0 && box.x + box.width <= 1280, `${what} at ${box?.x}–${box && box.x + box.width} in a 1280 px window`);
  const worklist = page.getByTestId('worklist-table');
  for (const row of await worklist.locator('tbody tr').all()) {
    await inWindow('a status', await row.getByRole('combobox').boundingBox());
    await inWindow('a reason', await row.getByLabel(/^reason for/).boundingBox());
  }
  await page.screenshot({ path: `${ARTIFACTS}/lab-template-1-worklist.png` });

  const next = page.getByTestId('next-candidates');
  await next.waitFor();
  const headings = next.locator('thead th');
  assert.deepEqual((await headings.allInnerTexts()).slice(0, 6), [
    'candidate',
    'P(feasible)',
    'expected improvement',
    'conductivity (mS/cm)',
    'oxidation_limit (V vs Li/Li+)',
    'cost (USD/kg)',
  ]);
  await next.scrollIntoViewIfNeeded();
  await inWindow('P(feasible)', await headings.nth(1).boundingBox());
  await inWindow('expected improvement', await headings.nth(2).boundingBox());
  await page.screenshot({ path: `${ARTIFACTS}/lab-template-2-next.png` });

  // the outcome constraint's model check: the quantity and its limit, in the quantity's values, the limit drawn
  const check = page.getByTestId('model-check').last();
  assert.match(await check.locator('figcaption').innerText(), /^viscosity ≤ 10 mPa·s: R²/);
  assert.equal(await check.locator('svg').getAttribute('aria-label'), 'Predicted against measured viscosity (mPa·s)');
  assert.equal(await check.locator('g.limit line').count(), 2, 'the limit on both axes');
  assert.match(await page.getByTestId('model-check-legend').innerText(), /dashed orange: an outcome constraint's limit/);
  assert.doesNotMatch(await page.locator('main').innerText(), /slack/);
  await check.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${ARTIFACTS}/lab-template-3-viscosity-check.png` });

  // a point of the Pareto plot says how to make it
  await page.getByTestId('pareto-plot').scrollIntoViewIfNeeded();
  const read = await hoverUntilRead(
    page,
    'pareto-plot',
    /· recipe: salt_concentration \d\.\d\d mol\/L, ec_fraction \d\.\d\d vol fraction, co_solvent (EMC|DMC|DEC), fec_wt \d+\.\d wt%, vc_wt \d\.\d wt%$/,
  );
  assert.match(read, /^iteration \d+ · eval_\w+ · (Pareto front|dominated|infeasible) · conductivity [\d.]+ mS\/cm · oxidation_limit/);
  await page.screenshot({ path: `${ARTIFACTS}/lab-template-4-pareto-recipe.png` });
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.deepEqual(await problems(page), [], 'the campaign page');
  assert.deepEqual(failures, []);
  await close();
});

test('a batch of one reads "Measure this candidate"', async () => {
  const { id } = await call('POST', '/v1/campaigns', {
    name: 'one at a time',
    domain: 'battery',
    mdl: {
      parameters: [{ name: 'salt', type: 'continuous', bounds: [0.5, 2], unit: 'mol/L' }],
      objectives: [
        { name: 'conductivity', direction: 'maximize', unit: 'mS/cm' },
        { name: 'cost', direction: 'minimize', unit: 'USD/kg' },
      ],
      optimizer: { budget: 4, batch_size: 1, initial_samples: 1 },
    },
  });
  await call('POST', `/v1/campaigns/${id}/start`);
  const { page, failures, close } = await labPage();
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByText('Measure this candidate (iteration 1, the initial design)').waitFor({ timeout: 30_000 });
  assert.doesNotMatch(await page.getByTestId('worklist').innerText(), /these 1 candidates/);
  assert.deepEqual(failures, []);
  await close();
});
