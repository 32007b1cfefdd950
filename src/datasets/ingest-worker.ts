import pg from 'pg';
import type { Mdl } from '../engine/mdl/schema.js';
import type { DatasetFormat } from './formats.js';
import { MalformedFile, openRows, type Row } from './readers.js';
import { DatasetValidator, type DatasetIssue } from './validator.js';

/** One upload to parse, check and store, sent to an ingest thread. */
export interface IngestTask {
  path: string;
  format: DatasetFormat;
  databaseUrl: string;
  dataset: { id: string; organization_id: string; name: string; description: string; size_bytes: number };
  maxRows: number;
  /** the linked MDL the rows are checked against (interface.md 4.5), if any */
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
  const client = new pg.Client({ connectionString: task.databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    const result = await ingestRows(client, task);
    await client.query(result.ok ? 'commit' : 'rollback');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    if (error instanceof MalformedFile) {
      return { ok: false, kind: 'invalid', errors: [{ row: error.row, column: null, message: error.message }], errorCount: 1, warnings: [] };
    }
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ingestRows(client: pg.Client, task: IngestTask): Promise<IngestResult> {
  const source = await openRows(task.path, task.format);
  if (source.declaredRows !== null && source.declaredRows > task.maxRows) return { ok: false, kind: 'too_many_rows', limit: task.maxRows };
  const validator = task.mdl ? new DatasetValidator(task.mdl) : null;
  const { dataset } = task;
  await client.query(
    `insert into datasets (id, organization_id, name, description, format, rows, columns, size_bytes, mdl)
     values ($1, $2, $3, $4, $5, 0, '[]', $6, $7)`,
    [dataset.id, dataset.organization_id, dataset.name, dataset.description, task.format, dataset.size_bytes, task.mdl ? JSON.stringify(task.mdl) : null],
  );
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
    inflight = client.query(
      `insert into dataset_rows (dataset_id, row_number, data)
       select $1, (t.ordinality + $2)::int, t.value from jsonb_array_elements($3::jsonb) with ordinality as t(value, ordinality)`,
      [dataset.id, first, JSON.stringify(rows)],
    );
    // a failure surfaces at the next await of `inflight`; this only keeps it from going unhandled meanwhile
    inflight.catch(() => undefined);
  };
  for await (const row of source.rows()) {
    count += 1;
    if (count > task.maxRows) return { ok: false, kind: 'too_many_rows', limit: task.maxRows };
    if (count === 1) validator?.checkColumns(source.columns());
    validator?.checkRow(count, row);
    // once a row is invalid nothing will be stored: keep reading only to report every problem
    if (validator && !validator.ok) continue;
    batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  if (count === 0) validator?.checkColumns(source.columns());
  if (validator && !validator.ok) {
    return { ok: false, kind: 'invalid', errors: validator.errors, errorCount: validator.errorCount, warnings: validator.warnings };
  }
  await flush();
  await inflight;
  const flagged = validator?.flagged ?? [];
  await client.query('update datasets set rows = $2, columns = $3, warnings = $4, flagged_rows = $5 where id = $1', [
    dataset.id,
    count,
    JSON.stringify(source.columns()),
    JSON.stringify(validator?.warnings ?? []),
    JSON.stringify(flagged.slice(0, MAX_FLAGGED)),
  ]);
  return { ok: true, rows: count, columns: source.columns(), warnings: validator?.warnings ?? [], warningCount: validator?.warningCount ?? 0, flagged: flagged.length };
}
