#!/usr/bin/env node
// npm run test:mutation [-- transcript|client|mock|export|cli|parquet|lock ...] [-- --mutate <glob>]
// Runs StrykerJS once per package (stryker/config.mjs), each with its own tests only. Incremental:
// stryker/incremental/<package>.json.gz is committed compressed (megabytes of JSON that would
// swamp every diff); it is unpacked to reports/stryker-incremental/ before a run, so a rerun tests
// only the mutants whose code or covering tests changed, and packed back after it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const ALL = ['transcript', 'client', 'mock', 'export', 'cli', 'parquet', 'lock'];
const args = process.argv.slice(2);
const chosen = args.filter((a) => ALL.includes(a));
const rest = args.filter((a) => !ALL.includes(a));
const root = fileURLToPath(new URL('..', import.meta.url));
const packed = (pkg) => `${root}stryker/incremental/${pkg}.json.gz`;
const unpacked = (pkg) => `${root}reports/stryker-incremental/${pkg}.json`;

let failed = false;
for (const pkg of chosen.length > 0 ? chosen : ALL) {
  console.log(`\n── mutation: ${pkg} ──`);
  mkdirSync(`${root}reports/stryker-incremental`, { recursive: true });
  if (existsSync(packed(pkg))) writeFileSync(unpacked(pkg), gunzipSync(readFileSync(packed(pkg))));
  const run = spawnSync('npx', ['stryker', 'run', 'stryker/config.mjs', ...rest], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, RCS_MUTATION_PACKAGE: pkg },
  });
  if (existsSync(unpacked(pkg))) {
    writeFileSync(packed(pkg), gzipSync(readFileSync(unpacked(pkg)), { level: 9 }));
  }
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
