import type { Knex } from 'knex';

const PREFIX = 'abandoned: ';

/**
 * An abandoned candidate is marked by its `abandoned` flag alone; its error text is the reason as
 * given. Rows written before kept the reason behind an `abandoned: ` prefix as well: this removes
 * it from evaluations, posted results and both sides of every correction.
 */
export async function up(knex: Knex): Promise<void> {
  const start = PREFIX.length + 1;
  for (const table of ['evaluations', 'external_results']) {
    await knex.raw(`update ?? set error = substr(error, ${start}) where abandoned and left(error, ?) = ?`, [table, PREFIX.length, PREFIX]);
  }
  for (const side of ['previous', 'corrected']) {
    await knex.raw(
      `update evaluation_corrections set ?? = jsonb_set(??, '{error}', to_jsonb(substr(?? ->> 'error', ${start})))
       where (?? ->> 'abandoned')::boolean and left(?? ->> 'error', ?) = ?`,
      [side, side, side, side, side, PREFIX.length, PREFIX],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['evaluations', 'external_results']) {
    await knex.raw(`update ?? set error = ? || coalesce(error, '') where abandoned`, [table, PREFIX]);
  }
  for (const side of ['previous', 'corrected']) {
    await knex.raw(
      `update evaluation_corrections set ?? = jsonb_set(??, '{error}', to_jsonb(? || coalesce(?? ->> 'error', ''))) where (?? ->> 'abandoned')::boolean`,
      [side, side, PREFIX, side, side],
    );
  }
}
