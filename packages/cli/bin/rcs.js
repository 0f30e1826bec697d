#!/usr/bin/env node
// The `rcs` command. It exists before the build (unlike dist/), so that `npm ci` on a fresh
// clone links it into node_modules/.bin. dist/rcs.js (src/main.ts) runs the program.
try {
  await import('../dist/rcs.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/rcs.js')) {
    process.stderr.write('rcs: the CLI is not built yet; run `npm run build` first\n');
    process.exitCode = 1;
  } else {
    throw error;
  }
}
