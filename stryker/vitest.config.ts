import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The Vitest configuration of mutation runs (npm run test:mutation). Same projects and aliases as
// the root config, minus the tests that read source or build output rather than behaviour: under
// Stryker the source is instrumented, so those tests would fail (or kill every mutant) for reasons
// that have nothing to do with the mutant. They still run in `npm test`.
const src = (p: string) => fileURLToPath(new URL(`../packages/${p}/src/index.ts`, import.meta.url));
const alias = [
  { find: /^@rcs\/transcript$/, replacement: src('transcript') },
  { find: /^@rcs\/client$/, replacement: src('client') },
  {
    find: /^@rcs\/client\/otel$/,
    replacement: fileURLToPath(new URL('../packages/client/src/otel.ts', import.meta.url)),
  },
  {
    find: /^@rcs\/client\/internal$/,
    replacement: fileURLToPath(new URL('../packages/client/src/internal.ts', import.meta.url)),
  },
  { find: /^@rcs\/mock$/, replacement: src('mock') },
  { find: /^@rcs\/export$/, replacement: src('export') },
  {
    find: /^@rcs\/mock\/node$/,
    replacement: fileURLToPath(new URL('../packages/mock/src/node.ts', import.meta.url)),
  },
];

/** Tests that inspect files instead of behaviour. */
const SOURCE_READING = [
  'test/purity.test.ts', // transcript: no imports, no dependencies (reads src/)
  'test/generated.test.ts', // client: generated types fresh (reads src/generated)
  'test/formats/record-shapes.test.ts', // export: generated record shapes fresh (reads src/generated)
  'test/dist.test.ts', // client: the built bundles (reads dist/)
  'test/**/dist*.test.ts',
  'test/**/bundle*.test.ts',
  'test/**/*browser*.test.ts',
];

const only = process.env.RCS_MUTATION_PACKAGE;
/** Entries that mutate part of a package: the package whose tests they run. */
const PACKAGE_OF: Record<string, string> = { parquet: 'export', lock: 'export' };
const entries = ['transcript', 'client', 'mock', 'export', 'cli', 'parquet', 'lock'].filter((p) =>
  only ? p === only : !(p in PACKAGE_OF),
);
/**
 * The CLI's mutated files (the upload ledger and its lock) are exercised in process by its unit
 * tests; its end-to-end tests run the built `rcs`, which carries no mutant. The Parquet writer
 * (D27) is scored by its own tests, which read each file back (the export's other tests write
 * Parquet too, but through the whole engine).
 */
const INCLUDE: Record<string, string[]> = {
  cli: ['test/unit/upload/**/*.test.ts'],
  parquet: ['test/formats/parquet*.test.ts'],
  lock: ['test/files/lock*.test.ts'],
};

export default defineConfig({
  test: {
    projects: entries.map((entry) => {
      const name = PACKAGE_OF[entry] ?? entry;
      return {
        resolve: { alias },
        test: {
          name,
          root: fileURLToPath(new URL(`../packages/${name}`, import.meta.url)),
          include: INCLUDE[entry] ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...SOURCE_READING],
          testTimeout: 30_000,
        },
      };
    }),
  },
});
