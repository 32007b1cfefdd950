import preact from '@preact/preset-vite';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const outDir = join(import.meta.dirname, '..', 'dist', 'web');

/**
 * Brotli and gzip copies of every asset, made once here at the highest levels, so the server
 * sends compressed bytes without compressing on each request (src/api/web.ts picks the copy).
 */
function precompress(): Plugin {
  return {
    name: 'kiln-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const file of readdirSync(assets).filter((f) => /\.(js|css|svg)$/.test(f))) {
        const bytes = readFileSync(join(assets, file));
        writeFileSync(join(assets, `${file}.br`), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assets, `${file}.gz`), gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

/** The dashboard is built next to the server's code and served by the same process (src/api/web.ts). */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact(), precompress()],
  build: { outDir, emptyOutDir: true, sourcemap: false },
});
