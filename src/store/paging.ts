import type { Knex } from 'knex';

export interface PageRequest {
  sort: { column: string; descending: boolean };
  page: number;
  perPage: number;
}

/**
 * One page of a filtered query and the filter's total, for the lists' `meta`. Ties on the sort
 * column are broken by id so that pages never overlap or skip a row.
 */
export async function pageOf<T>(query: Knex.QueryBuilder, request: PageRequest): Promise<{ rows: T[]; total: number }> {
  const [{ count }] = (await query.clone().count({ count: '*' })) as [{ count: number }];
  const rows = (await query
    .clone()
    .select('*')
    .orderBy([
      { column: request.sort.column, order: request.sort.descending ? 'desc' : 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(request.perPage)
    .offset((request.page - 1) * request.perPage)) as T[];
  return { rows, total: Number(count) };
}
