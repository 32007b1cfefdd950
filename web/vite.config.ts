import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/** The dashboard is built next to the server's code and served by the same process (src/api/web.ts). */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [preact()],
  build: { outDir: '../dist/web', emptyOutDir: true, sourcemap: false },
});
