// Checks the published shape of the library packages: publint (exports map, files) and
// @arethetypeswrong/cli (types resolve for ESM and CJS consumers). Runs after `npm run build`.
import { execFileSync } from 'node:child_process';

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
process.exitCode = failed ? 1 : 0;
