import type { Knex } from 'knex';

/**
 * The service's tables. Every row carries `organization_id`, so tenant isolation is a WHERE
 * clause on every query from the first release on. Engine state that is not a table of its own
 * (pending candidates, fitted hyperparameters, the reference point) lives in
 * `campaigns.engine_state` as JSON; evaluations and iterations are rows, so results are queries.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.text('id').primary();
    t.text('name').notNullable();
    t.text('plan').notNullable().defaultTo('free');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('key_prefix').notNullable();
    t.text('key_hash').notNullable().unique();
    t.jsonb('scopes').notNullable();
    t.jsonb('allowed_ips').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.bigInteger('request_count').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('campaigns', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('domain').notNullable();
    t.text('status').notNullable();
    t.jsonb('mdl').notNullable();
    t.integer('seed').notNullable();
    t.integer('budget').notNullable();
    t.integer('parameters_count').notNullable();
    t.integer('objectives_count').notNullable();
    t.integer('evaluations_completed').notNullable().defaultTo(0);
    t.integer('current_iteration').notNullable().defaultTo(0);
    t.double('hypervolume').notNullable().defaultTo(0);
    t.integer('pareto_size').notNullable().defaultTo(0);
    t.jsonb('best_objectives').notNullable().defaultTo('{}');
    t.jsonb('engine_state');
    t.text('dataset_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['organization_id', 'created_at']);
    t.index(['organization_id', 'status']);
  });

  await knex.schema.createTable('evaluations', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable();
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    t.integer('iteration').notNullable();
    t.jsonb('parameters').notNullable();
    t.jsonb('objectives');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['campaign_id', 'position']);
  });

  await knex.schema.createTable('campaign_iterations', (t) => {
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.integer('iteration').notNullable();
    t.text('organization_id').notNullable();
    t.text('job_id');
    t.double('hypervolume').notNullable();
    t.integer('pareto_size').notNullable();
    t.integer('evaluated').notNullable();
    t.integer('failed').notNullable();
    t.text('strategy').notNullable();
    t.double('propose_seconds').notNullable();
    t.double('evaluate_seconds').notNullable();
    t.double('store_seconds').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['campaign_id', 'iteration']);
  });

  await knex.schema.createTable('jobs', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable();
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('status').notNullable();
    t.integer('attempt').notNullable().defaultTo(0);
    t.text('worker_id');
    t.timestamp('lease_expires_at', { useTz: true });
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    t.double('timeout_seconds').notNullable();
    t.text('retry_of');
    t.text('phase').notNullable().defaultTo('queued');
    t.jsonb('progress').notNullable().defaultTo('{}');
    t.integer('iterations_run').notNullable().defaultTo(0);
    t.double('iteration_seconds_total').notNullable().defaultTo(0);
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['status', 'created_at']);
    t.index(['organization_id', 'created_at']);
    t.index(['campaign_id']);
  });

  await knex.schema.createTable('job_logs', (t) => {
    t.bigIncrements('id');
    t.text('job_id').notNullable().references('jobs.id').onDelete('CASCADE');
    t.text('organization_id').notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.text('level').notNullable();
    t.text('message').notNullable();
    t.index(['job_id', 'id']);
  });

  await knex.schema.createTable('external_results', (t) => {
    t.text('campaign_id').notNullable().references('campaigns.id').onDelete('CASCADE');
    t.text('candidate_id').notNullable();
    t.text('organization_id').notNullable();
    t.jsonb('objectives');
    t.text('error');
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['campaign_id', 'candidate_id']);
  });

  await knex.schema.createTable('workers', (t) => {
    t.text('id').primary();
    t.text('hostname').notNullable();
    t.integer('pid').notNullable();
    t.integer('slots').notNullable();
    t.text('tensor_backend');
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('stopped_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['workers', 'external_results', 'job_logs', 'jobs', 'campaign_iterations', 'evaluations', 'campaigns', 'api_keys', 'organizations']) {
    await knex.schema.dropTableIfExists(table);
  }
}
