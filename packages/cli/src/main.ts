import module from 'node:module';

/**
 * The entry of the `rcs` bundle. It only enables Node's on-disk compile cache (V8 code cache,
 * Node ≥ 22.1; `NODE_DISABLE_COMPILE_CACHE=1` turns it off) before loading the commander wiring in
 * program.ts, so that from the second run on the bundle is not re-parsed and re-compiled: that is
 * what keeps `rcs --help` within 1.5× of `node -e 0` (bench/cli/README.md). Modules loaded before
 * the cache is enabled do not benefit, hence this separate, tiny entry.
 */
module.enableCompileCache?.();
const { runFromProcess } = await import('./program.js');
await runFromProcess();
