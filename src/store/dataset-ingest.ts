import pg from 'pg';
import type { DatasetRow, Row } from './datasets.js';

/**
 * The writes of an ingest thread: a dataset and its rows on the thread's own connection, in ONE
 * transaction, so that a file that fails leaves nothing behind. Plain pg rather than knex: a
 * thread needs one connection, not a pool, and the rows go in as one JSON array per batch.
 */
export class DatasetIngest {
  private constructor(private readonly client: pg.Client) {}

  /**
   * Runs `work` in a transaction on a new connection; commits when `keep` says so of its result,
   * rolls back otherwise and on any error.
   */
  static async run<T>(databaseUrl: string, work: (ingest: DatasetIngest) => Promise<T>, keep: (result: T) => boolean): Promise<T> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      const result = await work(new DatasetIngest(client));
      await client.query(keep(result) ? 'commit' : 'rollback');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The dataset row, empty until `complete` fills in what reading the file found. */
  async insertDataset(dataset: Pick<DatasetRow, 'id' | 'organization_id' | 'name' | 'description' | 'format' | 'size_bytes' | 'mdl'>): Promise<void> {
    await this.client.query(
      `insert into datasets (id, organization_id, name, description, format, rows, columns, size_bytes, mdl)
       values ($1, $2, $3, $4, $5, 0, '[]', $6, $7)`,
      [
        dataset.id,
        dataset.organization_id,
        dataset.name,
        dataset.description,
        dataset.format,
        dataset.size_bytes,
        dataset.mdl ? JSON.stringify(dataset.mdl) : null,
      ],
    );
  }

  /** A batch of rows numbered from `after` + 1; the caller may parse the next batch while this one is stored. */
  insertRows(datasetId: string, after: number, rows: readonly Row[]): Promise<unknown> {
    return this.client.query(
      `insert into dataset_rows (dataset_id, row_number, data)
       select $1, (t.ordinality + $2)::int, t.value from jsonb_array_elements($3::jsonb) with ordinality as t(value, ordinality)`,
      [datasetId, after, JSON.stringify(rows)],
    );
  }

  async complete(datasetId: string, summary: Pick<DatasetRow, 'rows' | 'columns' | 'warnings' | 'flagged_rows'>): Promise<void> {
    await this.client.query('update datasets set rows = $2, columns = $3, warnings = $4, flagged_rows = $5 where id = $1', [
      datasetId,
      summary.rows,
      JSON.stringify(summary.columns),
      JSON.stringify(summary.warnings),
      JSON.stringify(summary.flagged_rows),
    ]);
  }
}
