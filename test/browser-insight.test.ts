import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { zdt1, zdt1Mdl } from './support/campaign-fixtures.js';
import { hoverUntilRead, problems } from './support/page-checks.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

/**
 * Plots people can read: units on the axes, a read-out instead of uPlot's legend, plots side by
 * side across a laptop's window, one way of writing numbers, infeasible and failed evaluations
 * counted, a table whose every column can be reached, jobs named by their campaigns.
 */

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;
let call: ReturnType<typeof dataClient>;
let labId: string;
let labJobId: string;
let idleId: string;

const VIEWPORTS = [
  [1280, 800],
  [1440, 900],
] as const;

type Candidate = { id: string; parameters: { x1: number; x2: number; x3: number } };

/** The lab: three objectives with units, purity as an outcome constraint, and the first candidate of every batch lost. */
async function answer(id: string): Promise<number> {
  const batch = (await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[];
  if (batch.length === 0) return 0;
  await call('POST', `/v1/campaigns/${id}/evaluations`, {
    evaluations: batch.map(({ id: candidate, parameters: { x1, x2, x3 } }, k) =>
      k === 0
        ? { id: candidate, error: 'the membrane tore in the cell' }
        : {
            id: candidate,
            objectives: { flux: 40 * (1 - x1) + x3, salt_rejection: 90 + 9 * x1 - 5 * x3, cost: 3000 + 2000 * x2 + 500 * x3 },
            outcomes: { purity: 100 - 20 * x2 },
          },
    ),
  });
  return batch.length;
}

before(async () => {
  site = await startBrowserKiln();
  ({ kiln, browser } = site);
  call = dataClient(kiln.base, kiln.adminKey);
  idleId = (await call('POST', '/v1/campaigns', { name: 'never started', domain: 'benchmark', mdl: zdt1Mdl() })).id;
  labId = (
    await call('POST', '/v1/campaigns', {
      name: 'membrane lab',
      domain: 'water',
      mdl: {
        parameters: [
          { name: 'x1', type: 'continuous', bounds: [0, 1], unit: 'wt%' },
          { name: 'x2', type: 'continuous', bounds: [0, 1], unit: 'mm' },
          { name: 'x3', type: 'continuous', bounds: [0, 1] },
        ],
        objectives: [
          { name: 'flux', direction: 'maximize', unit: 'L/m²h' },
          { name: 'salt_rejection', direction: 'maximize', unit: '%' },
          { name: 'cost', direction: 'minimize', unit: 'USD/m²' },
        ],
        outcomes: [{ name: 'purity', unit: '%' }],
        outcome_constraints: [{ expression: 'purity >= 90' }],
        optimizer: { method: 'random', budget: 30, batch_size: 10, initial_samples: 10, seed: 5 },
      },
    })
  ).id;
  labJobId = (await call('POST', `/v1/campaigns/${labId}/start`)).job.id;
  await eventually(
    async () => {
      if ((await call('GET', `/v1/campaigns/${labId}`)).status !== 'running') return true;
      await answer(labId);
      return undefined;
    },
    120_000,
    'the lab campaign to finish',
  );
});

after(() => site?.stop());

interface Drawn {
  text: string;
  x: number;
  y: number;
  rotated: boolean;
  align: string;
  baseline: string;
  width: number;
  plot: string | undefined;
}

/** Records what is written on every canvas: uPlot draws axis names and ticks as canvas text. */
async function recordCanvasText(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const drawn: unknown[] = [];
    (window as unknown as { drawn: unknown[] }).drawn = drawn;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with .call(this), its own receiver
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
      const m = this.getTransform();
      drawn.push({
        text: String(text),
        x: (m.a * x + m.c * y + m.e) / devicePixelRatio,
        y: (m.b * x + m.d * y + m.f) / devicePixelRatio,
        rotated: Math.abs(m.b) > 1e-6,
        align: this.textAlign,
        baseline: this.textBaseline,
        width: this.measureText(String(text)).width / devicePixelRatio,
        plot: this.canvas.closest<HTMLElement>('[data-testid]')?.dataset.testid,
      });
      return fillText.call(this, text, x, y, maxWidth);
    };
  });
}

const drawn = (page: Page) => page.evaluate(() => (window as unknown as { drawn: Drawn[] }).drawn.splice(0));

for (const [width, height] of VIEWPORTS) {
  test(`a 3-objective constrained campaign at ${width}×${height}: units on the axes, a read-out, plots side by side, counts, every column reachable`, async () => {
    const results = await call('GET', `/v1/campaigns/${labId}/results`);
    const rows = results.evaluations as { feasible: boolean; is_pareto: boolean }[];
    const infeasible = rows.filter((r) => !r.feasible).length;
    const failed = results.failed_evaluations.length as number;
    assert.equal(failed, 3, 'one lost candidate per batch');
    assert.ok(infeasible > 0, 'the test needs infeasible rows');

    const context = await signedInContext(browser, kiln.adminKey);
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    await recordCanvasText(page);
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${kiln.base}/#/campaigns/${labId}`);
    const plotIds = ['convergence-plot', 'pareto-plot', 'pareto-plot-1', 'pareto-plot-2'];
    for (const id of plotIds) await page.locator(`[data-testid="${id}"] canvas`).waitFor();
    await page.waitForTimeout(300);

    // side by side: convergence and the first pair on one row, the other two pairs on the next, each at least 400 px
    const boxes = await Promise.all(plotIds.map(async (id) => (await page.getByTestId(id).boundingBox())!));
    const [convergence, first, second, third] = boxes;
    assert.ok(
      Math.abs(convergence.y - first.y) < 2 && convergence.x + convergence.width <= first.x,
      `convergence ${JSON.stringify(convergence)} beside the Pareto plot ${JSON.stringify(first)}`,
    );
    assert.ok(Math.abs(second.y - third.y) < 2 && second.x + second.width <= third.x, 'the other two pairs side by side');
    for (const [k, box] of boxes.entries()) {
      assert.ok(box.width >= 400, `${plotIds[k]} is ${box.width} px wide`);
      assert.ok(box.x >= 0 && box.x + box.width <= width, `${plotIds[k]} inside the window`);
    }

    // axis names with their units drawn on the canvases; the rotated y name clear of the y ticks
    const texts = await drawn(page);
    const written = (plot: string) => texts.filter((t) => t.plot === plot).map((t) => t.text);
    assert.ok(written('pareto-plot').includes('flux (L/m²h)'), `x axis named: ${written('pareto-plot').join(' | ')}`);
    assert.ok(written('pareto-plot').includes('salt_rejection (%)'));
    assert.ok(written('pareto-plot-2').includes('cost (USD/m²)'));
    // the hypervolume's unit is the product of the objectives' units
    assert.ok(written('convergence-plot').includes('hypervolume (L/m²h × % × USD/m²)'), written('convergence-plot').join(' | '));
    for (const plot of plotIds) {
      const drawnHere = texts.filter((t) => t.plot === plot);
      const label = drawnHere.filter((t) => t.rotated).at(-1)!;
      assert.ok(label, `${plot}: a rotated y axis name`);
      const labelRight = label.baseline === 'top' || label.baseline === 'hanging' ? label.x + 16 : label.baseline === 'middle' ? label.x + 8 : label.x;
      const ticks = drawnHere.filter((t) => !t.rotated && t.align === 'right' && t.x < 200);
      assert.ok(ticks.length > 0, `${plot}: y ticks`);
      const ticksLeft = Math.min(...ticks.slice(-6).map((t) => t.x - t.width));
      assert.ok(labelRight <= ticksLeft, `${plot}: the y name ends at ${labelRight}, its ticks start at ${ticksLeft}`);
    }

    // no uPlot legend ("Value: --"); a read-out of the hovered point, with units
    assert.equal(await page.locator('.u-legend').count(), 0);
    assert.ok(!(await page.locator('main').innerText()).includes('--'), 'no "--" anywhere');
    const read = await hoverUntilRead(
      page,
      'pareto-plot',
      /^iteration \d+ · \S+ · (Pareto front|dominated|infeasible) · flux [\d.e-]+ L\/m²h · salt_rejection [\d.e-]+ % · recipe: x1 [\d.]+ wt%, x2 [\d.]+ mm, x3 [\d.]+$/,
    );
    assert.match(read, /iteration \d+/);
    const convergenceRead = await hoverUntilRead(page, 'convergence-plot', /^iteration \d+: hypervolume \S+ L\/m²h × % × USD\/m²$/);
    assert.match(convergenceRead, /hypervolume [\d.e+-]+ L\/m²h × % × USD\/m²$/);

    // counted beside the plots; failed ones listed with their errors
    const counts = page.getByTestId('evaluation-counts');
    assert.equal((await counts.innerText()).trim(), `${infeasible} infeasible, ${failed} failed`);
    await page.getByTestId('failed-evaluations').locator('summary').click();
    assert.equal(await page.getByTestId('failed-evaluations').locator('li', { hasText: 'the membrane tore in the cell' }).count(), failed);
    assert.equal(Number(await page.getByTestId('pareto-plot').getAttribute('data-infeasible')), infeasible);

    // axes follow the front; the toggle shows every point
    assert.equal(await page.getByTestId('pareto-plot').getAttribute('data-range'), 'front');
    await page.getByLabel(/Show every point/).check();
    assert.equal(await page.getByTestId('pareto-plot').getAttribute('data-range'), 'all');
    await page.screenshot({ path: `${ARTIFACTS}/insight-campaign-all-${width}.png`, fullPage: true });
    await page.getByLabel(/Show every point/).uncheck();

    // the table: units in the headings, every column reachable inside the window, a column chooser
    const table = page.getByTestId('evaluations');
    const headings = (await table.locator('thead th').allInnerTexts()).map((h) => h.trim());
    assert.deepEqual(headings, [
      'iteration',
      'id',
      'state',
      'Pareto',
      'Feasible',
      'x1 (wt%)',
      'x2 (mm)',
      'x3',
      'flux (L/m²h)',
      'salt_rejection (%)',
      'cost (USD/m²)',
      'purity (%)',
    ]);
    for (const th of await table.locator('thead th').all()) {
      await th.scrollIntoViewIfNeeded();
      const box = (await th.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= width + 0.5, `${await th.innerText()} at ${box.x}–${box.x + box.width} in a ${width} px window`);
    }
    await page.getByTestId('column-chooser').locator('summary').click();
    await page.getByLabel('x2 (mm)').uncheck();
    assert.equal(await table.locator('thead th', { hasText: 'x2 (mm)' }).count(), 0, 'a hidden column');
    await page.getByLabel('x2 (mm)').check();

    await page.evaluate(() => window.scrollTo(0, 0));
    assert.deepEqual(await problems(page), [], 'campaign page');
    await page.screenshot({ path: `${ARTIFACTS}/insight-campaign-${width}.png` });
    await page.screenshot({ path: `${ARTIFACTS}/insight-campaign-full-${width}.png`, fullPage: true });
    assert.deepEqual(failures, []);
    await context.close();
  });
}

test('one number, written one way: the hypervolume in the header, the list and the job log agree; "—" before a campaign starts', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${kiln.base}/#/campaigns/${labId}`);
  const header = (await page.getByTestId('hypervolume').innerText()).trim();
  assert.match(header, /^[\d.]+(e[-+]?\d+)?$/);
  await page.goto(`${kiln.base}/#/jobs/${labJobId}`);
  const final = page.getByTestId('log').getByText(/final hypervolume/i);
  await final.waitFor();
  assert.equal(/final hypervolume (\S+)\.$/i.exec(await final.innerText())?.[1], header, 'the log writes the hypervolume as the header does');
  await page.goto(`${kiln.base}/#/campaigns`);
  const row = (name: string) => page.getByTestId('campaign-row').filter({ hasText: name });
  await row('membrane lab').waitFor();
  assert.ok((await row('membrane lab').innerText()).includes(header), 'the list writes it alike');
  assert.match(await row('never started').innerText(), /—/);
  assert.doesNotMatch(await row('never started').innerText(), /0\.000/);

  for (const [width, height] of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    await page.goto(`${kiln.base}/#/campaigns/${idleId}`);
    await page.getByTestId('plots-empty').waitFor();
    assert.equal((await page.getByTestId('hypervolume').innerText()).trim(), '—');
    assert.match(await page.getByTestId('plots-empty').innerText(), /start the campaign/);
    assert.equal(await page.locator('canvas').count(), 0, 'no empty charts');
    assert.deepEqual(await problems(page), [], 'never-started campaign page');
    await page.screenshot({ path: `${ARTIFACTS}/insight-never-started-${width}.png` });
  }
  await context.close();
});

test('jobs: the list names campaigns and says how long finished jobs took; a job page is titled by its campaign', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  for (const [width, height] of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    await page.goto(`${kiln.base}/#/jobs`);
    const row = page.getByTestId('job-row').filter({ hasText: labJobId });
    await row.getByTestId('job-campaign').getByText('membrane lab').waitFor();
    assert.match(await row.getByTestId('job-elapsed').innerText(), /^\d+(\.\d)? s$|min|h /, 'elapsed time of a finished job');
    assert.deepEqual(await problems(page), [], 'jobs list');
    await page.screenshot({ path: `${ARTIFACTS}/insight-jobs-${width}.png` });

    await row.getByRole('link', { name: labJobId }).click();
    await page.getByRole('heading', { level: 1, name: 'membrane lab' }).waitFor();
    await page.getByText(`Job ${labJobId}`).waitFor();
    assert.deepEqual(await problems(page), [], 'job page');
    await page.screenshot({ path: `${ARTIFACTS}/insight-job-${width}.png` });
  }
  await context.close();
});

test('the model report: predicted against measured with its intervals, parameter importance, the next batch as the model sees it', async () => {
  // a lab playing ZDT1 through ask/tell, stopped answering with its third batch awaiting
  const id = (await call('POST', '/v1/campaigns', { name: 'zdt1 lab', domain: 'benchmark', mdl: zdt1Mdl({ evaluator: null, budget: 40, batch: 4 }) })).id;
  await call('POST', `/v1/campaigns/${id}/start`);
  const told = new Set<string>();
  const report = await eventually(
    async () => {
      const batch = ((await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[]).filter((c) => !told.has(c.id));
      const campaign = await call('GET', `/v1/campaigns/${id}`);
      if (campaign.evaluations_completed < 8 && batch.length > 0) {
        for (const c of batch) told.add(c.id);
        await call('POST', `/v1/campaigns/${id}/evaluations`, {
          evaluations: batch.map((c) => ({ id: c.id, objectives: zdt1(c.parameters.x1, c.parameters.x2) })),
        });
        return undefined;
      }
      const model = await call('GET', `/v1/campaigns/${id}/model`);
      return campaign.evaluations_completed >= 8 && model.next.length > 0 ? model : undefined;
    },
    90_000,
    'a model report with a batch awaiting results',
  );

  for (const [width, height] of VIEWPORTS) {
    const context = await signedInContext(browser, kiln.adminKey);
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${kiln.base}/#/campaigns/${id}`);
    const panel = page.getByTestId('model-report');
    await panel.waitFor();
    const checks = panel.getByTestId('model-check');
    assert.equal(await checks.count(), report.outputs.length);
    // one point with its interval bar per leave-one-out prediction, named for screen readers
    assert.equal(await checks.first().locator('circle').count(), report.outputs[0].predictions.length);
    assert.match((await checks.first().locator('svg').getAttribute('aria-label'))!, /^Predicted against measured f1/);
    assert.match(
      await checks.first().locator('figcaption').innerText(),
      /^f1: R² -?[\d.]+ · ±1σ holds \d+ % · ±1.96σ holds \d+ % · bias -?[\d.]+σ · \d+ of \d+ outside ±1.96σ \(red\)$/,
    );
    // importance: a bar per parameter for each objective, the widest first
    const importance = panel.getByTestId('importance');
    assert.equal(await importance.count(), 2);
    const shares = (await importance.first().locator('tbody td:last-child').allInnerTexts()).map(Number);
    assert.equal(shares.length, 2);
    assert.ok(shares[0] >= shares[1], `sorted: ${shares.join(', ')}`);
    // the awaited batch, one row per candidate
    const next = panel.getByTestId('next-candidates');
    assert.equal(await next.locator('tbody tr').count(), report.next.length);
    assert.deepEqual(
      await next.locator('tbody tr td:first-child').allInnerTexts(),
      report.next.map((c: { id: string }) => c.id),
    );
    await panel.scrollIntoViewIfNeeded();
    const box = (await panel.boundingBox())!;
    assert.ok(box.x >= 0 && box.x + box.width <= width + 0.5, `the report fits the ${width} px window`);
    assert.deepEqual(await problems(page), [], 'campaign page with its model report');
    await panel.screenshot({ path: `${ARTIFACTS}/insight-model-${width}.png` });
    assert.deepEqual(failures, []);
    await context.close();
  }
});
