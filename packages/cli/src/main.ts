import { enableCompileCache } from './compile-cache.js';

/**
 * The bundle's entry (dist/rcs.js, loaded by bin/rcs.js, the command npm links). Node's compile
 * cache is turned on first, in a directory of the user's own (compile-cache.ts), so that the
 * program and its commands, imported next, load from it from the second run on (start-up goal,
 * bench/cli). Every command is a chunk of its own that program.ts imports only when it runs.
 */
enableCompileCache();
const { runFromProcess } = await import('./program.js');
await runFromProcess();
