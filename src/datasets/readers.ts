import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import streamArray from 'stream-json/streamers/stream-array.js';
import type { Cell, Row } from '../store/datasets.js';
import type { DatasetFormat } from './formats.js';

/** A problem with the file itself (not with its values), reported with the row where it is. */
export class MalformedFile extends Error {
  constructor(
    message: string,
    readonly row: number | null,
  ) {
    super(message);
    this.name = 'MalformedFile';
  }
}

/** The rows of a dataset file, read as a stream: never the whole file in memory. */
export interface RowSource {
  columns(): string[];
  rows(): AsyncGenerator<Row>;
  /** known before any row is read (Parquet metadata), else null */
  declaredRows: number | null;
}

export async function openRows(path: string, format: DatasetFormat): Promise<RowSource> {
  switch (format) {
    case 'csv':
      return csvRows(path);
    case 'json':
      return jsonRows(path);
    case 'parquet':
      return parquetRows(path);
  }
}

function csvRows(path: string): RowSource {
  let header: string[] = [];
  return {
    declaredRows: null,
    columns: () => header,
    rows: async function* () {
      const stream = createReadStream(path, 'utf8');
      const parser = stream.pipe(Papa.parse(Papa.NODE_STREAM_INPUT, { header: false, skipEmptyLines: 'greedy' }));
      let line = 0;
      for await (const record of parser as AsyncIterable<string[]>) {
        line += 1;
        if (line === 1) {
          header = record.map((name) => name.trim());
          const duplicate = header.find((name, i) => header.indexOf(name) !== i);
          if (duplicate !== undefined) throw new MalformedFile(`the header names column "${duplicate}" twice`, 0);
          if (header.some((name) => name === '')) throw new MalformedFile('the header has an empty column name', 0);
          continue;
        }
        if (record.length !== header.length) {
          throw new MalformedFile(`row ${line - 1} has ${record.length} fields but the header has ${header.length}`, line - 1);
        }
        yield Object.fromEntries(header.map((name, i) => [name, csvCell(record[i])]));
      }
      if (line === 0) throw new MalformedFile('the file is empty: a CSV dataset needs a header row', null);
    },
  };
}

/** CSV cells are text; numbers are read as numbers and empty cells as missing. */
function csvCell(text: string): Cell {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (/^nan$/i.test(trimmed)) return Number.NaN;
  const number = Number(trimmed);
  return Number.isNaN(number) ? text : number;
}

function jsonRows(path: string): RowSource {
  const columns: string[] = [];
  const seen = new Set<string>();
  return {
    declaredRows: null,
    columns: () => columns,
    rows: async function* () {
      const pipeline = createReadStream(path).pipe(streamArray.withParserAsStream());
      let row = 0;
      try {
        for await (const item of pipeline as AsyncIterable<{ key: number; value: unknown }>) {
          row += 1;
          const value = item.value;
          if (value === null || typeof value !== 'object' || Array.isArray(value)) {
            throw new MalformedFile(`element ${row} of the array is not an object (a JSON dataset is an array of flat objects)`, row);
          }
          const out: Row = {};
          for (const [key, cell] of Object.entries(value)) {
            if (cell !== null && typeof cell === 'object')
              throw new MalformedFile(`row ${row}, "${key}": nested values are not allowed; objects must be flat`, row);
            if (!seen.has(key)) {
              seen.add(key);
              columns.push(key);
            }
            out[key] = cell as Cell;
          }
          yield out;
        }
      } catch (error) {
        if (error instanceof MalformedFile) throw error;
        throw new MalformedFile(`not a JSON array of objects: ${(error as Error).message}`, row > 0 ? row : null);
      }
    },
  };
}

const PARQUET_BATCH = 5_000;

async function parquetRows(path: string): Promise<RowSource> {
  const { default: pl } = await import('nodejs-polars');
  let columns: string[];
  let declared: number;
  try {
    const scan = pl.scanParquet(path);
    columns = scan.columns;
    // the row count comes from the file's metadata; no page is decoded for it
    declared = Number((scan.select(pl.len()).collectSync().toRecords()[0] as { len: number }).len);
  } catch (error) {
    throw new MalformedFile(`not a readable Parquet file: ${String((error as Error).message ?? error).split('\n')[0]}`, null);
  }
  return {
    declaredRows: declared,
    columns: () => columns,
    rows: async function* () {
      for (let offset = 0; offset < declared; offset += PARQUET_BATCH) {
        let batch: Record<string, unknown>[];
        try {
          batch = pl.scanParquet(path).slice(offset, PARQUET_BATCH).collectSync().toRecords();
        } catch (error) {
          throw new MalformedFile(
            `the Parquet file is damaged near row ${offset + 1}: ${String((error as Error).message ?? error).split('\n')[0]}`,
            offset + 1,
          );
        }
        for (const record of batch) {
          const out: Row = {};
          for (const name of columns) {
            const cell = record[name];
            out[name] =
              cell === undefined || cell === null
                ? null
                : typeof cell === 'bigint'
                  ? Number(cell)
                  : typeof cell === 'object'
                    ? cell instanceof Date
                      ? String(cell)
                      : JSON.stringify(cell)
                    : (cell as Cell);
          }
          yield out;
        }
      }
    },
  };
}
