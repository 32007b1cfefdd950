import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pl from 'nodejs-polars';
import type { KilnRuntime } from '../src/runtime.js';
import { median, type BenchReport, type BenchSuite } from './common.js';
import { startBenchKiln } from './embedded-kiln.js';

/**
 * Dataset uploads through the API on one embedded Postgres: how fast a 100,000-row file goes
 * from POST /v1/datasets to a stored dataset in each format, and what a 100 MB upload does to
 * the event loop of the process that serves every other request.
 */

const ROWS = 100_000;
const REPEATS = 3;
const BIG_BYTES = 100 * 2 ** 20;
const MB = 2 ** 20;
const PARAMETERS = ['x1', 'x2', 'x3', 'x4', 'x5', 'x6'];
const OBJECTIVES = ['f1', 'f2'];
const COLUMNS = [...PARAMETERS, ...OBJECTIVES];
/** Histogram tick in ms: an idle loop reads about this much, anything above it is delay. */
const RESOLUTION_MS = 10;
/** Rows per string handed to a write stream: big enough to amortise the write calls, small enough to stay far from 100 MB in memory. */
const WRITE_ROWS = 5_000;

type Row = BenchReport['rows'][number];

/** The MDL the "with MDL" uploads are checked against: every column present, every value inside the bounds. */
const MDL = {
  name: 'dataset upload benchmark',
  parameters: PARAMETERS.map((name) => ({ name, type: 'continuous', bounds: [0, 1] })),
  objectives: [
    { name: 'f1', direction: 'minimize', reference: 1.1 },
    { name: 'f2', direction: 'minimize', reference: 10 },
  ],
  optimizer: { method: 'cma-es', budget: 100 },
};

/**
 * Seeded, so that two runs upload the same bytes. Two 32-bit draws per value give a double with
 * all 53 bits random: the text is then up to 17 significant digits, as real exported measurements
 * are, instead of the short decimals a 32-bit draw would print as.
 */
function randomDoubles(seed: number): () => number {
  let s = seed >>> 0;
  const next32 = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return () => ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
}

/** One row's values: parameters in [0, 1), objectives on the scales of the MDL's reference points. */
function drawRow(random: () => number): number[] {
  return [...PARAMETERS.map(() => random()), random() * 1.1, random() * 10];
}

interface DataFile {
  format: 'csv' | 'json' | 'parquet';
  path: string;
  name: string;
  contentType: string;
  bytes: number;
  rows: number;
}

/** Writes text chunks with backpressure, so that a generator never holds more than one chunk. */
async function writeChunks(path: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  for (const chunk of chunks) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The 100,000-row dataset as CSV, JSON and Parquet: the same values in each, held once as columns. */
async function writeSmallFiles(dir: string): Promise<DataFile[]> {
  const random = randomDoubles(20240601);
  const columns = COLUMNS.map(() => new Float64Array(ROWS));
  for (let r = 0; r < ROWS; r++) drawRow(random).forEach((v, c) => (columns[c][r] = v));

  /** One line per row, handed out WRITE_ROWS lines at a time; `end` follows the last line. */
  function* lines(line: (r: number) => string, separator: string, end: string) {
    for (let start = 0; start < ROWS; start += WRITE_ROWS) {
      const stop = Math.min(ROWS, start + WRITE_ROWS);
      const chunk: string[] = [];
      for (let r = start; r < stop; r++) chunk.push(line(r));
      yield chunk.join(separator) + (stop < ROWS ? separator : end);
    }
  }
  function* csv() {
    yield COLUMNS.join(',') + '\n';
    yield* lines((r) => columns.map((col) => col[r]).join(','), '\n', '\n');
  }
  function* json() {
    yield '[\n';
    yield* lines((r) => JSON.stringify(Object.fromEntries(COLUMNS.map((name, c) => [name, columns[c][r]]))), ',\n', '\n]\n');
  }

  const files: DataFile[] = [];
  const add = (format: DataFile['format'], contentType: string) => {
    const name = `bench-${ROWS}.${format}`;
    const path = join(dir, name);
    files.push({ format, path, name, contentType, bytes: statSync(path).size, rows: ROWS });
  };
  await writeChunks(join(dir, `bench-${ROWS}.csv`), csv());
  add('csv', 'text/csv');
  await writeChunks(join(dir, `bench-${ROWS}.json`), json());
  add('json', 'application/json');
  pl.DataFrame(Object.fromEntries(COLUMNS.map((name, c) => [name, Array.from(columns[c])]))).writeParquet(join(dir, `bench-${ROWS}.parquet`));
  add('parquet', 'application/parquet');
  return files;
}

/** The 100 MB CSV, streamed: whole chunks of rows until the file reaches BIG_BYTES. */
async function writeBigCsv(dir: string): Promise<DataFile> {
  const path = join(dir, 'bench-100mb.csv');
  const random = randomDoubles(7);
  let bytes = 0;
  let rows = 0;
  function* csv() {
    const header = COLUMNS.join(',') + '\n';
    bytes += Buffer.byteLength(header);
    yield header;
    while (bytes < BIG_BYTES) {
      const lines: string[] = [];
      for (let i = 0; i < WRITE_ROWS; i++) lines.push(drawRow(random).join(','));
      const chunk = lines.join('\n') + '\n';
      bytes += chunk.length;
      rows += WRITE_ROWS;
      yield chunk;
    }
  }
  await writeChunks(path, csv());
  return { format: 'csv', path, name: 'bench-100mb.csv', contentType: 'text/csv', bytes: statSync(path).size, rows };
}

interface Service {
  runtime: KilnRuntime;
  base: URL;
  key: string;
  stop(): Promise<void>;
}

/** API-only (nothing but the uploads runs), rate limiting off: the upload route allows five a minute. */
async function startService(): Promise<Service> {
  const kiln = await startBenchKiln({ WORKER_CONCURRENCY: '0', API_RATE_LIMIT_PER_MINUTE: '0' }, { worker: false });
  return { ...kiln, base: new URL(kiln.base) };
}

interface Upload {
  /** request start to the whole response */
  seconds: number;
  /** request start to the last body byte handed to the socket: the server reads the body as fast as it writes its temporary file */
  sendSeconds: number;
  datasetId: string;
  rows: number;
  warnings: number;
  validated: boolean;
}

/**
 * POST /v1/datasets with a multipart body streamed from the file (preamble, file stream,
 * epilogue) and an exact Content-Length, so that the client never holds the file: it shares the
 * event loop being measured, and a 100 MB Blob would also be 100 MB of this process's heap.
 */
async function upload(service: Service, file: DataFile, fields: Record<string, string> = {}, onSent?: () => void): Promise<Upload> {
  const boundary = `kiln-bench-${randomBytes(12).toString('hex')}`;
  const preamble = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const started = performance.now();
  const req = http.request({
    host: service.base.hostname,
    port: service.base.port,
    path: '/v1/datasets',
    method: 'POST',
    agent: false,
    headers: {
      Authorization: `Bearer ${service.key}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': preamble.length + file.bytes + epilogue.length,
    },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      res.once('error', reject);
    });
    req.once('error', reject);
  });
  // an early error answer ends the body's pipeline too; the pipeline's rejection is the one awaited first
  response.catch(() => undefined);
  async function* body() {
    yield preamble;
    yield* createReadStream(file.path, { highWaterMark: 256 * 1024 });
    yield epilogue;
  }
  await pipeline(Readable.from(body()), req);
  const sent = performance.now();
  onSent?.();
  const { status, text } = await response;
  const done = performance.now();
  if (status !== 201) throw new Error(`uploading ${file.name} answered ${status}: ${text.slice(0, 2000)}`);
  const data = (JSON.parse(text) as { data: { id: string; rows: number; warnings: unknown[]; validated: boolean } }).data;
  return {
    seconds: (done - started) / 1000,
    sendSeconds: (sent - started) / 1000,
    datasetId: data.id,
    rows: data.rows,
    warnings: data.warnings.length,
    validated: data.validated,
  };
}

/** The row count GET /v1/datasets/{id} reports, read back after the upload answered. */
async function storedRows(service: Service, id: string): Promise<number> {
  const res = await fetch(new URL(`/v1/datasets/${id}`, service.base), { headers: { Authorization: `Bearer ${service.key}` } });
  if (!res.ok) throw new Error(`GET /v1/datasets/${id} answered ${res.status}`);
  return ((await res.json()) as { data: { rows: number } }).data.rows;
}

/** An upload counts as a full ingest only when both its answer and a later read have every row. */
async function fullyStored(service: Service, result: Upload, file: DataFile): Promise<boolean> {
  return result.rows === file.rows && (await storedRows(service, result.datasetId)) === file.rows;
}

const ms = (ns: number) => ns / 1e6;

function loopColumns(h: IntervalHistogram | null): Pick<Row, 'loop_p50_ms' | 'loop_p99_ms' | 'loop_max_ms'> {
  if (!h || h.count === 0) return { loop_p50_ms: null, loop_p99_ms: null, loop_max_ms: null };
  return { loop_p50_ms: ms(h.percentile(50)), loop_p99_ms: ms(h.percentile(99)), loop_max_ms: ms(h.max) };
}

const EMPTY: Row = {
  case: '',
  rows: null,
  file_mb: null,
  n: null,
  median_s: null,
  send_s: null,
  rows_per_s: null,
  mb_per_s: null,
  vs_csv: null,
  stored: null,
  loop_p50_ms: null,
  loop_p99_ms: null,
  loop_max_ms: null,
};

interface ThroughputCase {
  what: string;
  file: DataFile;
  fields: Record<string, string>;
  warmUp: boolean;
  repeats: number;
}

async function measureThroughput(service: Service, files: DataFile[]): Promise<{ rows: Row[]; notes: string[] }> {
  const byFormat = (format: DataFile['format']) => files.find((f) => f.format === format)!;
  const mdl = { mdl: JSON.stringify(MDL) };
  const cases: ThroughputCase[] = [
    { what: 'upload CSV, no MDL', file: byFormat('csv'), fields: {}, warmUp: true, repeats: REPEATS },
    // The CSV path is already warm here; only the MDL parse and the row checks are new. One run,
    // to keep the suite near three minutes: it can show a large validation cost, not a small one.
    { what: 'upload CSV, with MDL', file: byFormat('csv'), fields: mdl, warmUp: false, repeats: 1 },
    { what: 'upload Parquet, no MDL', file: byFormat('parquet'), fields: {}, warmUp: true, repeats: REPEATS },
    { what: 'upload JSON, no MDL', file: byFormat('json'), fields: {}, warmUp: true, repeats: REPEATS },
  ];
  const rows: Row[] = [];
  const notes: string[] = [];
  let csvRate = NaN;
  for (const c of cases) {
    let warmSeconds: number | null = null;
    if (c.warmUp) {
      const warm = await upload(service, c.file, c.fields);
      if (!(await fullyStored(service, warm, c.file))) throw new Error(`the warm-up upload of ${c.file.name} stored ${warm.rows} rows, not ${c.file.rows}`);
      warmSeconds = warm.seconds;
    }
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    const runs: (Upload & { stored: boolean })[] = [];
    for (let i = 0; i < c.repeats; i++) {
      histogram.enable();
      const run = await upload(service, c.file, c.fields);
      histogram.disable();
      // the read-back is outside the timing and the histogram
      runs.push({ ...run, stored: await fullyStored(service, run, c.file) });
    }
    const seconds = median(runs.map((r) => r.seconds));
    const rate = c.file.rows / seconds;
    if (c.what === 'upload CSV, no MDL') csvRate = rate;
    rows.push({
      ...EMPTY,
      case: c.what,
      rows: c.file.rows,
      file_mb: c.file.bytes / MB,
      n: c.repeats,
      median_s: seconds,
      send_s: median(runs.map((r) => r.sendSeconds)),
      rows_per_s: rate,
      mb_per_s: c.file.bytes / MB / seconds,
      vs_csv: rate / csvRate,
      stored: `${runs.filter((r) => r.stored).length}/${c.repeats}`,
      ...loopColumns(histogram),
    });
    if (c.fields.mdl) {
      const warnings = runs.map((r) => r.warnings);
      notes.push(
        `with MDL: answered validated=${runs.every((r) => r.validated)} with ${Math.max(...warnings)} warnings (every value is inside the bounds, so none are expected).`,
      );
    }
    notes.push(
      `${c.what}: seconds per run ${runs.map((r) => r.seconds.toFixed(3)).join(', ')}` +
        (warmSeconds === null ? '.' : ` (warm-up ${warmSeconds.toFixed(3)}, not counted).`),
    );
  }
  const csv = rows.find((r) => r.case === 'upload CSV, no MDL')!;
  const parquet = rows.find((r) => r.case === 'upload Parquet, no MDL')!;
  notes.unshift(
    `Parquet/CSV: ${(Number(parquet.rows_per_s) / Number(csv.rows_per_s)).toFixed(3)} times the rows/s, ` +
      `${(Number(parquet.mb_per_s) / Number(csv.mb_per_s)).toFixed(3)} times the MB/s (the Parquet file is ${(Number(csv.file_mb) / Number(parquet.file_mb)).toFixed(2)} times smaller).`,
  );
  return { rows, notes };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sequential GET /v1/health on a keep-alive socket until `until`; returns the number answered 200. */
async function healthLoop(service: Service, until: number): Promise<{ requests: number; failures: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let requests = 0;
  let failures = 0;
  try {
    while (performance.now() < until) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.get({ agent, host: service.base.hostname, port: service.base.port, path: '/v1/health' }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        });
        req.once('error', reject);
      });
      requests += 1;
      if (status !== 200) failures += 1;
    }
  } finally {
    agent.destroy();
  }
  return { requests, failures };
}

async function measureEventLoop(service: Service, big: DataFile): Promise<{ rows: Row[]; notes: string[] }> {
  const histogram = () => monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const whole = histogram();
  const transfer = histogram();
  const ingest = histogram();
  whole.enable();
  transfer.enable();
  const run = await upload(service, big, {}, () => {
    transfer.disable();
    ingest.enable();
  });
  whole.disable();
  ingest.disable();
  const stored = await fullyStored(service, run, big);
  const length = run.seconds * 1000;

  const idle = histogram();
  idle.enable();
  await sleep(length);
  idle.disable();

  const polled = histogram();
  polled.enable();
  const health = await healthLoop(service, performance.now() + length);
  polled.disable();

  const bigMb = big.bytes / MB;
  const rows: Row[] = [
    {
      ...EMPTY,
      case: 'loop: 100 MB CSV upload, whole',
      rows: big.rows,
      file_mb: bigMb,
      n: 1,
      median_s: run.seconds,
      send_s: run.sendSeconds,
      rows_per_s: big.rows / run.seconds,
      mb_per_s: bigMb / run.seconds,
      stored: stored ? '1/1' : '0/1',
      ...loopColumns(whole),
    },
    { ...EMPTY, case: 'loop: 100 MB upload, body being sent', n: 1, median_s: run.sendSeconds, mb_per_s: bigMb / run.sendSeconds, ...loopColumns(transfer) },
    { ...EMPTY, case: 'loop: 100 MB upload, body sent -> answer', n: 1, median_s: run.seconds - run.sendSeconds, ...loopColumns(ingest) },
    { ...EMPTY, case: 'loop: idle, same length', n: 1, median_s: length / 1000, ...loopColumns(idle) },
    { ...EMPTY, case: 'loop: GET /v1/health loop, same length', n: health.requests, median_s: length / 1000, ...loopColumns(polled) },
  ];
  const notes = [
    `100 MB CSV: ${big.rows.toLocaleString('en')} rows, ${big.bytes.toLocaleString('en')} bytes; the health loop answered ${health.requests} requests ` +
      `(${(health.requests / (length / 1000)).toFixed(0)}/s, ${health.failures} not 200), one at a time on one keep-alive socket.`,
  ];
  return { rows, notes };
}

export const suite: BenchSuite = {
  name: 'datasets',
  description: 'dataset upload throughput and event-loop delay',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-datasets-'));
    let service: Service | null = null;
    try {
      const generated = performance.now();
      const files = await writeSmallFiles(dir);
      const big = await writeBigCsv(dir);
      const generateSeconds = (performance.now() - generated) / 1000;
      service = await startService();
      const throughput = await measureThroughput(service, files);
      const loop = await measureEventLoop(service, big);
      return {
        rows: [...throughput.rows, ...loop.rows],
        notes: [
          'Kiln here is one process: the API only (WORKER_CONCURRENCY 0) on an embedded Postgres over loopback, with rate limiting off (API_RATE_LIMIT_PER_MINUTE 0), since the upload route allows five a minute. ' +
            'The uploads go to the default organization (enterprise plan: 1 GiB and 1,000,000 rows per dataset). Datasets are kept, not deleted between runs: a delete would leave dead rows for autovacuum to clean during later runs; dataset_rows grows to about 2.2 million rows.',
          'Client: node:http with a multipart body streamed from the file (preamble, fs read stream in 256 KiB chunks, epilogue) and an exact Content-Length, not fetch + FormData + Blob, so the client never holds a file. ' +
            'It runs in the same process as the server, so its file reads and socket writes land in the event loop being measured; streaming keeps that small.',
          'median_s: request start to the whole 201 answer, which comes after the ingest thread committed. send_s: to the last body byte handed to the socket; the server writes the body to a temporary file as it reads it, ' +
            'so this is about the receive phase, and the rest is the ingest thread parsing the file and inserting it in one transaction. MB = 2^20 bytes of the file. ' +
            'stored: runs whose answer and a later GET /v1/datasets/{id} both report every row.',
          `Files: ${ROWS.toLocaleString('en')} rows of 8 columns (x1..x6 in [0, 1), f1 in [0, 1.1), f2 in [0, 10)), seeded 53-bit random doubles printed in full (up to 17 significant digits); ` +
            'the same values as CSV, as a JSON array of objects and as Parquet (nodejs-polars writeParquet, default options). The 100 MB CSV is streamed to disk with its own seed. ' +
            `Each format gets one unrecorded warm-up upload (the ingest thread loads its reader, nodejs-polars for Parquet) and ${REPEATS} timed runs; the with-MDL case gets one run, on the CSV path the no-MDL runs warmed.`,
          `loop_*_ms: monitorEventLoopDelay with a ${RESOLUTION_MS} ms resolution in this process (API and client; the ingest thread has its own loop), enabled only over the interval of the row. ` +
            `It records the time between ${RESOLUTION_MS} ms timer ticks, so an idle loop reads about ${RESOLUTION_MS} ms and the delay is the excess over it. ` +
            'For the 100,000-row rows it spans the timed uploads only; the 100 MB upload is split at the moment the client had sent the body.',
          'Baselines: measured after the 100 MB upload over the same length, first idle (a timer sleep), then with sequential GET /v1/health requests. ' +
            'Postgres may still be writing out the 100 MB upload (checkpoint, autovacuum of the new rows) during them, on the same 2 cores.',
          ...throughput.notes,
          ...loop.notes,
          `files generated in ${generateSeconds.toFixed(1)} s (not part of any figure).`,
        ],
      };
    } finally {
      await service?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
