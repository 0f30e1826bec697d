import { runFromProcess } from './program.js';

/**
 * The bundle's entry (dist/rcs.js). `bin/rcs.js`, the command npm links, enables Node's on-disk
 * compile cache before loading this bundle, so that from the second run on it is not re-parsed and
 * re-compiled (start-up goal: `rcs --help` ≤ 1.5× `node -e 0`, bench/cli). Run directly
 * (`node dist/rcs.js`), it works the same without the cache.
 */
await runFromProcess();
