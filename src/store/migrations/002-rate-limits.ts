import type { Knex } from 'knex';

/**
 * Rate-limit counters shared by every API node, in the layout rate-limiter-flexible's Postgres
 * store expects (it updates them with one atomic upsert per request, so concurrent nodes count
 * exactly). Created here rather than by the library so that no API node races to create it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rate_limits');
}
