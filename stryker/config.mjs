// StrykerJS configuration shared by the packages under mutation (transcript, client, mock, export,
// the CLI's upload ledger and its lock, and the export's Parquet writer on its own).
// `npm run test:mutation` runs scripts/mutation.mjs, which runs Stryker once per package with
// RCS_MUTATION_PACKAGE set, so each package is mutated with its own tests only.
// @ts-check
const pkg = process.env.RCS_MUTATION_PACKAGE;
if (!pkg)
  throw new Error(
    'set RCS_MUTATION_PACKAGE to transcript, client, mock, export, cli, parquet or lock',
  );

/** What is mutated: the rules and the network code, per the testing goals (scores in TESTING.md). */
const MUTATE = {
  transcript: [
    'packages/transcript/src/**/*.ts',
    '!packages/transcript/src/**/*.test.ts',
    '!packages/transcript/src/index.ts',
    '!packages/transcript/src/types.ts',
  ],
  client: [
    'packages/client/src/transport.ts',
    'packages/client/src/paginate.ts',
    'packages/client/src/page-engine.ts',
    'packages/client/src/adaptive-rate.ts',
    'packages/client/src/certificate.ts',
    'packages/client/src/bounded-body.ts',
  ],
  mock: [
    'packages/mock/src/rules/**/*.ts',
    'packages/mock/src/auth.ts',
    'packages/mock/src/request-schemas.ts',
    'packages/mock/src/transcript-facts.ts',
    '!packages/mock/src/**/*.test.ts',
  ],
  // The whole engine but the generated shapes and the files that hold only types or re-exports.
  export: [
    'packages/export/src/**/*.ts',
    '!packages/export/src/generated/**',
    '!packages/export/src/index.ts',
    '!packages/export/src/shape.ts',
    '!packages/export/src/progress.ts',
  ],
  // The CLI: the upload ledger (exactly once, D28). The lock that keeps it so across processes is
  // the export's (packages/export/src/files/lock.ts, mutated with the export).
  cli: ['packages/cli/src/upload/ledger.ts'],
  // The one file lock (the export's, which refuses, and the upload ledger's, which waits), scored
  // on its own with its own tests (test/files/lock*.test.ts): part of `export` too.
  lock: ['packages/export/src/files/lock.ts'],
  // The streaming Parquet writer (D27), scored on its own with its own tests (test/formats/
  // parquet*.test.ts, which read each file back): part of `export` too, but held here apart.
  parquet: [
    'packages/export/src/formats/parquet-shred.ts',
    'packages/export/src/formats/parquet-chunk.ts',
    'packages/export/src/formats/parquet-encoder.ts',
    'packages/export/src/formats/parquet-library.ts',
    'packages/export/src/formats/parquet-compression.ts',
    'packages/export/src/formats/parquet-schema.ts',
  ],
};

/** thresholds.break: the score each package reached, so that it cannot fall back unnoticed. */
const BREAK = {
  transcript: 93,
  client: 100,
  mock: 98,
  export: 90,
  cli: 100,
  parquet: 100,
  lock: 100,
};

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker/vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: MUTATE[pkg],
  ignorePatterns: ['**/dist/**', 'bench', 'examples', 'reports', '**/.tmp/**', 'rcs-export'],
  incremental: true,
  // scripts/mutation.mjs unpacks stryker/incremental/<pkg>.json.gz here, and packs it back after.
  incrementalFile: `reports/stryker-incremental/${pkg}.json`,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${pkg}.json` },
  thresholds: { high: 95, low: 90, break: BREAK[pkg] },
  concurrency: 2,
  // The CLI's lock waits in a loop, the Parquet writer never waits: a mutant that never ends is
  // stopped sooner.
  timeoutMS: pkg === 'cli' || pkg === 'lock' || pkg === 'parquet' ? 3_000 : 10_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
