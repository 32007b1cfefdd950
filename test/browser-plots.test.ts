import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { dataClient, eventually, type TestKiln } from './support/service.js';

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

type Candidate = { id: string; iteration: number; parameters: { x1: number; x2: number; x3: number } };
type Row = { id: string; objectives: Record<string, number>; is_pareto: boolean };

// Names out of alphabetical order and mixed directions, so the axes' order and hints are checked.
const OBJECTIVES = [
  { name: 'strength', direction: 'maximize' },
  { name: 'cost', direction: 'minimize' },
  { name: 'density', direction: 'minimize' },
  { name: 'ductility', direction: 'maximize' },
];

/** The lab: x1 trades strength for ductility, x2 cost for density, and x3 only harms, so some rows are dominated. */
function measure({ x1, x2, x3 }: Candidate['parameters']) {
  return { strength: x1 - x3, cost: 0.2 + x2 + x3, density: 1.5 - x2 + x3, ductility: 1 - x1 - x3 };
}

/** Posts results for every candidate awaiting them; the number posted. */
async function answerCandidates(id: string): Promise<number> {
  const batch = (await call('GET', `/v1/campaigns/${id}/candidates`)) as Candidate[];
  if (batch.length > 0)
    await call('POST', `/v1/campaigns/${id}/evaluations`, { evaluations: batch.map((c) => ({ id: c.id, objectives: measure(c.parameters) })) });
  return batch.length;
}

test('four objectives: the Pareto plot becomes parallel coordinates, one axis per objective, Pareto rows on top', async () => {
  const campaign = await call('POST', '/v1/campaigns', {
    name: 'four objectives',
    domain: 'benchmark',
    mdl: {
      parameters: ['x1', 'x2', 'x3'].map((name) => ({ name, type: 'continuous', bounds: [0, 1] })),
      objectives: OBJECTIVES,
      optimizer: { method: 'random', budget: 30, batch_size: 10, initial_samples: 10, seed: 7 },
    },
  });
  const id = campaign.id as string;
  await call('POST', `/v1/campaigns/${id}/start`);
  await eventually(async () => ((await answerCandidates(id)) > 0 ? true : undefined), 60_000, 'the initial design');

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  // every full read of the results the page makes, to check that it follows iterations without them
  let resultsReads = 0;
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === `/v1/campaigns/${id}/results`) resultsReads++;
  });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const plot = page.getByTestId('pareto-parallel');
  const points = async () => Number(await plot.getAttribute('data-points'));
  await eventually(async () => ((await plot.count()) === 1 && (await points()) === 10 ? true : undefined), 60_000, 'the initial design on the page');

  // the rest of the budget, one iteration at a time while the page is open: it must follow
  // without a reload, and read the results at most once per iteration (it appends each
  // iteration's job.progress summary instead)
  let shown = 10;
  while ((await call('GET', `/v1/campaigns/${id}`)).status === 'running') {
    const readsBefore = resultsReads;
    const answered = await eventually(
      async () => {
        if ((await call('GET', `/v1/campaigns/${id}`)).status !== 'running') return -1;
        const posted = await answerCandidates(id);
        return posted > 0 ? posted : undefined;
      },
      60_000,
      'the next batch',
    );
    if (answered < 0) break;
    shown += answered;
    await eventually(async () => ((await points()) === shown ? true : undefined), 30_000, `${shown} evaluations on the page`);
    assert.ok(resultsReads - readsBefore <= 1, `one iteration caused ${resultsReads - readsBefore} reads of the results`);
  }
  await eventually(async () => ((await call('GET', `/v1/campaigns/${id}`)).status !== 'running' ? true : undefined), 30_000, 'the campaign to finish');
  const results = await call('GET', `/v1/campaigns/${id}/results`);
  const rows = results.evaluations as Row[];
  const front = rows.filter((r) => r.is_pareto);
  assert.equal(rows.length, 30);
  assert.ok(front.length >= 2 && front.length < rows.length, `${front.length} of ${rows.length} on the front: the test needs both kinds`);
  await eventually(async () => ((await points()) === rows.length ? true : undefined), 30_000, 'every evaluation on the page');

  assert.equal(await page.getByTestId('pareto-matrix').count(), 0, 'no scatter matrix beyond three objectives');
  assert.equal(await plot.getAttribute('role'), 'img');
  assert.equal(await plot.getAttribute('aria-label'), `Parallel coordinates of 4 objectives: ${rows.length} evaluations, ${front.length} on the Pareto front`);
  assert.equal(Number(await plot.getAttribute('data-pareto')), front.length);

  const axes = await plot.locator('.axis').evaluateAll((nodes) =>
    nodes.map((n) => ({
      name: n.querySelector('.axis-name')!.textContent,
      direction: n.querySelector('.axis-direction')!.textContent,
      min: Number(n.querySelector('.axis-min')!.textContent),
      max: Number(n.querySelector('.axis-max')!.textContent),
      x: Number(n.querySelector('line')!.getAttribute('x1')),
      top: Number(n.querySelector('line')!.getAttribute('y1')),
      bottom: Number(n.querySelector('line')!.getAttribute('y2')),
    })),
  );
  assert.deepEqual(
    axes.map((a) => a.name),
    OBJECTIVES.map((o) => o.name),
    'one axis per objective, in MDL order',
  );
  assert.deepEqual(
    axes.map((a) => a.direction),
    ['↑ better', '↓ better', '↓ better', '↑ better'],
  );
  axes.forEach((a, j) => {
    const values = rows.map((r) => r.objectives[OBJECTIVES[j].name]);
    assert.ok(Math.abs(a.min - Math.min(...values)) <= 1e-3 * Math.abs(Math.min(...values)) + 1e-9, `${a.name} min ${a.min}`);
    assert.ok(Math.abs(a.max - Math.max(...values)) <= 1e-3 * Math.abs(Math.max(...values)) + 1e-9, `${a.name} max ${a.max}`);
  });

  const lines = await plot
    .locator('path')
    .evaluateAll((nodes) => nodes.map((n) => ({ id: n.getAttribute('data-id')!, kind: n.getAttribute('class'), d: n.getAttribute('d')! })));
  assert.equal(await plot.locator('path.pareto').count(), front.length);
  assert.equal(await plot.locator('path.dominated').count(), rows.length - front.length);
  assert.deepEqual(
    new Set(lines.filter((l) => l.kind === 'pareto').map((l) => l.id)),
    new Set(front.map((r) => r.id)),
    'the Pareto polylines are the Pareto rows',
  );
  const firstPareto = lines.findIndex((l) => l.kind === 'pareto');
  assert.ok(
    lines.slice(firstPareto).every((l) => l.kind === 'pareto'),
    'Pareto rows are drawn after (over) the dominated ones',
  );

  // every vertex sits on its axis at the value's place between the axis' min and max
  const vertices = new Map(lines.map((l) => [l.id, [...l.d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }))]));
  for (const r of rows) {
    const drawn = vertices.get(r.id);
    assert.ok(drawn, `a polyline for ${r.id}`);
    assert.equal(drawn.length, 4, r.id);
    axes.forEach((a, j) => {
      const values = rows.map((row) => row.objectives[OBJECTIVES[j].name]);
      const [min, max] = [Math.min(...values), Math.max(...values)];
      const expected = a.top + ((max - r.objectives[a.name]) / (max - min)) * (a.bottom - a.top);
      assert.ok(Math.abs(drawn[j].x - a.x) < 0.1, `${r.id} on the ${a.name} axis`);
      assert.ok(Math.abs(drawn[j].y - expected) < 0.2, `${r.id} at ${a.name} = ${r.objectives[a.name]}: y ${drawn[j].y}, expected ${expected}`);
    });
  }
  // and plainly: of the two strongest Pareto rows, the stronger is higher on the strength axis
  const [stronger, weaker] = [...front].sort((p, q) => q.objectives.strength - p.objectives.strength);
  assert.ok(stronger.objectives.strength > weaker.objectives.strength);
  assert.ok(vertices.get(stronger.id)![0].y < vertices.get(weaker.id)![0].y, 'higher strength, higher on the axis');

  // fills the page's column on a laptop screen, with names big enough to read
  const [plotWidth, columnWidth] = await plot.evaluate((svg) => [svg.getBoundingClientRect().width, svg.parentElement!.getBoundingClientRect().width]);
  assert.ok(Math.abs(plotWidth - columnWidth) < 1, `plot ${plotWidth} px wide in a ${columnWidth} px column`);
  const nameHeight = await plot
    .locator('.axis-name')
    .first()
    .evaluate((t) => t.getBoundingClientRect().height);
  assert.ok(nameHeight >= 12, `axis names ${nameHeight} px high`);

  await page.screenshot({ path: `${ARTIFACTS}/pareto-parallel.png`, fullPage: true });
  assert.deepEqual(failures, [], 'no script errors on the page');
  await context.close();
});

test('outcome constraints: infeasible evaluations drawn apart and counted, an objective limit drawn, a Feasible column', async () => {
  const campaign = await call('POST', '/v1/campaigns', {
    name: 'subject to purity',
    domain: 'benchmark',
    mdl: {
      parameters: ['x1', 'x2'].map((name) => ({ name, type: 'continuous', bounds: [0, 1] })),
      objectives: [
        { name: 'cost', direction: 'minimize' },
        { name: 'loss', direction: 'minimize' },
      ],
      outcomes: [{ name: 'purity', unit: '%' }],
      outcome_constraints: [{ expression: 'purity >= 90' }, { expression: 'cost <= 0.8' }],
      optimizer: { method: 'random', budget: 20, batch_size: 10, initial_samples: 10, seed: 3 },
    },
  });
  const id = campaign.id as string;
  await call('POST', `/v1/campaigns/${id}/start`);
  // purity falls with x2: infeasible where x2 > 0.5; cost = x1, so the limit cost <= 0.8 cuts too
  const answer = async (): Promise<number> => {
    const batch = (await call('GET', `/v1/campaigns/${id}/candidates`)) as { id: string; parameters: { x1: number; x2: number } }[];
    if (batch.length > 0) {
      await call('POST', `/v1/campaigns/${id}/evaluations`, {
        evaluations: batch.map((c) => ({
          id: c.id,
          objectives: { cost: c.parameters.x1, loss: 1 - c.parameters.x1 + c.parameters.x2 },
          outcomes: { purity: 100 - 20 * c.parameters.x2 },
        })),
      });
    }
    return batch.length;
  };
  await eventually(
    async () => {
      if ((await call('GET', `/v1/campaigns/${id}`)).status !== 'running') return true;
      await answer();
      return undefined;
    },
    90_000,
    'the campaign to finish',
  );
  const rows = (await call('GET', `/v1/campaigns/${id}/results`)).evaluations as (Row & { feasible: boolean; outcomes: { purity: number } })[];
  const infeasible = rows.filter((r) => !r.feasible);
  assert.equal(rows.length, 20);
  assert.ok(infeasible.length > 0 && infeasible.length < 20, `${infeasible.length} infeasible: the test needs both kinds`);
  for (const r of rows) assert.equal(r.feasible, r.outcomes.purity >= 90 && r.objectives.cost <= 0.8, r.id);

  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(error.message));
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  const plot = page.getByTestId('pareto-plot');
  await eventually(async () => ((await plot.count()) === 1 && Number(await plot.getAttribute('data-points')) === 20 ? true : undefined), 30_000, 'the plot');
  assert.equal(Number(await plot.getAttribute('data-infeasible')), infeasible.length);
  assert.equal(Number(await plot.getAttribute('data-limits')), 1, 'cost <= 0.8 is drawn; purity is no axis');
  assert.match((await plot.getAttribute('aria-label'))!, new RegExp(`${infeasible.length} infeasible \\(hollow orange\\); limits cost <= 0.8 dashed`));
  assert.match(
    await page.getByTestId('feasibility').innerText(),
    new RegExp(`${20 - infeasible.length} feasible, ${infeasible.length} infeasible \\(subject to purity >= 90, cost <= 0.8\\)`),
  );
  // the limit's dashed line: orange pixels down the column at cost = 0.8 inside the plot area
  const orange = await plot.evaluate((root) => {
    const canvas = root.querySelector('canvas')!;
    const ctx = canvas.getContext('2d')!;
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    let count = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] > 120 && data[i + 1] < 160 && data[i + 2] < 40) count++;
    return count;
  });
  assert.ok(orange > 50, `orange pixels (limit line and infeasible markers): ${orange}`);

  const table = page.getByTestId('evaluations');
  const headings = await table.locator('thead th').allInnerTexts();
  assert.deepEqual(
    headings.map((h) => h.trim()),
    ['iteration', 'id', 'state', 'Pareto', 'Feasible', 'x1', 'x2', 'cost', 'loss', 'purity (%)'],
  );
  assert.equal(await table.locator('tbody tr.infeasible').count(), infeasible.length);
  await page.screenshot({ path: `${ARTIFACTS}/outcome-constraints.png`, fullPage: true });
  assert.deepEqual(failures, []);
  await context.close();
});
