import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { formatIssue, parseMdl } from '../engine/mdl/parse.js';
import { builtinEvaluators } from '../engine/problems/registry.js';
import type { Mdl } from '../engine/mdl/schema.js';

/** A template as the service keeps it, built-in or custom. */
export interface Template {
  id: string;
  slug: string;
  name: string;
  domain: string;
  description: string;
  tags: string[];
  mdl: Mdl;
  builtin: boolean;
  visibility: 'public' | 'private' | 'team';
  organization_id: string | null;
  created_by: string | null;
  created_at: Date | null;
}

/** Built-in ids are derived from the slug, so every node and every restart agrees on them. */
export function builtinTemplateId(slug: string): string {
  const digest = createHash('sha256').update(`kiln-template:${slug}`).digest();
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  return `tmpl_${Array.from(digest.subarray(0, 20), (b) => alphabet[b & 31]).join('')}`;
}

/**
 * The built-in templates: every `<domain>/<name>.yaml` under `dir`, with slug `<domain>/<name>`.
 * A template that does not validate, or whose domain is not its folder, stops the start: it is a
 * defect of the release, not of a user's input.
 */
export function loadBuiltinTemplates(dir: string): Template[] {
  const templates: Template[] = [];
  for (const domain of readdirSync(dir).sort()) {
    if (!statSync(join(dir, domain)).isDirectory()) continue;
    for (const file of readdirSync(join(dir, domain))
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      const path = join(dir, domain, file);
      const parsed = parseMdl(readFileSync(path, 'utf8'), 'yaml', { builtins: builtinEvaluators });
      if (!parsed.ok) {
        throw new Error(`Built-in template ${relative(dir, path)} is not valid:\n${parsed.errors.map((e) => `  ${formatIssue(e)}`).join('\n')}`);
      }
      const mdl = parsed.mdl;
      if (mdl.domain !== domain) throw new Error(`Built-in template ${relative(dir, path)} declares domain ${mdl.domain} but sits in ${domain}/.`);
      const slug = `${domain}/${basename(file).replace(/\.ya?ml$/, '')}`;
      templates.push({
        id: builtinTemplateId(slug),
        slug,
        name: mdl.name ?? slug,
        domain,
        description: mdl.description ?? '',
        tags: mdl.tags ?? [],
        mdl,
        builtin: true,
        visibility: 'public',
        organization_id: null,
        created_by: null,
        created_at: null,
      });
    }
  }
  return templates;
}
