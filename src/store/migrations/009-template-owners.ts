import type { Knex } from 'knex';

/**
 * Template ownership and slugs, per owner. A JWT now acts as the key (or user) it was minted
 * for, so templates its tokens created (`created_by` = `jwt:<key or user>`) pass to that owner.
 * Slugs: a private template's slug is unique among its owner's private templates, a team
 * template's among the organization's team templates, so creating a template never reveals
 * that another member holds a private one of the same name.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`update templates set created_by = substr(created_by, 5) where created_by like 'jwt:%'`);
  await knex.schema.alterTable('templates', (t) => {
    t.dropUnique(['organization_id', 'slug']);
  });
  await knex.raw(`create unique index templates_team_slug on templates (organization_id, slug) where visibility = 'team'`);
  await knex.raw(`create unique index templates_private_slug on templates (organization_id, created_by, slug) where visibility = 'private'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index templates_private_slug');
  await knex.raw('drop index templates_team_slug');
  await knex.schema.alterTable('templates', (t) => {
    t.unique(['organization_id', 'slug']);
  });
}
