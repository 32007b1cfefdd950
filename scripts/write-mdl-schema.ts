import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mdlJsonSchemaText } from '../src/engine/mdl/jsonSchema.js';

/** Writes docs/mdl.schema.json from the zod schema (`npm run schema`); a test keeps the two in step. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root (no package.json above this script)');
    dir = parent;
  }
  return dir;
}

const target = join(packageRoot(), 'docs', 'mdl.schema.json');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, mdlJsonSchemaText());
console.log(`wrote ${target}`);
