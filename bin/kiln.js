#!/usr/bin/env node
// The `kiln` command: runs the compiled CLI (npm run build produces dist/).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('kiln: the CLI is not built yet; run `npm run build` in the Kiln folder first.');
  process.exit(1);
}
await import(main.href);
