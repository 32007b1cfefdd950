import type { Knex } from 'knex';

/**
 * The latest model report of each campaign (engine/diagnostics): a worker writes it beside the
 * loop after an iteration; GET /v1/campaigns/{id}/model reads it. Kept apart from `campaigns`
 * because it runs to a hundred kilobytes and no campaign listing needs it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('campaign_model_reports', (t) => {
    t.string('campaign_id').primary().references('campaigns.id').onDelete('CASCADE');
    t.string('organization_id').notNullable();
    t.integer('iteration').notNullable();
    t.jsonb('report').notNullable();
    t.timestamp('computed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('campaign_model_reports');
}
