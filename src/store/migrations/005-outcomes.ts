import type { Knex } from 'knex';

/**
 * Measured outcomes (MDL `outcomes`, for outcome constraints) beside the objectives of an
 * evaluation and of a result posted for an external campaign; null where a campaign has none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('evaluations', (t) => t.jsonb('outcomes'));
  await knex.schema.alterTable('external_results', (t) => t.jsonb('outcomes'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('external_results', (t) => t.dropColumn('outcomes'));
  await knex.schema.alterTable('evaluations', (t) => t.dropColumn('outcomes'));
}
