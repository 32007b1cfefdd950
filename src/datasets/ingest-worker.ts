import type { Mdl } from '../engine/mdl/schema.js';
import { DatasetIngest } from '../store/dataset-ingest.js';
import type { DatasetIssue, Row } from '../store/datasets.js';
import type { DatasetFormat } from './formats.js';
import { MalformedFile, openRows } from './readers.js';
import { DatasetValidator } from './validator.js';
import { UnstorableCells } from './unstorable-cells.js';

/** One upload to parse, check and store, sent to an ingest thread. */
export interface IngestTask {
  path: string;
  format: DatasetFormat;
  databaseUrl: string;
  dataset: { id: string; organization_id: string; name: string; description: string; size_bytes: number };
  maxRows: number;
  /** the linked MDL the rows are checked against (columns present, values parse, bounds warn), if any */
  mdl: Mdl | null;
}

export type IngestResult =
  | { ok: true; rows: number; columns: string[]; warnings: DatasetIssue[]; warningCount: number; flagged: number }
  | { ok: false; kind: 'too_many_rows'; limit: number }
  | { ok: false; kind: 'invalid'; errors: DatasetIssue[]; errorCount: number; warnings: DatasetIssue[] };

const BATCH = 2_000;
/** Flagged rows kept on the dataset in full up to this many (the count is always exact). */
const MAX_FLAGGED = 1_000;

/**
 * Entry point of an ingest thread: reads the uploaded file as a stream, checks every row, and
 * stores the dataset with its rows in ONE transaction, so a file that fails (too many rows,
 * invalid values, malformed) leaves nothing behind. Parsing here keeps the API's event loop free.
 */
export default async function ingest(task: IngestTask): Promise<IngestResult> {
  try {
    return await DatasetIngest.run(
      task.databaseUrl,
      (store) => ingestRows(store, task),
      (result) => result.ok,
    );
  } catch (error) {
    if (error instanceof MalformedFile) {
      return { ok: false, kind: 'invalid', errors: [{ row: error.row, column: null, message: error.message }], errorCount: 1, warnings: [] };
    }
    throw error;
  }
}

async function ingestRows(store: DatasetIngest, task: IngestTask): Promise<IngestResult> {
  const source = await openRows(task.path, task.format);
  if (source.declaredRows !== null && source.declaredRows > task.maxRows) return { ok: false, kind: 'too_many_rows', limit: task.maxRows };
  const validator = task.mdl ? new DatasetValidator(task.mdl) : null;
  // with or without an MDL, every cell and column name must be text Postgres keeps
  const text = new UnstorableCells();
  const { dataset } = task;
  await store.insertDataset({ ...dataset, format: task.format, mdl: task.mdl });
  let count = 0;
  let batch: Row[] = [];
  // one insert in flight while the next batch is parsed: Postgres and the parser work at once
  let inflight: Promise<unknown> = Promise.resolve();
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    const first = count - rows.length;
    batch = [];
    await inflight;
    inflight = store.insertRows(dataset.id, first, rows);
    // a failure surfaces at the next await of `inflight`; this only keeps it from going unhandled meanwhile
    inflight.catch(() => undefined);
  };
  for await (const row of source.rows()) {
    count += 1;
    if (count > task.maxRows) return { ok: false, kind: 'too_many_rows', limit: task.maxRows };
    if (count === 1) {
      validator?.checkColumns(source.columns());
      text.checkColumns(source.columns());
    }
    validator?.checkRow(count, row);
    text.checkRow(count, row);
    // once a row is invalid nothing will be stored: keep reading only to report every problem
    if ((validator && !validator.ok) || !text.ok) continue;
    batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  if (count === 0) {
    validator?.checkColumns(source.columns());
    text.checkColumns(source.columns());
  }
  if ((validator && !validator.ok) || !text.ok) {
    const errors = [...text.errors, ...(validator?.errors ?? [])];
    return { ok: false, kind: 'invalid', errors, errorCount: text.errors.length + (validator?.errorCount ?? 0), warnings: validator?.warnings ?? [] };
  }
  await flush();
  await inflight;
  const flagged = validator?.flagged ?? [];
  await store.complete(dataset.id, {
    rows: count,
    columns: source.columns(),
    warnings: validator?.warnings ?? [],
    flagged_rows: flagged.slice(0, MAX_FLAGGED),
  });
  return {
    ok: true,
    rows: count,
    columns: source.columns(),
    warnings: validator?.warnings ?? [],
    warningCount: validator?.warningCount ?? 0,
    flagged: flagged.length,
  };
}
