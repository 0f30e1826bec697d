import { runFromProcess } from './program.js';

/**
 * The bundle's entry (dist/rcs.js, loaded by bin/rcs.js, the command npm links). Every command is
 * a chunk of its own that program.ts imports only when it runs (start-up goal, bench/cli). No
 * compile cache of our own: measured warm, it saved 2–5 % of `rcs --help` (bench/cli/README.md),
 * not worth a cache directory to keep safe from other users.
 */
await runFromProcess();
