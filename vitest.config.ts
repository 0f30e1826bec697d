import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url));

// Tests import workspace packages from source, so `vitest run` needs no build; the CLI's
// end-to-end tests spawn the built `rcs` (the README's test command builds first).
// Exact matches (a prefix match would turn '@rcs/mock/node' into '…/index.ts/node').
const alias = [
  { find: /^@rcs\/transcript$/, replacement: src('transcript') },
  { find: /^@rcs\/client$/, replacement: src('client') },
  {
    find: /^@rcs\/client\/otel$/,
    replacement: fileURLToPath(new URL('./packages/client/src/otel.ts', import.meta.url)),
  },
  {
    find: /^@rcs\/client\/internal$/,
    replacement: fileURLToPath(new URL('./packages/client/src/internal.ts', import.meta.url)),
  },
  { find: /^@rcs\/mock$/, replacement: src('mock') },
  { find: /^@rcs\/export$/, replacement: src('export') },
  {
    find: /^@rcs\/export\/internal$/,
    replacement: fileURLToPath(new URL('./packages/export/src/internal.ts', import.meta.url)),
  },
  {
    find: /^@rcs\/mock\/node$/,
    replacement: fileURLToPath(new URL('./packages/mock/src/node.ts', import.meta.url)),
  },
];

export default defineConfig({
  test: {
    projects: [
      ...['transcript', 'client', 'mock', 'export', 'cli'].map((name) => ({
        resolve: { alias },
        test: {
          name,
          root: `packages/${name}`,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          testTimeout: 30_000,
        },
      })),
      // docs/rules-index.md against the code.
      {
        test: { name: 'rules-index', root: 'test/rules-index', include: ['**/*.test.ts'] },
      },
      // The repository's own lint rules (eslint.config.mjs) on code written to break them.
      {
        test: { name: 'lint', root: 'test/lint', include: ['**/*.test.ts'] },
      },
      // The browser example in a real headless Chromium: needs the build.
      {
        resolve: { alias },
        test: {
          name: 'browser',
          root: 'examples/browser',
          include: ['test/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      // The packages as users install them: packed, installed from the tarballs into fresh
      // projects. Needs the build and the npm registry.
      {
        test: {
          name: 'pack',
          root: 'test/pack',
          include: ['**/*.test.ts'],
          testTimeout: 600_000,
          hookTimeout: 900_000,
        },
      },
      // Black-box acceptance tests written from the shared documents alone (description,
      // decisions, CLI contract): they drive the mock over real HTTP and the built `rcs`.
      {
        resolve: { alias },
        test: {
          name: 'acceptance',
          root: 'test/acceptance',
          include: ['**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
