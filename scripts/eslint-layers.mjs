// The ESLint rule `kiln/layers`: Kiln's layers point one way (docs/architecture.md, "Layers").
// Each relative import or re-export is resolved to the file it names, both files are placed in a
// layer by their folder, and the import is reported unless the table below allows it. Resolving
// the path (instead of matching the import's text) keeps the rule right for `../../store/x.js`
// from any depth and for a folder that happens to share a layer's name.
import { dirname, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** Folders of src/ that are layers of their own; any other file directly in src/ is a root helper. */
const SRC_LAYERS = ['engine', 'store', 'lifecycle', 'evaluators', 'jobs', 'datasets', 'materials', 'service', 'api', 'cli'];

/**
 * What each layer may import. `may`: layers it may import anything from; `typesFrom`: layers it
 * may import only types from (`import type`: erased, so no run-time dependency); `files`: single
 * files allowed besides. A layer not listed here (test, bench, scripts) may import anything.
 */
const POLICY = {
  engine: {
    may: ['engine'],
    // the WebAssembly loader finds the compiled kernels from the package root
    files: ['src/package-root.ts'],
    why: 'the engine is pure optimization: it knows nothing of the service, the queue or the CLI',
  },
  root: { may: ['root', 'engine'], why: 'the root helpers (config, errors, events, ids, json-text, package-root) sit below every layer but the engine' },
  materials: { may: ['materials', 'root'], why: 'the materials lookup is pure' },
  store: { may: ['store', 'root'], typesFrom: ['engine'], why: 'the store holds the SQL and knows only the engine types it stores' },
  lifecycle: { may: ['lifecycle', 'store', 'engine', 'root'], why: 'a campaign life is moved by the service and the workers, so it sits below both' },
  evaluators: { may: ['evaluators', 'engine', 'root'], why: 'evaluators serve the job runner and the CLI alike, so they import neither' },
  datasets: { may: ['datasets', 'store', 'engine', 'root'], why: 'dataset files are read for the service and the API, below both' },
  jobs: { may: ['jobs', 'lifecycle', 'store', 'evaluators', 'engine', 'root'], why: 'the queue runs below the service and the API' },
  service: {
    may: ['service', 'lifecycle', 'store', 'datasets', 'materials', 'engine', 'root'],
    why: 'use cases sit below the API and never reach into the queue (src/jobs)',
  },
  api: {
    may: ['api', 'service', 'datasets', 'materials', 'engine', 'root'],
    typesFrom: ['store'],
    why: 'routes go through the service; no query is built outside src/store',
  },
  runtime: {
    may: ['api', 'service', 'datasets', 'jobs', 'lifecycle', 'store', 'evaluators', 'materials', 'engine', 'root'],
    why: 'the composition root serves the CLI',
  },
  cli: { may: ['cli', 'runtime', ...SRC_LAYERS, 'root'], why: 'the CLI is the top of src/' },
  web: { may: ['web'], typesFrom: ['root', 'api'], why: 'the dashboard is its own bundle and talks to the server only over HTTP and the WebSocket' },
  reference: { may: ['reference', 'engine'], why: 'the reference implementations are oracles for the engine' },
};

/** The layer of a repository-relative path, or undefined outside the checked folders. */
function layerOf(path) {
  const parts = path.split('/');
  if (parts[0] === 'src') {
    if (parts.length === 2) return parts[1].startsWith('runtime.') ? 'runtime' : 'root';
    return SRC_LAYERS.includes(parts[1]) ? parts[1] : undefined;
  }
  if (parts[0] === 'web' && parts[1] === 'src') return 'web';
  return ['reference', 'test', 'bench', 'scripts'].includes(parts[0]) ? parts[0] : undefined;
}

/** A source file as written on disk: imports name `./x.js` for `./x.ts`. */
function sourcePath(path) {
  return path.replace(/\.js$/, '.ts').replace(/\.jsx$/, '.tsx');
}

const onlyTypes = (specifiers, kind) =>
  kind === 'type' || (specifiers.length > 0 && specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers of docs/architecture.md' },
    schema: [],
    messages: {
      upward: '{{from}} may not import {{to}} ({{target}}): {{why}}. Allowed: {{allowed}}.',
      typesOnly: '{{from}} may import only types from {{to}} ({{target}}); write `import type`: {{why}}.',
    },
  },
  create(context) {
    const file = relative(root, context.filename);
    const from = layerOf(file);
    const policy = POLICY[from];
    if (!policy) return {};
    const allowed = [...policy.may, ...(policy.typesFrom ?? []).map((layer) => `types from ${layer}`), ...(policy.files ?? [])].join(', ');

    const check = (node, source, typeOnly) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = sourcePath(relative(root, resolve(dirname(context.filename), source)));
      const to = layerOf(target);
      if (to === undefined || policy.may.includes(to) || policy.files?.includes(target)) return;
      const data = { from: from === 'root' ? 'a root helper of src/' : from, to, target, why: policy.why, allowed };
      if (policy.typesFrom?.includes(to)) {
        if (!typeOnly) context.report({ node, messageId: 'typesOnly', data });
        return;
      }
      context.report({ node, messageId: 'upward', data });
    };

    return {
      ImportDeclaration: (node) => check(node, node.source.value, onlyTypes(node.specifiers, node.importKind)),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value, onlyTypes(node.specifiers, node.exportKind)),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
    };
  },
};

export default { rules: { layers: layersRule } };
