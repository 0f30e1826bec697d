import { runFromProcess } from './program.js';

/**
 * The bundle's entry (dist/rcs.js, loaded by bin/rcs.js, the command npm links). Every command is
 * a chunk of its own that program.ts imports only when it runs, so `rcs --help` loads little. No
 * compile cache of our own: it saved too little of a start (bench/cli, compile-cache.mjs) to be
 * worth a cache directory to keep safe from other users.
 */
await runFromProcess();
