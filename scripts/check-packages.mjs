// Checks the published shape of the library packages: publint (exports map, files) and
// @arethetypeswrong/cli (types resolve for ESM and CJS consumers), and the CLI's copy of the
// export engine's FORMATS.md. Runs after `npm run build`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// [directory, attw profile]: @rcs/export is ESM only (a Node library; `require(esm)` serves CJS).
const libs = [
  ['packages/transcript', 'node16'],
  ['packages/client', 'node16'],
  ['packages/export', 'esm-only'],
];
let failed = false;
for (const [dir, profile] of libs) {
  for (const [cmd, args] of [
    ['publint', [dir, '--strict']],
    ['attw', ['--pack', dir, '--profile', profile, '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync('npx', ['--no-install', cmd, ...args], { stdio: 'inherit' });
    } catch {
      console.error(`check-packages: ${cmd} failed for ${dir}`);
      failed = true;
    }
  }
}
// @rcs/cli bundles the export engine and ships its change contract beside EXPORT.md: one text.
if (
  readFileSync('packages/cli/FORMATS.md', 'utf8') !==
  readFileSync('packages/export/FORMATS.md', 'utf8')
) {
  console.error(
    'check-packages: packages/cli/FORMATS.md differs from packages/export/FORMATS.md: copy it',
  );
  failed = true;
}
process.exitCode = failed ? 1 : 0;
