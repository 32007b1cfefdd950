import type { Mdl } from '../engine/mdl/schema.js';
import type { Executor } from './db.js';

export interface TemplateRow {
  id: string;
  organization_id: string;
  created_by: string;
  slug: string;
  name: string;
  domain: string;
  description: string;
  tags: string[];
  mdl: Mdl;
  visibility: 'private' | 'team';
  created_at: Date;
}

/** Whose custom templates a caller sees: the team ones of its organization, and its own private ones (all of them for an admin). */
export interface TemplateViewer {
  organizationId: string;
  creator: string;
  admin: boolean;
}

// a grouping callback builds on q; q is a thenable query, so its value is voided, not awaited
function visibleTo(db: Executor, viewer: TemplateViewer) {
  const query = db('templates').where({ organization_id: viewer.organizationId });
  if (!viewer.admin) query.andWhere((q) => void q.where({ visibility: 'team' }).orWhere({ created_by: viewer.creator }));
  return query;
}

export async function listCustomTemplates(db: Executor, viewer: TemplateViewer, filter: { domain?: string; search?: string }): Promise<TemplateRow[]> {
  const query = visibleTo(db, viewer);
  if (filter.domain) query.andWhere({ domain: filter.domain });
  if (filter.search) {
    const like = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.andWhere((q) => void q.whereILike('name', like).orWhereILike('description', like));
  }
  return query.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(1000);
}

export async function findCustomTemplate(db: Executor, viewer: TemplateViewer, idOrSlug: string): Promise<TemplateRow | undefined> {
  return visibleTo(db, viewer)
    .andWhere((q) => void q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
    .first();
}

export async function slugTaken(db: Executor, organizationId: string, slug: string): Promise<boolean> {
  return (await db('templates').where({ organization_id: organizationId, slug }).first('id')) !== undefined;
}

export async function insertTemplate(db: Executor, row: Omit<TemplateRow, 'created_at'>): Promise<TemplateRow> {
  const [created] = await db('templates')
    .insert({ ...row, tags: JSON.stringify(row.tags), mdl: JSON.stringify(row.mdl) })
    .returning('*');
  return created;
}

export async function deleteTemplate(db: Executor, id: string): Promise<void> {
  await db('templates').where({ id }).delete();
}
