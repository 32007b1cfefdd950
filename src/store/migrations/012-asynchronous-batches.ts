import type { Knex } from 'knex';

/**
 * Asynchronous batches of an external campaign. `candidates_requested`: how many candidates a
 * client asked to have waiting for results (GET candidates?count=N) that the job has still to
 * propose, beside those pending; 0 when nothing is asked. `batch_deadlines`: per pending
 * iteration (its number as the key), when its candidates without a result are abandoned
 * (optimizer.batch_deadline_hours), as an ISO timestamp.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.integer('candidates_requested').notNullable().defaultTo(0);
    t.jsonb('batch_deadlines').notNullable().defaultTo('{}');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropColumn('candidates_requested');
    t.dropColumn('batch_deadlines');
  });
}
