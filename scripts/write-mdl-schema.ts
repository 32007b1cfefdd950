import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mdlJsonSchemaText } from '../src/engine/mdl/jsonSchema.js';
import { packageRoot } from '../src/package-root.js';

/** Writes docs/mdl.schema.json from the zod schema (`npm run schema`); a test keeps the two in step. */
const target = join(packageRoot(), 'docs', 'mdl.schema.json');
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, mdlJsonSchemaText());
console.log(`wrote ${target}`);
