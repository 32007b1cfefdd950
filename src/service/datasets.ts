import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { FORMULA_START } from '../engine/campaign/formula-escape.js';
import type { IngestPool } from '../datasets/ingest-pool.js';
import type { DatasetFormat } from '../datasets/formats.js';
import { DatasetValidator } from '../datasets/validator.js';
import { checkMdl } from './mdl-check.js';
import type { WarmStartRow } from '../engine/campaign/state.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import { unstorableMembers } from '../text-rules.js';
import type { Db } from '../store/db.js';
import { datasetRows, deleteDataset, findDataset, listDatasets, type DatasetRow } from '../store/datasets.js';
import { planLimits } from './plans.js';
import { hasScope, type Principal } from './principal.js';
import { insufficientScope, notFound, validationFailed } from './validation.js';

export interface DatasetUpload {
  path: string;
  filename: string;
  format: DatasetFormat;
  size: number;
  fields: Record<string, string>;
}

export interface DatasetServices {
  db: Db;
  ingest: IngestPool;
  databaseUrl: string;
  /** the MDL of a template by id or slug, for `template_id` on upload */
  templateMdl(principal: Principal, idOrSlug: string): Promise<Mdl | null>;
}

const iso = (d: Date) => d.toISOString();

export function datasetSummary(d: DatasetRow) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    rows: d.rows,
    columns: d.columns,
    created_at: iso(d.created_at),
    size_bytes: Number(d.size_bytes),
    format: d.format,
    validated: d.mdl !== null,
    warnings: d.warnings,
    flagged_rows: d.flagged_rows,
  };
}

/** Stores an uploaded file as a dataset: parsed, checked against a linked MDL, all or nothing. */
export async function uploadDataset(services: DatasetServices, principal: Principal, upload: DatasetUpload) {
  const limits = planLimits(principal.plan);
  // the form's fields and the file's name reach queries and rows: text no store keeps is refused first
  const unstorable = unstorableMembers({ ...upload.fields, filename: upload.filename });
  if (unstorable.length > 0) throw validationFailed(unstorable);
  const mdl = await linkedMdl(services, principal, upload.fields);
  const id = newId('ds_');
  const name = (upload.fields.name ?? '').trim() || upload.filename;
  if (name.length > 200) throw validationFailed([{ path: 'name', message: 'must be at most 200 characters' }]);
  const result = await services.ingest.run({
    path: upload.path,
    format: upload.format,
    databaseUrl: services.databaseUrl,
    dataset: { id, organization_id: principal.organizationId, name, description: upload.fields.description ?? '', size_bytes: upload.size },
    maxRows: limits.datasetRows,
    mdl,
  });
  if (!result.ok && result.kind === 'too_many_rows') {
    throw new KilnError('PAYLOAD_TOO_LARGE', `The file has more than the ${result.limit.toLocaleString('en')} rows your plan allows.`, { limit: result.limit });
  }
  if (!result.ok) {
    const more = result.errorCount > result.errors.length ? ` (the first ${result.errors.length} are listed)` : '';
    throw new KilnError('DATASET_INVALID', `The dataset has ${result.errorCount} problem${result.errorCount === 1 ? '' : 's'}${more}; nothing was stored.`, {
      errors: result.errors,
      warnings: result.warnings,
    });
  }
  return datasetSummary((await findDataset(services.db, principal.organizationId, id))!);
}

async function linkedMdl(services: DatasetServices, principal: Principal, fields: Record<string, string>): Promise<Mdl | null> {
  if (fields.mdl && fields.template_id) {
    throw validationFailed([{ path: 'mdl', message: 'give either mdl or template_id, not both' }]);
  }
  if (fields.template_id) {
    const mdl = await services.templateMdl(principal, fields.template_id);
    if (!mdl) throw validationFailed([{ path: 'template_id', message: `unknown template ${fields.template_id}` }]);
    return mdl;
  }
  if (!fields.mdl) return null;
  const parsed = await checkMdl({ text: fields.mdl }, 'mdl');
  if (!parsed.ok) throw validationFailed(parsed.errors.map((e) => ({ path: e.path ? `mdl.${e.path}` : 'mdl', message: e.message })));
  return parsed.mdl;
}

export async function listDatasetsFor(db: Db, principal: Principal, page: number, perPage: number) {
  const { rows, total } = await listDatasets(db, principal.organizationId, page, perPage);
  return { data: rows.map(datasetSummary), total };
}

export async function getDataset(db: Db, principal: Principal, id: string): Promise<DatasetRow> {
  const dataset = await findDataset(db, principal.organizationId, id);
  if (!dataset) throw notFound('dataset', id);
  return dataset;
}

export async function datasetDetail(db: Db, principal: Principal, id: string) {
  const dataset = await getDataset(db, principal, id);
  const preview = (await datasetRows(db, dataset.id, 0, 10)).map((r) => r.data);
  return { ...datasetSummary(dataset), preview };
}

export async function removeDataset(db: Db, principal: Principal, id: string) {
  if (!(await deleteDataset(db, principal.organizationId, id))) throw notFound('dataset', id);
  return { id, deleted: true };
}

const PAGE = 5_000;

/** The dataset as CSV, streamed page by page; text cells are escaped against spreadsheet formula injection (formula-escape.ts). */
export function datasetCsv(db: Db, dataset: DatasetRow): Readable {
  let after = 0;
  let header = true;
  return Readable.from(
    (async function* () {
      for (;;) {
        const page = await datasetRows(db, dataset.id, after, PAGE);
        if (page.length === 0 && !header) return;
        const data = page.map((r) => dataset.columns.map((c) => r.data[c] ?? ''));
        yield Papa.unparse(header ? { fields: dataset.columns, data } : { fields: [], data }, { escapeFormulae: FORMULA_START, newline: '\n', header }) + '\n';
        header = false;
        if (page.length < PAGE) return;
        after = page[page.length - 1].row_number;
      }
    })(),
  );
}

/** Rows a campaign starts from: each a known evaluation (parameters, objectives and any outcomes). */
/**
 * Warm-start rows (iteration 0) are a dataset's rows, `external_id` included: a route that hands a
 * campaign's rows out (its results, JSON and CSV; its export) needs `datasets:read` too when the
 * campaign has any, as reading the dataset itself does. 403 naming the scope otherwise.
 */
export function requireWarmStartAccess(principal: Principal, evaluations: readonly { iteration: number }[], clause: string): void {
  if (evaluations.some((e) => e.iteration === 0) && !hasScope(principal, 'datasets:read')) {
    throw insufficientScope('datasets:read', `This campaign was warm-started from a dataset, and ${clause}`);
  }
}

export interface WarmStart {
  dataset_id: string;
  rows: WarmStartRow[];
  flagged: number;
  /** rows marked failed (a `status` column saying failed): failures for the failure model */
  failed: number;
  warnings: { row: number | null; column: string | null; message: string }[];
  warningCount: number;
}

/** A warm start is model data for the GP; beyond this many rows it stops being useful and gets slow. */
export const WARM_START_MAX_ROWS = 5_000;

/**
 * Checks a dataset against a campaign's MDL (always at campaign creation, whatever was checked at upload) and
 * returns its usable rows: errors are a 422 DATASET_INVALID, flagged rows are left out.
 */
export async function warmStartFrom(db: Db, principal: Principal, datasetId: string, mdl: Mdl, idColumn?: string): Promise<WarmStart> {
  const dataset = await findDataset(db, principal.organizationId, datasetId);
  if (!dataset) throw validationFailed([{ path: 'dataset_id', message: `unknown dataset ${datasetId}` }]);
  if (dataset.rows > WARM_START_MAX_ROWS) {
    throw validationFailed([
      { path: 'dataset_id', message: `a warm start uses at most ${WARM_START_MAX_ROWS} rows and this dataset has ${dataset.rows}; upload a subset` },
    ]);
  }
  if (idColumn !== undefined && !dataset.columns.includes(idColumn)) {
    throw validationFailed([{ path: 'id_column', message: `the dataset has no column "${idColumn}" (its columns: ${dataset.columns.join(', ')})` }]);
  }
  const validator = new DatasetValidator(mdl);
  validator.checkColumns(dataset.columns);
  const rows: WarmStartRow[] = [];
  let failed = 0;
  if (validator.ok) {
    for (const { row_number: n, data } of await datasetRows(db, dataset.id, 0, WARM_START_MAX_ROWS)) {
      const flaggedBefore = validator.flagged.length;
      validator.checkRow(n, data);
      const sampleId = idColumn !== undefined && data[idColumn] !== null && String(data[idColumn]).trim() !== '' ? String(data[idColumn]).trim() : undefined;
      const parameters = Object.fromEntries(mdl.parameters.map((p) => [p.name, p.type === 'categorical' ? String(data[p.name]) : Number(data[p.name])]));
      if (markedFailed(data.status)) {
        // a failure of the past is information for the failure model, not a flagged row
        validator.flagged.splice(flaggedBefore);
        failed += 1;
        const reason = [data.error, data.reason].find((v) => v !== null && v !== undefined && String(v).trim() !== '');
        rows.push({
          parameters,
          objectives: null,
          error: reason !== undefined ? String(reason) : 'failed (warm-start data)',
          ...(sampleId ? { externalId: sampleId } : {}),
        });
        continue;
      }
      if (validator.flagged.length > flaggedBefore) continue;
      rows.push({
        parameters,
        objectives: Object.fromEntries(mdl.objectives.map((o) => [o.name, Number(data[o.name])])),
        ...(mdl.outcomes.length > 0 ? { outcomes: Object.fromEntries(mdl.outcomes.map((o) => [o.name, Number(data[o.name])])) } : {}),
        ...(sampleId ? { externalId: sampleId } : {}),
      });
    }
  }
  if (!validator.ok) {
    throw new KilnError(
      'DATASET_INVALID',
      `Dataset ${datasetId} does not fit this campaign's MDL: ${validator.errorCount} problem${validator.errorCount === 1 ? '' : 's'}.`,
      {
        errors: validator.errors,
        warnings: validator.warnings,
      },
    );
  }
  return { dataset_id: dataset.id, rows, flagged: validator.flagged.length, failed, warnings: validator.warnings, warningCount: validator.warningCount };
}

/** A `status` cell that marks a row as a failed evaluation. */
function markedFailed(status: unknown): boolean {
  return typeof status === 'string' && ['failed', 'failure', 'error'].includes(status.trim().toLowerCase());
}
