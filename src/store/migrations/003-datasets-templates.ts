import type { Knex } from 'knex';

/**
 * Datasets keep their rows in Postgres (one JSON object per row), so any worker host can read
 * them and a campaign's warm start copies them in one statement; custom templates are rows too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('datasets', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('format').notNullable();
    t.integer('rows').notNullable();
    t.jsonb('columns').notNullable();
    t.bigInteger('size_bytes').notNullable();
    /** the MDL the upload was validated against, if one was linked */
    t.jsonb('mdl');
    t.jsonb('warnings').notNullable().defaultTo('[]');
    t.jsonb('flagged_rows').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'created_at']);
  });
  await knex.schema.createTable('dataset_rows', (t) => {
    t.text('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.integer('row_number').notNullable();
    t.jsonb('data').notNullable();
    t.primary(['dataset_id', 'row_number']);
  });
  await knex.schema.createTable('templates', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('created_by').notNullable();
    t.text('slug').notNullable();
    t.text('name').notNullable();
    t.text('domain').notNullable();
    t.text('description').notNullable();
    t.jsonb('tags').notNullable().defaultTo('[]');
    t.jsonb('mdl').notNullable();
    t.text('visibility').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['organization_id', 'slug']);
  });
  await knex.schema.alterTable('campaigns', (t) => {
    /** where the warm-start rows came from, with the dataset's warnings and flagged rows */
    t.jsonb('warm_start');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaigns', (t) => t.dropColumn('warm_start'));
  for (const table of ['templates', 'dataset_rows', 'datasets']) await knex.schema.dropTableIfExists(table);
}
