import type { Knex } from 'knex';

/**
 * A job of an external campaign that waits for results holds no worker: it is `waiting`, with no
 * worker and no lease, until the results of its batch arrive and put it back in the queue. The
 * time it waited is kept apart so the job timeout measures the optimizer's own compute; claims
 * that take up a job after a wait are counted apart from claims after a worker died, so waits do
 * not use up the attempts a job gets; the queue is ordered by when a job last entered it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.timestamp('waiting_since', { useTz: true });
    t.double('waited_seconds').notNullable().defaultTo(0);
    t.integer('resumes').notNullable().defaultTo(0);
    t.integer('pending_results');
    t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('update jobs set queued_at = created_at');
  await knex.schema.alterTable('jobs', (t) => t.index(['status', 'queued_at']));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropIndex(['status', 'queued_at']);
    t.dropColumn('waiting_since');
    t.dropColumn('waited_seconds');
    t.dropColumn('resumes');
    t.dropColumn('pending_results');
    t.dropColumn('queued_at');
  });
}
