#!/usr/bin/env node
// The `rcs` command. It exists before the build (unlike dist/), so that `npm ci` on a fresh
// clone links it into node_modules/.bin. It enables Node's on-disk compile cache (V8 code cache,
// Node >= 22.1; NODE_DISABLE_COMPILE_CACHE=1 turns it off) before loading the bundle: modules
// loaded before that do not benefit, so this file stays tiny (bench/cli). dist/rcs.js then runs the
// wiring script with a code cache of its own (src/main.ts).
import module from 'node:module';

module.enableCompileCache?.();
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
