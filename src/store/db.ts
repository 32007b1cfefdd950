import knex, { type Knex } from 'knex';
import pg from 'pg';

// Postgres bigint (count(*), bigserial) and numeric come back as strings by default; Kiln's
// counts fit in a double, and the API promises numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;

export interface DbOptions {
  url: string;
  /** pool size; the API and each supervisor keep their own pool */
  maxConnections?: number;
}

/** A knex instance on Postgres; the one way the service reaches its database. */
export function createDb(options: DbOptions): Db {
  return knex({
    client: 'pg',
    connection: options.url,
    pool: { min: 0, max: options.maxConnections ?? 10 },
    acquireConnectionTimeout: 10_000,
  });
}

/** Whether the database answers, for the health report. */
export async function databaseReachable(db: Db): Promise<boolean> {
  try {
    await db.raw('select 1');
    return true;
  } catch {
    return false;
  }
}
