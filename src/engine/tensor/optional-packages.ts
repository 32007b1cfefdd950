/** The optional packages the tensor backends load when present (package.json optionalDependencies). */
export type OptionalPackage = 'webgpu' | '@tensorflow/tfjs-backend-webgpu' | '@tensorflow/tfjs-node-gpu';

/**
 * Imports an optional package by name. The specifier is a variable, so TypeScript does not require
 * the package to compile and Node resolves it at run time; a bundle that carries these packages
 * (bench/device/build.mjs) replaces this module with one that imports them by literal name.
 */
export function importOptional(name: OptionalPackage): Promise<unknown> {
  return (import(name) as Promise<unknown>).catch((error: unknown) => {
    throw new Error(whyNotLoaded(name, error));
  });
}

/** One line on why an optional package did not load: not installed, or what its loading said. */
function whyNotLoaded(name: string, error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return `the optional package '${name}' is not installed`;
  return `the optional package '${name}' did not load: ${String((error as Error).message).split('\n')[0]}`;
}
