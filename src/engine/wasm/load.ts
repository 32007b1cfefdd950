import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';

const modules = new Map<string, WebAssembly.Module>();

/**
 * Compiles (once per thread) the AssemblyScript kernel `build/<name>.wasm`.
 * Compilation is synchronous so kernels can be created inside constructors; the modules are small.
 */
export function wasmModule(name: string): WebAssembly.Module {
  let mod = modules.get(name);
  if (!mod) {
    const file = join(packageRoot(), 'build', `${name}.wasm`);
    if (!existsSync(file)) {
      throw new Error(`Kiln: WASM kernel ${file} is missing; run \`npm run build\` first.`);
    }
    mod = new WebAssembly.Module(readFileSync(file));
    modules.set(name, mod);
  }
  return mod;
}

/** A fresh instance of a kernel with its own linear memory. */
export function wasmInstance(name: string, imports: WebAssembly.Imports = {}): WebAssembly.Instance {
  const env = { abort: wasmAbort, ...(imports.env ?? {}) };
  return new WebAssembly.Instance(wasmModule(name), { ...imports, env });
}

function wasmAbort(): never {
  throw new Error('Kiln: a WASM kernel aborted (assertion failed inside the kernel).');
}
