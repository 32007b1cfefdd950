import knex, { type Knex } from 'knex';
import pg from 'pg';

// Postgres bigint (count(*), bigserial) and numeric come back as strings by default; Kiln's
// counts fit in a double, and the API promises numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Db = Knex;
/** A transaction, for the writes that must commit together. */
export type Transaction = Knex.Transaction;
/** Where a query runs: the pool, or the caller's transaction. */
export type Executor = Db | Transaction;
/** Columns a write sets: values, or SQL expressions such as now() or attempt + 1. */
export type Patch<Row> = { [K in keyof Row]?: Row[K] | Knex.Raw };

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

/**
 * Lets the caller's transaction commit without waiting for its WAL flush. For writes that only a
 * crash of Postgres itself could lose and that are made again after one: a job's phase changes and
 * its pending batch (the engine proposes the very same batch again from the stored state). A job's
 * iteration results are always committed durably.
 */
export async function relaxedCommit(trx: Transaction): Promise<void> {
  await trx.raw('set local synchronous_commit to off');
}
