// Bundles the device check (bench/device/check.ts) for a machine without Node.js modules: one
// folder with the check, the engine's pool thread and piscina's worker as ES modules, the wasm
// kernels (Kiln's and tfjs's) and Dawn's dawn.node, xz-compressed (check.sh unpacks it), in all
// about 10 MB beside the 24 MB node binary that ../shared/device/prepare.sh compresses.
// Usage, from the project root after `npm run build`: node bench/device/build.mjs [OUT_DIR]
// (default .device/kiln).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const out = resolve(process.argv[2] ?? join(root, '.device/kiln'));
const require = createRequire(join(root, 'package.json'));
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'build'), { recursive: true });

// CommonJS packages inside an ES module bundle still ask for require, __dirname and __filename;
// __dirname is the bundle's folder, where tfjs-backend-wasm looks for its .wasm files and
// piscina for its worker.js
const banner = [
  "import { createRequire as kilnCreateRequire } from 'node:module';",
  "import { fileURLToPath as kilnFileUrlToPath } from 'node:url';",
  "import { dirname as kilnDirname } from 'node:path';",
  'const require = kilnCreateRequire(import.meta.url);',
  'const __filename = kilnFileUrlToPath(import.meta.url);',
  'const __dirname = kilnDirname(__filename);',
].join('\n');

// the optional packages by literal name, so that the bundle carries them (src/engine/tensor/optional-packages.ts)
const optionalPackages = {
  name: 'optional-packages',
  setup(b) {
    b.onResolve({ filter: /optional-packages\.js$/ }, () => ({ path: join(root, 'bench/device/optional-packages.mjs') }));
  },
};

await build({
  entryPoints: {
    check: join(root, 'dist/bench/device/check.js'),
    'engine-worker': join(root, 'dist/src/jobs/engine-worker.js'),
    worker: join(dirname(require.resolve('piscina')), 'worker.js'),
  },
  outdir: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  mainFields: ['main'],
  banner: { js: banner },
  plugins: [optionalPackages],
  logLevel: 'warning',
  // dawn.node is loaded by path at run time, next to the bundle (dist/linux-x64/); piscina's thread
  // niceness package is optional and left out
  external: ['*.node', '@napi-rs/nice'],
});

writeFileSync(
  join(out, 'package.json'),
  JSON.stringify({ name: 'kiln-device-check', version: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version, type: 'module' }) + '\n',
);
for (const file of ['hypervolume.wasm', 'cmaes.wasm']) copyFileSync(join(root, 'build', file), join(out, 'build', file));
const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.node.js'));
for (const file of ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm'])
  copyFileSync(join(wasmDir, file), join(out, file));
const dawn = join(dirname(require.resolve('webgpu')), 'dist/linux-x64/dawn.node');
mkdirSync(join(out, 'dist/linux-x64'), { recursive: true });
execFileSync('sh', ['-c', `xz -T2 -6 -c "${dawn}" > "${join(out, 'dawn.node.xz')}"`]);
console.log(`device check bundled in ${out}: ${execFileSync('du', ['-sh', out]).toString().split('\t')[0]}`);
