#!/usr/bin/env node
// npm run test:mutation [-- transcript|client|mock|export|cli|parquet ...] [-- --mutate <glob>]
// Runs StrykerJS once per package (stryker/config.mjs), each with its own tests only. Incremental:
// stryker/incremental/<package>.json is committed, so a rerun tests only the mutants whose code or
// covering tests changed. Extra arguments after the package names go to `stryker run`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ALL = ['transcript', 'client', 'mock', 'export', 'cli', 'parquet'];
const args = process.argv.slice(2);
const chosen = args.filter((a) => ALL.includes(a));
const rest = args.filter((a) => !ALL.includes(a));
const root = fileURLToPath(new URL('..', import.meta.url));

let failed = false;
for (const pkg of chosen.length > 0 ? chosen : ALL) {
  console.log(`\n── mutation: ${pkg} ──`);
  const run = spawnSync('npx', ['stryker', 'run', 'stryker/config.mjs', ...rest], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, RCS_MUTATION_PACKAGE: pkg },
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
