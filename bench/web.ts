import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { median, type BenchReport, type BenchSuite } from './common.js';
import { startBenchKiln, type BenchKiln } from './embedded-kiln.js';

/**
 * The dashboard as shipped: the bytes a first visit downloads (entry script and stylesheet, and
 * the chunks loaded only on demand), and the time from navigation to the campaign page drawn
 * (both plots and the evaluations table) in headless Chromium, for campaigns of 100 to 5,000
 * evaluations. The baseline, measured in the same run, is the first paint of a one-line HTML
 * page from a bare Node server on loopback: the floor of the browser on this machine.
 */

const CHROMIUM = process.env.KILN_CHROMIUM ?? '/usr/bin/chromium';
const WEB = join('dist', 'web');
const SIZES = [100, 1_000, 5_000];
const VISITS = 7;

type Row = BenchReport['rows'][number];

const MDL = {
  name: 'dashboard benchmark',
  domain: 'benchmark',
  parameters: ['x1', 'x2', 'x3', 'x4'].map((name) => ({ name, type: 'continuous', bounds: [0, 1] })),
  objectives: [
    { name: 'f1', direction: 'minimize' },
    { name: 'f2', direction: 'minimize' },
  ],
  optimizer: { method: 'cma-es', budget: 10_000 },
  evaluator: { type: 'builtin', name: 'zdt1' },
};

/** ZDT1 at seeded random points: a realistic front with most points dominated. */
export function evaluationsCsv(count: number): string {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const lines = ['x1,x2,x3,x4,f1,f2'];
  for (let i = 0; i < count; i++) {
    const x = [random(), random() * 0.3, random() * 0.3, random() * 0.3];
    const g = 1 + (9 * (x[1] + x[2] + x[3])) / 3;
    lines.push([...x, x[0], g * (1 - Math.sqrt(x[0] / g))].map((v) => v.toFixed(6)).join(','));
  }
  return lines.join('\n') + '\n';
}

/** A campaign holding `count` evaluations, warm-started from an uploaded dataset. */
export async function campaignWith(kiln: BenchKiln, count: number): Promise<string> {
  const auth = { Authorization: `Bearer ${kiln.key}` };
  const form = new FormData();
  form.append('file', new Blob([evaluationsCsv(count)], { type: 'text/csv' }), 'evaluations.csv');
  form.append('name', `${count} evaluations`);
  const dataset = await fetch(`${kiln.base}/v1/datasets`, { method: 'POST', headers: auth, body: form });
  if (dataset.status !== 201) throw new Error(`dataset upload: ${dataset.status} ${await dataset.text()}`);
  const datasetId = ((await dataset.json()) as { data: { id: string } }).data.id;
  const created = await fetch(`${kiln.base}/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `${count} evaluations`, domain: 'benchmark', mdl: MDL, dataset_id: datasetId }),
  });
  if (created.status !== 201) throw new Error(`campaign: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { data: { id: string } }).data.id;
}

/** Milliseconds from navigation start: first contentful paint, and when `ready` first held (watched from the page itself). */
async function visit(browser: Browser, kiln: BenchKiln, url: string, ready: string | null): Promise<{ fcp: number; ready: number | null }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript(
    ({ key, selector }) => {
      sessionStorage.setItem('kiln.credential', key);
      if (!selector) return;
      const check = () => {
        if (!selector.split('|').every((s) => document.querySelector(s))) return;
        (window as unknown as { readyAt: number }).readyAt = performance.now();
        watch.disconnect();
      };
      const watch = new MutationObserver(check);
      // the app may have rendered before DOMContentLoaded (module scripts run first)
      addEventListener('DOMContentLoaded', () => {
        watch.observe(document.body, { childList: true, subtree: true });
        check();
      });
    },
    { key: kiln.key, selector: ready },
  );
  const page = await context.newPage();
  await page.goto(url);
  if (ready) await page.waitForFunction(() => (window as unknown as { readyAt?: number }).readyAt !== undefined, undefined, { timeout: 60_000 });
  // the paint entry is recorded after the load event the navigation waited for
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 10_000 });
  const times = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    ready: (window as unknown as { readyAt?: number }).readyAt ?? null,
  }));
  await context.close();
  return times;
}

/** The first visit is cold (nothing compiled, nothing cached in the server); the median is over the rest. */
async function measure(browser: Browser, kiln: BenchKiln, url: string, ready: string | null) {
  const runs = [];
  for (let i = 0; i < VISITS; i++) runs.push(await visit(browser, kiln, url, ready));
  const warm = runs.slice(1);
  return { fcp: median(warm.map((r) => r.fcp)), ready: ready ? median(warm.map((r) => r.ready!)) : null, coldReady: runs[0].ready ?? runs[0].fcp };
}

function bundleRows(): Row[] {
  const html = readFileSync(join(WEB, 'index.html'), 'utf8');
  const entry = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]));
  const rows: Row[] = [];
  const total = { raw: 0, gzip: 0, brotli: 0 };
  for (const file of readdirSync(join(WEB, 'assets'))
    .filter((f) => !/\.(br|gz)$/.test(f))
    .sort()) {
    const bytes = readFileSync(join(WEB, 'assets', file));
    const loaded = entry.has(`assets/${file}`) ? 'first visit' : 'on demand';
    const gzip = gzipSync(bytes, { level: 9 }).length;
    const brotli = brotliCompressSync(bytes).length;
    if (loaded === 'first visit') {
      total.raw += bytes.length;
      total.gzip += gzip;
      total.brotli += brotli;
    }
    rows.push({
      measure: `bundle ${file}`,
      case: loaded,
      median: bytes.length / 1024,
      unit: 'KiB',
      gzip_kib: gzip / 1024,
      brotli_kib: brotli / 1024,
      vs_baseline: null,
    });
  }
  rows.push({
    measure: 'bundle, first visit total',
    case: `${entry.size} files + index.html ${statSync(join(WEB, 'index.html')).size} B`,
    median: total.raw / 1024,
    unit: 'KiB',
    gzip_kib: total.gzip / 1024,
    brotli_kib: total.brotli / 1024,
    vs_baseline: null,
  });
  return rows;
}

/** The floor: a page with one heading and nothing to load. */
async function bareServer(): Promise<{ url: string; close: () => void }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>floor</title><h1>Kiln</h1>'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

export const suite: BenchSuite = {
  name: 'web',
  description: 'dashboard bundle size and time to first render of the campaign page (headless Chromium, loopback, embedded Postgres)',
  async run() {
    if (!existsSync(join(WEB, 'index.html'))) throw new Error('dist/web is missing: run `npm run build` first (npm run bench does).');
    const rows = bundleRows();
    if (!existsSync(CHROMIUM)) {
      return { rows, notes: [`no Chromium at ${CHROMIUM} (apt-get install chromium, or set KILN_CHROMIUM): render times skipped`] };
    }
    const kiln = await startBenchKiln({ WORKER_CONCURRENCY: '0' }, { worker: false });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    try {
      const bare = await bareServer();
      const baseline = await measure(browser, kiln, bare.url, null).finally(bare.close);
      rows.push({
        measure: 'baseline: bare HTML first paint',
        case: 'one heading',
        median: baseline.fcp,
        unit: 'ms',
        gzip_kib: null,
        brotli_kib: null,
        vs_baseline: 1,
      });
      const signIn = await measure(browser, kiln, `${kiln.base}/#/campaigns`, 'h1');
      rows.push({
        measure: 'campaign list rendered',
        case: 'empty',
        median: signIn.ready!,
        unit: 'ms',
        gzip_kib: null,
        brotli_kib: null,
        vs_baseline: signIn.ready! / baseline.fcp,
      });
      for (const size of SIZES) {
        const id = await campaignWith(kiln, size);
        const page = await measure(
          browser,
          kiln,
          `${kiln.base}/#/campaigns/${id}`,
          '[data-testid="pareto-plot"] canvas|[data-testid="convergence-plot"]|[data-testid="evaluations"] tbody tr',
        );
        rows.push({
          measure: 'campaign page first paint',
          case: `${size} evaluations`,
          median: page.fcp,
          unit: 'ms',
          gzip_kib: null,
          brotli_kib: null,
          vs_baseline: page.fcp / baseline.fcp,
        });
        rows.push({
          measure: 'campaign page drawn (plots + table)',
          case: `${size} evaluations`,
          median: page.ready!,
          unit: 'ms',
          gzip_kib: null,
          brotli_kib: null,
          vs_baseline: page.ready! / baseline.fcp,
        });
        rows.push({
          measure: 'campaign page drawn, cold first visit',
          case: `${size} evaluations`,
          median: page.coldReady,
          unit: 'ms',
          gzip_kib: null,
          brotli_kib: null,
          vs_baseline: page.coldReady / baseline.fcp,
        });
      }
    } finally {
      await browser.close();
      await kiln.stop();
    }
    return {
      rows,
      notes: [
        `medians of ${VISITS - 1} warm visits, each in a fresh browser context (no cache), after one cold visit; times from navigation start, read in the page`,
        'first paint = first-contentful-paint; drawn = the Pareto canvas, the convergence plot and an evaluations row all exist',
        'vs_baseline = time / first paint of the bare page (one heading from a bare Node server on loopback)',
      ],
    };
  },
};
