// Compiles each top-level AssemblyScript kernel (assembly/<name>.ts) to build/<name>.wasm with the
// release target of asconfig.json. Shared AssemblyScript code lives in assembly/lib/.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const asc = require.resolve('assemblyscript/bin/asc.js');
const target = process.argv[2] ?? 'release';
mkdirSync('build', { recursive: true });
const kernels = readdirSync('assembly').filter((f) => f.endsWith('.ts') && f !== 'index.ts');
for (const file of kernels) {
  const name = file.slice(0, -3);
  execFileSync(process.execPath, [asc, `assembly/${file}`, '--config', 'asconfig.json', '--target', target, '-o', `build/${name}.wasm`], { stdio: 'inherit' });
  console.log(`built build/${name}.wasm (${target})`);
}
