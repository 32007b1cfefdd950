import { z } from 'zod';
import { mdlSchema } from '../../engine/mdl/schema.js';
import { templateDetail, templateYaml, type TemplateCatalog } from '../../service/templates.js';
import { pageMeta, paging, type RouteTable } from '../route.js';
import { pageQuery, templateDetailSchema, templateListItemSchema } from '../schemas.js';

const tag = 'Templates';

const createBody = z.strictObject({
  name: z.string().min(1).max(200),
  description: z.string().max(10_000).default(''),
  // validated by validateMdl (built on mdlSchema), which reports semantic problems too
  mdl: z.unknown(),
  visibility: z.enum(['private', 'team']).default('private'),
});

export function templateRoutes(table: RouteTable, templates: TemplateCatalog): void {
  table.add({
    method: 'get',
    path: '/templates',
    operationId: 'listTemplates',
    guests: true,
    tag,
    summary: "List templates (built-in and your organization's)",
    scope: 'templates:read',
    query: z.object({
      domain: z.string().max(64).optional(),
      search: z.string().max(200).optional().describe('matched against name and description, case-insensitive'),
      ...pageQuery,
    }),
    responses: { 200: { description: 'a page of templates', data: templateListItemSchema, list: true } },
    handle: async ({ query, principal }) => {
      const { page, perPage } = paging(query);
      const { data, total } = await templates.list(principal, { domain: query.domain, search: query.search, page, perPage });
      return { data, meta: pageMeta(page, perPage, total) };
    },
  });

  table.add({
    method: 'get',
    path: '/templates/{template_id}',
    operationId: 'getTemplate',
    guests: true,
    tag,
    summary: 'Template detail with its full MDL (id or slug)',
    scope: 'templates:read',
    responses: { 200: { description: 'the template', data: templateDetailSchema } },
    handle: async ({ params, principal }) => ({ data: templateDetail(await templates.get(principal, params.template_id), principal) }),
  });

  table.add({
    method: 'get',
    path: '/templates/{template_id}/download',
    operationId: 'downloadTemplate',
    tag,
    summary: "The template's MDL as material.yaml",
    scope: 'templates:read',
    responses: { 200: { description: 'YAML attachment', content: 'application/yaml' } },
    handle: async ({ ctx, params, principal }) => {
      const template = await templates.get(principal, params.template_id);
      ctx.status = 200;
      ctx.type = 'application/yaml; charset=utf-8';
      ctx.set('Content-Disposition', 'attachment; filename="material.yaml"');
      ctx.body = templateYaml(template);
    },
  });

  table.add({
    method: 'post',
    path: '/templates',
    operationId: 'createTemplate',
    tag,
    summary: 'Create a custom template',
    description:
      "The slug is <mdl.domain>/<kebab-case name>, unique per owner: among the built-ins, the team templates and your own private ones (another member's private template of the same name is neither revealed nor in the way; a slug lookup prefers your own, then the team's). visibility: private (its creator) or team (the organization).",
    scope: 'templates:write',
    body: createBody,
    bodyDoc: createBody.extend({ mdl: mdlSchema }),
    responses: { 201: { description: 'created', data: templateDetailSchema } },
    handle: async ({ body, principal }) => ({ status: 201, data: templateDetail(await templates.create(principal, body), principal) }),
  });

  table.add({
    method: 'delete',
    path: '/templates/{template_id}',
    operationId: 'deleteTemplate',
    tag,
    summary: 'Delete a custom template (its creator or an admin); built-ins are 409',
    scope: 'templates:write',
    responses: { 200: { description: 'deleted', data: z.object({ id: z.string(), deleted: z.literal(true) }) } },
    handle: async ({ params, principal }) => ({ data: await templates.remove(principal, params.template_id) }),
  });
}
