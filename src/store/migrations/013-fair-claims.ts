import type { Knex } from 'knex';

/**
 * Organizations take turns for a free worker slot. `claimed_at`: when a worker last took the job
 * up (every claim, a resume after a wait for results too); an organization's latest is when it was
 * last served, the claim order's tie-break after the running count (store/jobs.ts claimNextJob).
 * Started jobs count as served when they started; the index makes "latest per organization" one
 * index probe.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.timestamp('claimed_at', { useTz: true });
  });
  await knex('jobs').update({ claimed_at: knex.ref('started_at') });
  await knex.schema.alterTable('jobs', (t) => {
    t.index(['organization_id', 'claimed_at'], 'jobs_organization_claimed_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('jobs', (t) => {
    t.dropIndex(['organization_id', 'claimed_at'], 'jobs_organization_claimed_at');
    t.dropColumn('claimed_at');
  });
}
