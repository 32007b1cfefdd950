import type { Knex } from 'knex';

/**
 * The GPU a worker's engine steps run on (webgpu), as its adapter describes itself: `{vendor,
 * architecture, device, description, software}`; null on the CPU backends and until the first step.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workers', (t) => {
    t.jsonb('tensor_device');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('workers', (t) => {
    t.dropColumn('tensor_device');
  });
}
