import type { Mdl } from '../engine/mdl/schema.js';
import type { Executor } from './db.js';
import { pageOf } from './paging.js';

export type Cell = string | number | boolean | null;
/** A row of a dataset file, stored as one JSON object: column → cell. */
export type Row = Record<string, Cell>;

/** A problem at a row (1-based data row; null for the file as a whole) and column. */
export interface DatasetIssue {
  row: number | null;
  column: string | null;
  message: string;
}

export interface FlaggedRow {
  row: number;
  reason: string;
}

export interface DatasetRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  format: string;
  rows: number;
  columns: string[];
  size_bytes: number;
  mdl: Mdl | null;
  warnings: DatasetIssue[];
  flagged_rows: FlaggedRow[];
  created_at: Date;
}

/** One row of `dataset_rows`: a file row at its 1-based number. */
export interface StoredRow {
  dataset_id: string;
  row_number: number;
  data: Row;
}

export async function findDataset(db: Executor, organizationId: string, id: string): Promise<DatasetRow | undefined> {
  return db('datasets').where({ organization_id: organizationId, id }).first();
}

export async function listDatasets(db: Executor, organizationId: string, page: number, perPage: number): Promise<{ rows: DatasetRow[]; total: number }> {
  return pageOf<DatasetRow>(db('datasets').where({ organization_id: organizationId }), { sort: { column: 'created_at', descending: true }, page, perPage });
}

export async function deleteDataset(db: Executor, organizationId: string, id: string): Promise<boolean> {
  return (await db('datasets').where({ organization_id: organizationId, id }).delete()) > 0;
}

/** Rows in file order, `limit` of them from row number `after` + 1. */
export async function datasetRows(db: Executor, datasetId: string, after: number, limit: number): Promise<{ row_number: number; data: Row }[]> {
  return db('dataset_rows').where({ dataset_id: datasetId }).andWhere('row_number', '>', after).orderBy('row_number').limit(limit).select('row_number', 'data');
}
