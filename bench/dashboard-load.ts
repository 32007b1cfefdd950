import WebSocket from 'ws';
import { median, type BenchReport, type BenchSuite } from './common.js';
import { startBenchKiln, type BenchKiln } from './embedded-kiln.js';
import { campaignWith } from './web.js';
import { messageText } from '../src/api/ws-text.js';

/**
 * What the campaign page costs the API per stored iteration on a large campaign, before and after
 * the page appended each iteration's `job.progress` summary instead of re-reading. The requests
 * are replayed against a real server holding a campaign of 5,000 evaluations (1,000 with
 * `--quick`); the summary event is taken from one real iteration of that campaign.
 *
 * Before: each of an iteration's five events (job.status and job.progress when proposing starts,
 * the same two when evaluating starts, job.progress once stored) re-read the campaign and its full
 * results; the page coalesced reads already in flight, so a burst of two events cost at least one
 * read, giving 3 to 5 reads an iteration, 5 when reads finish before the next event (small campaigns)
 * and nearer 3 when they do not (large ones). After: no read; the model report is read once an
 * iteration in both.
 */

const QUICK = process.argv.includes('--quick');
const SIZE = QUICK ? 1_000 : 5_000;
const REPEATS = QUICK ? 3 : 7;

interface Call {
  bytes: number;
  ms: number;
}

/** One GET as the page makes it; bytes of the body as sent (the API does not compress JSON). */
async function get(kiln: BenchKiln, path: string): Promise<Call> {
  const started = performance.now();
  const res = await fetch(`${kiln.base}${path}`, { headers: { Authorization: `Bearer ${kiln.key}` } });
  const body = await res.arrayBuffer();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${new TextDecoder().decode(body)}`);
  return { bytes: body.byteLength, ms: performance.now() - started };
}

/** The requests of one iteration's reads, in sequence as the page's single reader makes them. */
async function replay(kiln: BenchKiln, id: string, fullReads: number): Promise<{ requests: number; bytes: number; ms: number }> {
  const calls: Call[] = [];
  for (let i = 0; i < fullReads; i++) {
    const pair = await Promise.all([get(kiln, `/v1/campaigns/${id}`), get(kiln, `/v1/campaigns/${id}/results`)]);
    calls.push(...pair);
  }
  calls.push(await get(kiln, `/v1/campaigns/${id}/model`).catch(() => ({ bytes: 0, ms: 0 })));
  return { requests: calls.length, bytes: calls.reduce((s, c) => s + c.bytes, 0), ms: calls.reduce((s, c) => s + c.ms, 0) };
}

/** Starts the campaign, waits for its first stored iteration's job.progress and stops it; the event's text. */
async function oneIteration(kiln: BenchKiln, id: string): Promise<string> {
  const ws = new WebSocket(`${kiln.base.replace('http', 'ws')}/v1/ws?token=${kiln.key}`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const progress = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no job.progress within 180 s')), 180_000);
    ws.on('message', (raw) => {
      const text = messageText(raw);
      if ((JSON.parse(text) as { type: string }).type !== 'job.progress') return;
      clearTimeout(timer);
      resolve(text);
    });
  });
  ws.send(JSON.stringify({ type: 'subscribe', campaign_id: id }));
  const auth = { Authorization: `Bearer ${kiln.key}` };
  const started = await fetch(`${kiln.base}/v1/campaigns/${id}/start`, { method: 'POST', headers: auth });
  if (started.status !== 202) throw new Error(`start: ${started.status} ${await started.text()}`);
  try {
    return await progress;
  } finally {
    ws.close();
    await fetch(`${kiln.base}/v1/campaigns/${id}/stop`, { method: 'POST', headers: auth });
  }
}

export const suite: BenchSuite = {
  name: 'dashboard-load',
  options: [{ flag: '--quick', description: 'a campaign of 1,000 evaluations instead of 5,000, 3 repeats instead of 7' }],
  description: `API load of the campaign page per stored iteration, ${SIZE} evaluations: full re-reads on every event (before) against appending the job.progress summary (after)`,
  async run() {
    const kiln = await startBenchKiln({ WORKER_CONCURRENCY: '1', API_RATE_LIMIT_PER_MINUTE: '0' }, { worker: true });
    try {
      const id = await campaignWith(kiln, SIZE);
      const event = await oneIteration(kiln, id);
      const summary = (JSON.parse(event) as { data: { summary: { evaluations?: unknown[] } } }).data.summary;
      const eventBytes = Buffer.byteLength(event);
      // warm-up: the first reads compile the routes' code paths and size the heap
      for (let i = 0; i < 3; i++) await replay(kiln, id, 5);
      const patterns = [
        { label: 'before, reads finish between events', reads: 5, events: 5, eventBytes: 0 },
        { label: 'before, reads coalesced (lower bound)', reads: 3, events: 5, eventBytes: 0 },
        { label: 'after: summary appended', reads: 0, events: 1, eventBytes },
      ];
      const rows: BenchReport['rows'] = [];
      const after = patterns.length - 1;
      const measured = [];
      for (const p of patterns) {
        const runs = [];
        for (let i = 0; i < REPEATS; i++) runs.push(await replay(kiln, id, p.reads));
        measured.push({ requests: runs[0].requests, bytes: runs[0].bytes + p.eventBytes, ms: median(runs.map((r) => r.ms)) });
      }
      const page = await replay(kiln, id, 1);
      for (const [k, p] of patterns.entries()) {
        const m = measured[k];
        rows.push({
          pattern: p.label,
          evaluations: SIZE,
          requests: m.requests,
          results_reads: p.reads,
          kib_per_iteration: m.bytes / 1024,
          server_ms_per_iteration: m.ms,
          vs_after_kib: k === after ? 1 : m.bytes / measured[after].bytes,
        });
      }
      rows.push({
        pattern: 'page load (campaign + results + model), both',
        evaluations: SIZE,
        requests: page.requests,
        results_reads: 1,
        kib_per_iteration: page.bytes / 1024,
        server_ms_per_iteration: page.ms,
        vs_after_kib: null,
      });
      return {
        rows,
        notes: [
          `per stored iteration; server time = loopback wall time of the requests in sequence, median of ${REPEATS} replays; bytes = response bodies (the API sends JSON uncompressed) plus, after, the job.progress event`,
          `the job.progress event of one real iteration: ${eventBytes} B, ${summary.evaluations ? `${summary.evaluations.length} new rows` : 'rows left out (too many for one event: the page re-reads)'}`,
          'the model report is read once an iteration before and after (its panel follows the iteration number)',
          'rate limiting is off here: the results route allows 60 reads a minute per key, which the old pattern spent in 12 to 20 iterations',
        ],
      };
    } finally {
      await kiln.stop();
    }
  },
};
