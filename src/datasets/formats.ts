/** Dataset file formats: CSV (UTF-8, with a header row), JSON (an array of flat objects) and Parquet. */
export type DatasetFormat = 'csv' | 'json' | 'parquet';

const BY_TYPE: Record<string, DatasetFormat> = {
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/json': 'json',
  'application/parquet': 'parquet',
  'application/vnd.apache.parquet': 'parquet',
  'application/x-parquet': 'parquet',
};

const BY_EXTENSION: Record<string, DatasetFormat> = { csv: 'csv', json: 'json', parquet: 'parquet', pq: 'parquet' };

/**
 * The format from the part's Content-Type, else the file extension (.csv, .json, .parquet). Generic types
 * browsers and curl send for any file (application/octet-stream, text/plain) defer to the name.
 */
export function detectFormat(contentType: string | undefined, filename: string | undefined): DatasetFormat | null {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type in BY_TYPE) return BY_TYPE[type];
  const extension = /\.([a-z0-9]+)$/i.exec(filename ?? '')?.[1]?.toLowerCase();
  return extension && extension in BY_EXTENSION ? BY_EXTENSION[extension] : null;
}
