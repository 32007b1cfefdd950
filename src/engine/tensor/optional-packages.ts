/** The optional packages the tensor backends load when present (package.json optionalDependencies). */
export type OptionalPackage = 'webgpu' | '@tensorflow/tfjs-backend-webgpu' | '@tensorflow/tfjs-node-gpu';

/**
 * Imports an optional package by name. The specifier is a variable, so TypeScript does not require
 * the package to compile and Node resolves it at run time; a bundle that carries these packages
 * (bench/device/build.mjs) replaces this module with one that imports them by literal name.
 */
export function importOptional(name: OptionalPackage): Promise<unknown> {
  return import(name) as Promise<unknown>;
}
