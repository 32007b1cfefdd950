import type { Knex } from 'knex';

/**
 * Results entered by people: an evaluation may keep the id it had in a warm start's data, or be an
 * off-plan experiment (posted with its own parameters); a candidate may be abandoned (never measured), on a posted result
 * and on the evaluation it becomes; a measured value may be corrected, and every correction is
 * kept with the values it replaced, who made it and when, so the old value stays visible.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('evaluations', (t) => {
    t.boolean('abandoned').notNullable().defaultTo(false);
    // a warm-start row's own id (its sample id), kept from the dataset's id column
    t.text('external_id');
    t.boolean('off_plan').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('external_results', (t) => {
    t.boolean('abandoned').notNullable().defaultTo(false);
    // an off-plan experiment's own inputs; null for a result of a proposed candidate
    t.jsonb('parameters');
  });
  await knex.schema.createTable('evaluation_corrections', (t) => {
    t.bigIncrements('id');
    t.text('organization_id').notNullable();
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('evaluation_id').notNullable();
    t.jsonb('previous').notNullable();
    t.jsonb('corrected').notNullable();
    t.text('reason');
    t.text('corrected_by').notNullable();
    t.timestamp('corrected_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.index(['campaign_id', 'evaluation_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('evaluation_corrections');
  await knex.schema.alterTable('external_results', (t) => {
    t.dropColumn('abandoned');
    t.dropColumn('parameters');
  });
  await knex.schema.alterTable('evaluations', (t) => {
    t.dropColumn('abandoned');
    t.dropColumn('external_id');
    t.dropColumn('off_plan');
  });
}
