// Fails when the module graph of src/, web/src/, test/, bench/, reference/ and scripts/ has a
// cycle. Edges are the relative imports and re-exports, `import type` included: a type-only cycle
// costs nothing at run time, but it still ties two modules into one unit, and a shared type
// belongs below both. Dynamic `import()` is left out: it loads on demand, never while the
// importing module is being evaluated. Prints each cycle as a chain of files.
//
// Usage: node scripts/check-import-cycles.mjs [--graph] [--root DIR]
// (--graph prints the folder-level edges; --root checks another tree, as the tests do)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const rootAt = process.argv.indexOf('--root');
const root = rootAt > 0 ? resolve(process.argv[rootAt + 1]) : resolve(dirname(new URL(import.meta.url).pathname), '..');
const folders = ['src', 'web/src', 'test', 'bench', 'reference', 'scripts'];
const sourceFile = /\.(ts|tsx|mts|mjs|js)$/;

/** Every source file under the folders, as paths relative to the repository root. */
function listFiles() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (sourceFile.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(folder);
  return files;
}

/** The file a relative specifier names: NodeNext writes `./x.js` for `./x.ts`; the dashboard may omit the extension. */
function resolveSpecifier(from, specifier) {
  const base = join(dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|jsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(join(root, path)) && statSync(join(root, path)).isFile());
}

/** Static imports and re-exports of one file (type-only ones included), as resolved repository paths. */
function importsOf(file) {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const targets = [];
  for (const statement of source.statements) {
    const isImportOrExport = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement);
    const specifier = isImportOrExport ? statement.moduleSpecifier : undefined;
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const target = resolveSpecifier(file, specifier.text);
    if (target) targets.push(target);
  }
  return targets;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** One closed path through a component, for the message: breadth-first from its first file back to it. */
function pathThrough(graph, component) {
  const members = new Set(component);
  const start = [...members].sort()[0];
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const chain = [start];
        for (let at = node; at !== start; at = previous.get(at)) chain.unshift(at);
        chain.unshift(start);
        return chain;
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component;
}

const started = performance.now();
const graph = new Map(listFiles().map((file) => [file, importsOf(file)]));

if (process.argv.includes('--graph')) {
  const folderOf = (file) =>
    relative(root, dirname(join(root, file)))
      .split('/')
      .slice(0, 2)
      .join('/');
  const edges = new Set();
  for (const [file, targets] of graph)
    for (const target of targets) if (folderOf(file) !== folderOf(target)) edges.add(`${folderOf(file)} -> ${folderOf(target)}`);
  console.log([...edges].sort().join('\n'));
}

const found = cycles(graph);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (found.length === 0) {
  console.log(`import cycles: none in ${graph.size} files (${seconds} s)`);
} else {
  for (const component of found) console.error(`import cycle (${component.length} files): ${pathThrough(graph, component).join(' -> ')}`);
  console.error(`import cycles: ${found.length} in ${graph.size} files; move the shared part into a module below both`);
  process.exitCode = 1;
}
