import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/**
 * The Kiln package folder, found by walking up from this file to the first package.json, so the
 * same code finds build/, examples/ and docs/ whether it runs from src/ (tsx) or dist/src/.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Kiln: cannot find its package folder (no package.json above its code).');
    dir = parent;
  }
  cached = dir;
  return dir;
}

/** Kiln's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
