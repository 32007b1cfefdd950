import { stringify } from 'yaml';
import { checkMdl } from './mdl-check.js';
import type { Mdl } from '../engine/mdl/schema.js';
import { KilnError } from '../errors.js';
import { newId } from '../ids.js';
import type { Db } from '../store/db.js';
import {
  deleteTemplate,
  findCustomTemplate,
  insertTemplate,
  listCustomTemplates,
  slugTaken,
  type TemplateRow,
  type TemplateViewer,
} from '../store/templates.js';
import type { Template } from './builtin-templates.js';
import { hasScope, type Principal } from './principal.js';
import { invalidState, notFound, validationFailed, type FieldError } from './validation.js';

export interface TemplateQuery {
  domain?: string;
  search?: string;
  page: number;
  perPage: number;
}

export interface NewTemplate {
  name: string;
  description: string;
  mdl: unknown;
  visibility: 'private' | 'team';
}

function viewer(principal: Principal): TemplateViewer {
  return { organizationId: principal.organizationId, creator: principal.keyId, admin: hasScope(principal, 'admin') };
}

function fromRow(row: TemplateRow): Template {
  return { ...row, builtin: false, organization_id: row.organization_id, created_by: row.created_by, created_at: row.created_at };
}

/** Whether `principal` may delete `t`: a custom template, by its creator or an admin (as remove() checks). */
function deletableBy(t: Template, principal: Principal): boolean {
  return !t.builtin && (t.created_by === principal.keyId || hasScope(principal, 'admin'));
}

export function templateListItem(t: Template, principal: Principal) {
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    domain: t.domain,
    description: t.description,
    parameters_count: t.mdl.parameters.length,
    objectives_count: t.mdl.objectives.length,
    default_budget: t.mdl.optimizer.budget,
    tags: t.tags,
    visibility: t.visibility,
    builtin: t.builtin,
    can_delete: deletableBy(t, principal),
  };
}

export function templateDetail(t: Template, principal: Principal) {
  return { ...templateListItem(t, principal), created_at: t.created_at ? t.created_at.toISOString() : null, mdl: t.mdl };
}

/** The template as a material.yaml document: its MDL, in YAML. */
export function templateYaml(t: Template): string {
  return stringify(t.mdl, { lineWidth: 100 });
}

/**
 * Templates: the built-in ones (shipped YAML, visible to everyone) and an organization's custom
 * ones (rows; `team` for all its members, `private` for their creator and its admins).
 */
export class TemplateCatalog {
  constructor(
    private readonly db: Db,
    private readonly builtins: readonly Template[],
  ) {}

  async list(principal: Principal, query: TemplateQuery): Promise<{ data: ReturnType<typeof templateListItem>[]; total: number }> {
    const search = query.search?.toLowerCase();
    const builtins = this.builtins.filter(
      (t) => (!query.domain || t.domain === query.domain) && (!search || t.name.toLowerCase().includes(search) || t.description.toLowerCase().includes(search)),
    );
    const custom = (await listCustomTemplates(this.db, viewer(principal), { domain: query.domain, search: query.search })).map(fromRow);
    const all = [...builtins, ...custom];
    const start = (query.page - 1) * query.perPage;
    return { data: all.slice(start, start + query.perPage).map((t) => templateListItem(t, principal)), total: all.length };
  }

  /** A template by id or slug, if the caller may see it. */
  async find(principal: Principal, idOrSlug: string): Promise<Template | null> {
    const builtin = this.builtins.find((t) => t.id === idOrSlug || t.slug === idOrSlug);
    if (builtin) return builtin;
    const row = await findCustomTemplate(this.db, viewer(principal), idOrSlug);
    return row ? fromRow(row) : null;
  }

  async get(principal: Principal, idOrSlug: string): Promise<Template> {
    const template = await this.find(principal, idOrSlug);
    if (!template) throw notFound('template', idOrSlug);
    return template;
  }

  async create(principal: Principal, input: NewTemplate): Promise<Template> {
    const errors: FieldError[] = [];
    const result = await checkMdl({ document: input.mdl }, 'mdl');
    if (!result.ok) for (const e of result.errors) errors.push({ path: e.path ? `mdl.${e.path}` : 'mdl', message: e.message });
    const mdl: Mdl | null = result.ok ? result.mdl : null;
    if (mdl && !mdl.domain) errors.push({ path: 'mdl.domain', message: 'is required: a template belongs to a domain, e.g. water or battery' });
    const kebab = input.name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    if (!kebab) errors.push({ path: 'name', message: 'needs at least one letter or digit (it makes the slug)' });
    if (errors.length > 0 || !mdl) throw validationFailed(errors);
    const slug = `${mdl.domain}/${kebab}`;
    const taken = () =>
      validationFailed([{ path: 'name', message: `the slug ${slug} is already used by a built-in, team or your own template; choose another name` }]);
    if (this.builtins.some((t) => t.slug === slug) || (await slugTaken(this.db, principal.organizationId, principal.keyId, slug))) throw taken();
    const row = await insertTemplate(this.db, {
      id: newId('tmpl_'),
      organization_id: principal.organizationId,
      created_by: principal.keyId,
      slug,
      name: input.name,
      domain: mdl.domain!,
      description: input.description,
      tags: mdl.tags ?? [],
      mdl,
      visibility: input.visibility,
    }).catch((error: unknown) => {
      // a concurrent creation took the slug between the check and the insert
      if ((error as { code?: string }).code === '23505') throw taken();
      throw error;
    });
    return fromRow(row);
  }

  async remove(principal: Principal, idOrSlug: string): Promise<{ id: string; deleted: true }> {
    const template = await this.get(principal, idOrSlug);
    if (template.builtin) throw invalidState(`${template.slug} is a built-in template; built-in templates cannot be deleted.`, 'builtin');
    if (template.created_by !== principal.keyId && !hasScope(principal, 'admin')) {
      throw new KilnError('INSUFFICIENT_SCOPE', "Only the template's creator or an admin can delete it.", { required_scope: 'admin' });
    }
    await deleteTemplate(this.db, template.id);
    return { id: template.id, deleted: true };
  }
}
