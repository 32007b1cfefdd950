import type { Executor } from './db.js';

export interface OrganizationRow {
  id: string;
  name: string;
  plan: string;
  created_at: Date;
}

export async function ensureOrganization(db: Executor, row: Pick<OrganizationRow, 'id' | 'name' | 'plan'>): Promise<void> {
  await db('organizations').insert(row).onConflict('id').ignore();
}

export async function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  return db('organizations').where({ id }).first();
}
