import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';
import { packageRoot } from '../src/package-root.js';

// The layer rule and the cycle check are plain JavaScript in scripts/ (run by ESLint and npm run
// lint), so the compiled test loads them from the package folder, not from dist/.
const root = packageRoot();
const { layersRule } = (await import(pathToFileURL(join(root, 'scripts/eslint-layers.mjs')).href)) as { layersRule: Rule.RuleModule };

/** The kiln/layers messages for `code` as if it were the file at `path` (repository-relative). */
function layerProblems(path: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const config = {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser as Linter.Parser },
    plugins: { kiln: { rules: { layers: layersRule } } },
    rules: { 'kiln/layers': 'error' as const },
  };
  return linter.verify(code, config, { filename: join(root, path) }).map((m) => m.message);
}

test('the engine imports nothing above it, but the package-root helper', () => {
  const problems = layerProblems('src/engine/campaign/x.ts', "import { findJob } from '../../store/jobs.js';\nimport type { Db } from '../../store/db.js';\n");
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(problems[0], /engine may not import store \(src\/store\/jobs\.ts\)/);
  assert.deepEqual(layerProblems('src/engine/wasm/x.ts', "import { packageRoot } from '../../package-root.js';\nimport { mix } from '../random.js';\n"), []);
});

test('the store takes only types from the engine, and nothing from the service', () => {
  assert.deepEqual(
    layerProblems('src/store/x.ts', "import type { Mdl } from '../engine/mdl/schema.js';\nimport { type Mdl as M } from '../engine/mdl/schema.js';\n"),
    [],
  );
  const problems = layerProblems(
    'src/store/x.ts',
    "import { validateMdl } from '../engine/mdl/validate.js';\nimport { createCampaign } from '../service/campaigns.js';\n",
  );
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.match(problems[0], /store may import only types from engine/);
  assert.match(problems[1], /store may not import service/);
});

test('the service never reaches into the queue or the API; re-exports count as imports', () => {
  assert.equal(layerProblems('src/service/x.ts', "export { Supervisor } from '../jobs/supervisor.js';\n").length, 1);
  assert.equal(layerProblems('src/service/x.ts', "export * from '../api/route.js';\n").length, 1);
  assert.equal(layerProblems('src/service/x.ts', "const m = await import('../api/app.js');\n").length, 1);
  assert.deepEqual(layerProblems('src/service/x.ts', "import { findCampaign } from '../store/campaigns.js';\n"), []);
});

test('the dashboard takes only types from the server; tests and benchmarks import anything', () => {
  assert.deepEqual(layerProblems('web/src/x.ts', "import type { ErrorBody } from '../../src/errors.js';\n"), []);
  assert.match(layerProblems('web/src/x.ts', "import { ERROR_STATUS } from '../../src/errors.js';\n")[0], /web may import only types from root/);
  assert.deepEqual(
    layerProblems('test/x.test.ts', "import { Supervisor } from '../src/jobs/supervisor.js';\nimport { hv } from '../reference/hypervolume.js';\n"),
    [],
  );
  assert.match(layerProblems('src/cli/x.ts', "import { hv } from '../../reference/hypervolume.js';\n")[0], /cli may not import reference/);
});

/** Runs the cycle check on a tree of files; returns its exit status and output. */
function checkCycles(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-cycles-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(process.execPath, [join(root, 'scripts/check-import-cycles.mjs'), '--root', dir], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the cycle check names a cycle, type-only imports included, and passes a graph without one', () => {
  const cycle = checkCycles({
    'src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'src/b.ts': "import type { C } from './deep/c.js';\nexport const b = (c: C) => c;\n",
    'src/deep/c.ts': "import { a } from '../a.js';\nexport type C = typeof a;\n",
  });
  assert.equal(cycle.status, 1, cycle.output);
  assert.match(cycle.output, /import cycle \(3 files\): src\/a\.ts -> src\/b\.ts -> src\/deep\/c\.ts -> src\/a\.ts/);
  const clean = checkCycles({
    'src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'src/b.ts': "export const b = 1;\nexport const later = () => import('./a.js');\n",
  });
  assert.equal(clean.status, 0, clean.output);
});

test("Kiln's own import graph has no cycle", () => {
  const output = execFileSync(process.execPath, [join(root, 'scripts/check-import-cycles.mjs')], { encoding: 'utf8' });
  assert.match(output, /import cycles: none/);
});
