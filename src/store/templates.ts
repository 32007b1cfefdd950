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

/**
 * A template by id or slug. Slugs are unique per owner (see slugTaken), so a slug can name several
 * templates the viewer sees: its own private one first, then the team's, then (for an admin)
 * another member's private one, oldest first.
 */
export async function findCustomTemplate(db: Executor, viewer: TemplateViewer, idOrSlug: string): Promise<TemplateRow | undefined> {
  return visibleTo(db, viewer)
    .andWhere((q) => void q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
    .orderByRaw(`case when created_by = ? and visibility = 'private' then 0 when visibility = 'team' then 1 else 2 end, created_at, id`, [viewer.creator])
    .first();
}

/**
 * Whether `slug` is taken for a new template of `creator`: by a team template of the
 * organization or by one of the creator's own private ones. Other members' private templates
 * do not count, so the answer never reveals them.
 */
export async function slugTaken(db: Executor, organizationId: string, creator: string, slug: string): Promise<boolean> {
  const taken = await db('templates')
    .where({ organization_id: organizationId, slug })
    .andWhere((q) => void q.where({ visibility: 'team' }).orWhere({ created_by: creator, visibility: 'private' }))
    .first('id');
  return taken !== undefined;
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
