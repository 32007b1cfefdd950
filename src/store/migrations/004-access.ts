import type { Knex } from 'knex';

/**
 * Users (signed in through a social provider), revoked JWT ids (refresh retires the old token),
 * and one-time sign-in codes handed to a client's callback after the provider round trip.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.text('id').primary();
    t.text('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('email').notNullable().unique();
    t.text('name').notNullable();
    t.text('role').notNullable().defaultTo('member');
    t.text('provider').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_login_at', { useTz: true });
  });
  await knex.schema.createTable('revoked_tokens', (t) => {
    t.text('jti').primary();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('login_codes', (t) => {
    t.text('code_hash').primary();
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('provider').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
  await knex.schema.createTable('login_states', (t) => {
    t.text('state').primary();
    t.text('provider').notNullable();
    t.text('code_verifier').notNullable();
    t.text('nonce').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['login_states', 'login_codes', 'revoked_tokens', 'users']) await knex.schema.dropTableIfExists(table);
}
