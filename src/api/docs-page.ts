type Json = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * The /docs page: a readable rendering of the OpenAPI document. Self-contained (inline CSS, no
 * scripts, fonts or CDN) so it works on air-gapped installs and under a strict CSP; every text
 * from the document is escaped, since summaries and descriptions are data, not markup.
 */
export function renderDocsPage(document: Json): string {
  const info = obj(document.info);
  const components = obj(document.components);
  const title = `${str(info.title) || 'API'} ${str(info.version)}`.trim();
  const groups = groupByTag(document);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${esc(title)}</h1></header>
<div class="layout">
<nav aria-label="Contents">
<h2>Contents</h2>
<ul>
<li><a href="#overview">Overview</a></li>
${groups
  .map(
    ([tag, ops]) => `<li><a href="#${anchor('tag', tag)}">${esc(tag)}</a>
<ul>${ops.map((o) => `<li><a href="#${operationAnchor(o)}">${badge(o.method)} ${esc(o.path)}</a></li>`).join('')}</ul></li>`,
  )
  .join('\n')}
<li><a href="#errors">Errors</a></li>
<li><a href="#schemas">Shared schemas</a></li>
</ul>
</nav>
<main>
${overview(info, components)}
${groups.map(([tag, ops]) => `<section id="${anchor('tag', tag)}"><h2>${esc(tag)}</h2>\n${ops.map((o) => operation(o, components)).join('\n')}</section>`).join('\n')}
${errorsSection(components)}
${schemasSection(components)}
</main>
</div>
</body>
</html>
`;
}

function overview(info: Json, components: Json): string {
  const auth = str(obj(obj(components.securitySchemes).bearerAuth).description);
  return `<section id="overview">
<h2>Overview</h2>
${prose(str(info.description))}
<ul>
<li>Every route is under the base path <code>/v1</code>.</li>
<li>Authenticate with <code>Authorization: Bearer &lt;credential&gt;</code>${auth ? ` (${esc(auth)})` : ''}. Each operation names the scope its credential needs.</li>
<li>Successful responses are <code>{"data": ...}</code>. Paged lists add <code>"meta": {"page", "per_page", "total", "total_pages"}</code> and take <code>page</code> (1-based) and <code>per_page</code> (default 20, at most 100).</li>
<li>Errors are <code>{"error": {"code", "message", "details"}}</code> (<code>details</code> optional); see <a href="#errors">Errors</a>.</li>
<li>Every response carries an <code>X-Request-Id</code> header.</li>
</ul>
</section>`;
}

function operation(o: Operation, components: Json): string {
  const { op } = o;
  const scope = str(op['x-required-scope']);
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  const access = scope ? `Required scope: <code>${esc(scope)}</code>` : isPublic ? 'Public: no credentials needed' : 'Any valid credential';
  return `<article id="${operationAnchor(o)}" aria-labelledby="${operationAnchor(o)}-title">
<h3 id="${operationAnchor(o)}-title">${badge(o.method)} <code>${esc(o.path)}</code></h3>
${op.summary ? `<p class="summary">${esc(str(op.summary))}</p>` : ''}
${prose(str(op.description))}
<p class="meta">${access}${op.operationId ? ` · operationId <code>${esc(str(op.operationId))}</code>` : ''}</p>
${parameters(arr(op.parameters))}
${requestBody(obj(op.requestBody))}
${responses(obj(op.responses), components)}
</article>`;
}

function parameters(params: unknown[]): string {
  if (params.length === 0) return '';
  const rows = params.map((raw) => {
    const p = obj(raw);
    return `<tr><td><code>${esc(str(p.name))}</code></td><td>${esc(str(p.in))}</td><td>${esc(typeLabel(obj(p.schema)))}</td><td>${p.required ? 'yes' : 'no'}</td><td>${esc(str(p.description))}</td></tr>`;
  });
  return `<h4>Parameters</h4>
<table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function requestBody(body: Json): string {
  const content = Object.entries(obj(body.content));
  if (content.length === 0) return '';
  return `<h4>Request body${body.required ? '' : ' <span class="note">(optional)</span>'}</h4>
${content.map(([type, media]) => schemaDetails(`${type} schema`, obj(media).schema)).join('\n')}`;
}

function responses(all: Json, components: Json): string {
  const rows = Object.entries(all).map(([status, raw]) => {
    const ref = str(obj(raw).$ref);
    const response = ref ? resolve(components, ref) : obj(raw);
    const headers = Object.keys(obj(response.headers));
    const body = ref
      ? `<a href="#${anchor('response', ref.split('/').pop() ?? '')}">error envelope</a>`
      : Object.entries(obj(response.content))
          .map(([type, media]) => schemaDetails(type, obj(media).schema))
          .join('');
    return `<tr><td>${esc(status)}</td><td>${esc(str(response.description))}</td><td>${body}</td><td>${headers.map((h) => `<code>${esc(h)}</code>`).join(' ')}</td></tr>`;
  });
  return `<h4>Responses</h4>
<table><thead><tr><th scope="col">Status</th><th scope="col">Description</th><th scope="col">Body</th><th scope="col">Headers</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function errorsSection(components: Json): string {
  const rows = Object.entries(obj(components.responses)).map(
    ([name, raw]) => `<tr id="${anchor('response', name)}"><th scope="row">${esc(name)}</th><td>${esc(str(obj(raw).description))}</td></tr>`,
  );
  return `<section id="errors">
<h2>Errors</h2>
<p>Every error has the <a href="#${anchor('schema', 'ErrorEnvelope')}">error envelope</a> body; <code>code</code> is stable and machine-readable, <code>message</code> is a sentence for people.</p>
<table><thead><tr><th scope="col">Response</th><th scope="col">When</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>
</section>`;
}

function schemasSection(components: Json): string {
  const schemas = Object.entries(obj(components.schemas));
  return `<section id="schemas">
<h2>Shared schemas</h2>
${schemas.map(([name, schema]) => `<h3 id="${anchor('schema', name)}">${esc(name)}</h3>\n<pre><code>${esc(JSON.stringify(schema, null, 2))}</code></pre>`).join('\n')}
</section>`;
}

function schemaDetails(label: string, schema: unknown): string {
  if (schema === undefined) return `<p>${esc(label)}</p>`;
  return `<details><summary>${esc(label)}</summary><pre><code>${esc(JSON.stringify(schema, null, 2))}</code></pre></details>`;
}

function groupByTag(document: Json): [string, Operation[]][] {
  const groups = new Map<string, Operation[]>(arr(document.tags).map((t) => [str(obj(t).name), []]));
  for (const [path, item] of Object.entries(obj(document.paths))) {
    for (const method of METHODS) {
      const op = obj(obj(item)[method]);
      if (Object.keys(op).length === 0) continue;
      const tag = str(arr(op.tags)[0]) || 'Other';
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, op });
    }
  }
  return [...groups].filter(([, ops]) => ops.length > 0);
}

function typeLabel(schema: Json): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : str(schema.type) || 'any';
  return schema.format ? `${type} (${str(schema.format)})` : type;
}

/** Follows a local `#/components/...` reference; anything else reads as empty. */
function resolve(components: Json, ref: string): Json {
  const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
  return section ? obj(obj(components[section])[name]) : {};
}

/** Blank-line separated paragraphs; `backticks` become code (after escaping, so they add no markup of their own). */
function prose(text: string): string {
  return text
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p) => `<p>${esc(p.trim()).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('\n');
}

function badge(method: string): string {
  return `<span class="method method-${esc(method)}">${esc(method.toUpperCase())}</span>`;
}

function operationAnchor(o: Operation): string {
  return anchor('op', str(o.op.operationId) || `${o.method}-${o.path}`);
}

function anchor(kind: string, name: string): string {
  return `${kind}-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function obj(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

// Colors keep at least 4.5:1 contrast (WCAG AA) for text on their backgrounds.
const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; background: #fff; }
header { padding: 1rem 1.5rem; background: #1b2a41; color: #fff; }
header h1 { margin: 0; font-size: 1.5rem; }
.layout { display: flex; align-items: flex-start; }
nav { position: sticky; top: 0; width: 20rem; max-height: 100vh; overflow: auto; padding: 1rem; border-right: 1px solid #d0d7de; font-size: 0.9rem; }
nav ul { list-style: none; padding-left: 0.75rem; margin: 0.25rem 0; }
nav a { color: #0b4f9c; text-decoration: none; }
nav a:hover, nav a:focus { text-decoration: underline; }
main { flex: 1; min-width: 0; padding: 1rem 2rem 3rem; }
a { color: #0b4f9c; }
section > h2 { border-bottom: 2px solid #d0d7de; padding-bottom: 0.25rem; margin-top: 2.5rem; }
article { border: 1px solid #d0d7de; border-radius: 6px; padding: 0 1rem 1rem; margin: 1.5rem 0; }
article h3 { font-size: 1.15rem; display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
.summary { font-weight: 600; }
.meta, .note { color: #4a5460; font-size: 0.9rem; }
.method { display: inline-block; min-width: 4.2em; padding: 0.1em 0.45em; border-radius: 4px; font: 700 0.8rem/1.4 ui-monospace, Menlo, Consolas, monospace; text-align: center; color: #fff; background: #4a5460; }
.method-get { background: #0b5cad; }
.method-post { background: #1e6b34; }
.method-put, .method-patch { background: #8a4b00; }
.method-delete { background: #b3261e; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.875rem; }
code { background: #f1f3f5; padding: 0.05em 0.3em; border-radius: 3px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 0.75rem; overflow: auto; max-height: 32rem; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; }
thead th { background: #f1f3f5; }
details summary { cursor: pointer; color: #0b4f9c; }
@media (max-width: 900px) { .layout { display: block; } nav { position: static; width: auto; max-height: none; border-right: 0; } }
`;
