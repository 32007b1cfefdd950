import type { Knex } from 'knex';

/**
 * The reproducibility receipt of each iteration (engine/campaign/receipt.ts): what proposed its
 * batch (version, backend, seeds, strategy, acquisition, hashes of the data and the state), so
 * `kiln replay` can propose it again. Null for iterations stored before receipts existed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaign_iterations', (t) => {
    t.jsonb('receipt').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('campaign_iterations', (t) => {
    t.dropColumn('receipt');
  });
}
