import type { Knex } from 'knex';

/** A queued job is not claimed before `available_at` (the backoff after its worker died); null: at once. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => t.timestamp('available_at', { useTz: true }));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => t.dropColumn('available_at'));
}
