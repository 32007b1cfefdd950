import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { parse } from 'yaml';
import { ARTIFACTS, signedInContext, startBrowserKiln, type BrowserKiln } from './support/browser.js';
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
  const created = await fetch(`${kiln.base}/v1/campaigns`, { method: 'POST', headers: headers(), body: JSON.stringify({ template_id: 'water/desalination-membrane', overrides: { optimizer: { budget: 24 } } }) });
  campaignId = ((await created.json()) as { data: { id: string } }).data.id;
  const started = await fetch(`${kiln.base}/v1/campaigns/${campaignId}/start`, { method: 'POST', headers: headers() });
  jobId = ((await started.json()) as { data: { job: { id: string } } }).data.job.id;
  await eventually(async () => {
    const c = (await (await fetch(`${kiln.base}/v1/campaigns/${campaignId}`, { headers: headers() })).json()) as { data: { status: string } };
    return c.data.status === 'running' || c.data.status === 'created' ? undefined : true;
  }, 90_000, 'the campaign to finish');
  const form = new FormData();
  form.append('file', new Blob(['x1,x2,f1,f2\n0.1,0.2,1,2\n0.3,0.4,2,1\n'], { type: 'text/csv' }), 'runs.csv');
  form.append('name', 'earlier runs');
  const uploaded = await fetch(`${kiln.base}/v1/datasets`, { method: 'POST', headers: { Authorization: `Bearer ${kiln.adminKey}` }, body: form });
  assert.equal(uploaded.status, 201, await uploaded.text());
});

after(() => site?.stop());

/** What a person on a laptop, a keyboard or a screen reader would trip over on the page. */
async function problems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const visible = (el: Element) => el.getClientRects().length > 0;
    if (document.documentElement.scrollWidth > window.innerWidth) found.push(`page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
    for (const control of Array.from(document.querySelectorAll('input, select, textarea'))) {
      const c = control as HTMLInputElement;
      if (c.type === 'hidden' || !visible(c)) continue;
      if (!(c.labels?.length || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby'))) found.push(`unlabelled ${c.tagName.toLowerCase()} ${c.id || c.name}`);
    }
    for (const button of Array.from(document.querySelectorAll('button, a'))) {
      if (visible(button) && !(button.textContent?.trim() || button.getAttribute('aria-label'))) found.push(`nameless ${button.outerHTML.slice(0, 120)}`);
    }
    for (const image of Array.from(document.querySelectorAll('[role="img"], img'))) {
      if (!(image.getAttribute('aria-label') || image.getAttribute('alt'))) found.push('an image without a text alternative');
    }
    if (!document.querySelector('h1')) found.push('no h1');
    // WCAG 2 contrast of text against the first opaque background behind it (4.5:1, large text 3:1)
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r, g, b]: number[]) =>
      [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (el: Element | null): number[] => {
      for (; el; el = el.parentElement) {
        const c = rgb(getComputedStyle(el).backgroundColor);
        if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const text = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim());
      if (!text || !visible(el) || (el as HTMLButtonElement).disabled || el.closest('[role="img"], .uplot, svg, option')) continue;
      const style = getComputedStyle(el);
      const [fg, bg] = [luminance(rgb(style.color)), luminance(background(el))];
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) found.push(`contrast ${ratio.toFixed(2)} for "${el.textContent!.trim().slice(0, 40)}"`);
    }
    return found;
  });
}

const PAGES: [string, string, string][] = [
  ['campaigns', '#/campaigns', 'Campaigns'],
  ['campaign', '#/campaigns/{campaign}', 'Desalination membrane'],
  ['jobs', '#/jobs', 'Jobs'],
  ['job', '#/jobs/{job}', 'Job job_'],
  ['datasets', '#/datasets', 'Datasets'],
  ['templates', '#/templates', 'Templates'],
  ['materials', '#/materials', 'Materials'],
  ['api-keys', '#/settings/api-keys', 'API keys'],
];

for (const [width, height] of [[1280, 720], [1440, 900]]) {
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
  const mdl = parse(readFileSync((await download.path())!, 'utf8'));
  const detail = (await (await fetch(`${kiln.base}/v1/templates/${encodeURIComponent('water/desalination-membrane')}`, { headers: headers() })).json()) as { data: { mdl: unknown } };
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
  const long = (await post('/v1/campaigns', { template_id: 'water/desalination-membrane', name: 'to cancel', overrides: { optimizer: { budget: 400 } } })).data.id;
  const running = (await post(`/v1/campaigns/${long}/start`)).data.job.id;
  const context = await signedInContext(browser, kiln.adminKey);
  const page = await context.newPage();
  await page.goto(`${kiln.base}/#/jobs/${running}`);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('job-status').getByText('cancelled').waitFor({ timeout: 60_000 });
  assert.equal(await page.getByRole('button', { name: 'Cancel' }).count(), 0);

  // a timeout of about a second fails the job after its first iterations
  const short = (await post('/v1/campaigns', { template_id: 'water/desalination-membrane', name: 'to retry', overrides: { optimizer: { budget: 400 } } })).data.id;
  const failing = (await post(`/v1/campaigns/${short}/start`, { timeout_hours: 0.0003 })).data.job.id;
  await page.goto(`${kiln.base}/#/jobs/${failing}`);
  await page.getByTestId('job-status').getByText('failed').waitFor({ timeout: 60_000 });
  await page.getByTestId('log').getByText(/ran past its timeout/).waitFor();
  await page.screenshot({ path: `${ARTIFACTS}/job-failed.png` });
  await page.getByRole('button', { name: 'Retry' }).click();
  await page.waitForURL((url) => /#\/jobs\/job_\w+$/.test(url.hash) && !url.hash.endsWith(failing));
  const retried = new URL(page.url()).hash.split('/')[2];
  await page.getByRole('heading', { name: `Job ${retried}` }).waitFor();
  const job = (await (await fetch(`${kiln.base}/v1/jobs/${retried}`, { headers: headers() })).json()) as { data: { campaign_id: string } };
  assert.equal(job.data.campaign_id, short, 'the retry continues the same campaign');

  await page.goto(`${kiln.base}/#/jobs`);
  await page.getByTestId('job-row').first().waitFor();
  await page.getByLabel('Status').selectOption('cancelled');
  // the unfiltered rows stay until the filtered page arrives
  await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid="job-row"]')).every((row) => row.textContent!.includes('cancelled')));
  assert.deepEqual(await page.getByTestId('job-row').locator('td:first-child').allInnerTexts(), [running], 'only the cancelled job');
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
  const created = await fetch(`${kiln.base}/v1/campaigns`, { method: 'POST', headers: headers(), body: JSON.stringify({ template_id: 'water/desalination-membrane', name: 'reconnecting', overrides: { optimizer: { budget: 20 } } }) });
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
  await page.getByTestId('status').getByText(/completed|converged/).waitFor({ timeout: 60_000 });
  assert.ok((await page.getByTestId('evaluations').locator('tbody tr').count()) >= 20);
  await context.close();
});
