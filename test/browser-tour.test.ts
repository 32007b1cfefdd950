import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, WebSocketRoute } from 'playwright-core';
import { parse } from 'yaml';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
import { problems } from './support/page-checks.js';
import { eventually, type TestKiln } from './support/service.js';

/**
 * Every main page with data on it, at laptop sizes: nothing wider than the window, every control
 * labelled, every button named, text with enough contrast, a skip link for keyboard users; a
 * screenshot of each page.
 */

let site: BrowserKiln;
let kiln: TestKiln;
let browser: Browser;
let campaignId: string;
let jobId: string;

const headers = () => ({ Authorization: `Bearer ${kiln.adminKey}`, 'Content-Type': 'application/json' });

before(async () => {
  site = await startBrowserKiln();
  ({ kiln, browser } = site);
  const created = await fetch(`${kiln.base}/v1/campaigns`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ template_id: 'water/desalination-membrane', overrides: { optimizer: { budget: 24 } } }),
  });
  campaignId = ((await created.json()) as { data: { id: string } }).data.id;
  const started = await fetch(`${kiln.base}/v1/campaigns/${campaignId}/start`, { method: 'POST', headers: headers() });
  jobId = ((await started.json()) as { data: { job: { id: string } } }).data.job.id;
  await eventually(
    async () => {
      const c = (await (await fetch(`${kiln.base}/v1/campaigns/${campaignId}`, { headers: headers() })).json()) as { data: { status: string } };
      return c.data.status === 'running' || c.data.status === 'created' ? undefined : true;
    },
    90_000,
    'the campaign to finish',
  );
  const form = new FormData();
  form.append('file', new Blob(['x1,x2,f1,f2\n0.1,0.2,1,2\n0.3,0.4,2,1\n'], { type: 'text/csv' }), 'runs.csv');
  form.append('name', 'earlier runs');
  const uploaded = await fetch(`${kiln.base}/v1/datasets`, { method: 'POST', headers: { Authorization: `Bearer ${kiln.adminKey}` }, body: form });
  assert.equal(uploaded.status, 201, await uploaded.text());
});

after(() => site?.stop());

const PAGES: [string, string, string][] = [
  ['campaigns', '#/campaigns', 'Campaigns'],
  ['campaign', '#/campaigns/{campaign}', 'Desalination membrane'],
  ['jobs', '#/jobs', 'Jobs'],
  ['job', '#/jobs/{job}', 'Desalination membrane'],
  ['datasets', '#/datasets', 'Datasets'],
  ['templates', '#/templates', 'Templates'],
  ['materials', '#/materials', 'Materials'],
  ['api-keys', '#/settings/api-keys', 'API keys'],
];

for (const [width, height] of [
  [1280, 720],
  [1440, 900],
]) {
  test(`every main page at ${width}×${height}: fits the window, controls labelled, buttons named, text legible; screenshots`, async () => {
    const context = await signedInContext(browser, kiln.adminKey);
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    for (const [name, route, heading] of PAGES) {
      await page.goto(`${kiln.base}/${route.replace('{campaign}', campaignId).replace('{job}', jobId)}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByText('Loading…').waitFor({ state: 'detached' });
      if (name === 'campaign') await page.locator('[data-testid="pareto-plot"] canvas').waitFor();
      assert.deepEqual(await problems(page), [], `${name} page`);
      await page.screenshot({ path: `${ARTIFACTS}/page-${name}-${width}.png`, fullPage: true });
    }
    assert.deepEqual(failures, []);
    await context.close();
  });
}

test('keyboard: the first Tab reaches "Skip to content", which moves focus into the page', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/campaigns`);
  await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
  assert.equal(new URL(page.url()).hash, '#/campaigns', 'the route stays');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.closest('main') !== null), true, 'the next Tab lands in the page, past the navigation');
  await context.close();
});

test('signed in, a template downloads as material.yaml that parses to its MDL and starts a new campaign form', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/templates`);
  const card = page.getByTestId('template').filter({ hasText: 'water/desalination-membrane' });
  const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download material.yaml' }).click()]);
  assert.equal(download.suggestedFilename(), 'material.yaml');
  const mdl = parse(readFileSync(await download.path(), 'utf8'));
  const detail = (await (await fetch(`${kiln.base}/v1/templates/${encodeURIComponent('water/desalination-membrane')}`, { headers: headers() })).json()) as {
    data: { mdl: unknown };
  };
  assert.deepEqual(mdl, detail.data.mdl);

  await card.getByRole('link', { name: 'New campaign from it' }).click();
  await page.getByRole('heading', { level: 1, name: 'Campaigns' }).waitFor();
  const chosen = page.getByLabel('Template', { exact: true });
  await page.waitForFunction(() => (document.getElementById('template') as HTMLSelectElement | null)?.selectedOptions[0]?.text.startsWith('Desalination'));
  assert.match(await chosen.evaluate((select) => (select as HTMLSelectElement).selectedOptions[0].text), /^Desalination membrane/);
  await context.close();
});

test('jobs: cancel a running job from its page; retry a failed one, which opens the new job', async () => {
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${kiln.base}${path}`, { method: 'POST', headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as { data: any };
  };
  const long = (await post('/v1/campaigns', { template_id: 'water/desalination-membrane', name: 'to cancel', overrides: { optimizer: { budget: 400 } } })).data
    .id;
  const running = (await post(`/v1/campaigns/${long}/start`)).data.job.id;
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/jobs/${running}`);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('job-status').getByText('cancelled').waitFor({ timeout: 60_000 });
  assert.equal(await page.getByRole('button', { name: 'Cancel' }).count(), 0);

  // a timeout of about a second fails the job after its first iterations
  const short = (await post('/v1/campaigns', { template_id: 'water/desalination-membrane', name: 'to retry', overrides: { optimizer: { budget: 400 } } })).data
    .id;
  const failing = (await post(`/v1/campaigns/${short}/start`, { timeout_hours: 0.0003 })).data.job.id;
  await page.goto(`${kiln.base}/#/jobs/${failing}`);
  await page.getByTestId('job-status').getByText('failed').waitFor({ timeout: 60_000 });
  await page
    .getByTestId('log')
    .getByText(/ran past its timeout/)
    .waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/job-failed.png` });
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.waitForURL((url) => /#\/jobs\/job_\w+$/.test(url.hash) && !url.hash.endsWith(failing));
  const retried = new URL(page.url()).hash.split('/')[2];
  await page.getByText(`Job ${retried}`).waitFor();
  const job = (await (await fetch(`${kiln.base}/v1/jobs/${retried}`, { headers: headers() })).json()) as { data: { campaign_id: string } };
  assert.equal(job.data.campaign_id, short, 'the retry continues the same campaign');

  await page.goto(`${kiln.base}/#/jobs`);
  await page.getByTestId('job-row').first().waitFor();
  await page.getByLabel('Status').selectOption('cancelled');
  // the unfiltered rows stay until the filtered page arrives
  await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid="job-row"]')).every((row) => row.textContent.includes('cancelled')));
  assert.deepEqual(await page.getByTestId('job-row').locator('td:nth-child(2)').allInnerTexts(), [running], 'only the cancelled job');
  await page.getByTestId('job-campaign').getByText('to cancel').waitFor();
  await context.close();
});

test('the dashboard loads nothing from outside this server', async () => {
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  const outside: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== kiln.base && url.protocol !== 'data:' && url.protocol !== 'blob:') outside.push(request.url());
  });
  for (const route of ['#/campaigns', `#/campaigns/${campaignId}`, '#/templates', '#/settings/api-keys']) {
    await page.goto(`${kiln.base}/${route}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText('Loading…').waitFor({ state: 'detached' });
  }
  assert.deepEqual(outside, []);
  await context.close();
});

test('a dropped WebSocket is opened again and the campaign page catches up without a reload', async () => {
  const created = await fetch(`${kiln.base}/v1/campaigns`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ template_id: 'water/desalination-membrane', name: 'reconnecting', overrides: { optimizer: { budget: 20 } } }),
  });
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  const sockets: WebSocketRoute[] = [];
  await page.routeWebSocket(/\/v1\/ws/, (socket) => {
    socket.connectToServer();
    sockets.push(socket);
  });
  await page.goto(`${kiln.base}/#/campaigns/${id}`);
  await page.getByRole('button', { name: 'Start' }).waitFor();
  await eventually(async () => (sockets.length === 1 ? true : undefined), 10_000, 'the page to connect');
  await sockets[0].close();
  // the campaign runs while the page is cut off from its events
  await fetch(`${kiln.base}/v1/campaigns/${id}/start`, { method: 'POST', headers: headers() });
  await eventually(async () => (sockets.length === 2 ? true : undefined), 20_000, 'the page to connect again');
  await page
    .getByTestId('status')
    .getByText(/completed|converged/)
    .waitFor({ timeout: 60_000 });
  assert.ok((await page.getByTestId('evaluations').locator('tbody tr').count()) >= 20);
  await context.close();
});
