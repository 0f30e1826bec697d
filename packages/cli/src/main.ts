import module from 'node:module';

// Node's built-ins through require, not `import`: the ESM view of node:fs reads every export,
// `fs.promises` too, which loads the promise API and its streams (~2 ms of every start).
const require = module.createRequire(import.meta.url);
const { readFileSync, renameSync, statSync, unlinkSync, writeFileSync } =
  require('node:fs') as typeof import('node:fs');
const { fileURLToPath } = require('node:url') as typeof import('node:url');
const { Script } = require('node:vm') as typeof import('node:vm');

/**
 * The bundle's entry (dist/rcs.js). `bin/rcs.js`, the command npm links, enables Node's on-disk
 * compile cache before loading this bundle; run directly (`node dist/rcs.js`), it works the same
 * without the caches.
 *
 * The wiring (commander, program.ts, the command declarations) is not an ES module but a classic
 * script, dist/wiring.js, made at build time from wiring.ts's chunk (scripts/wiring-script.ts).
 * Node's compile cache stores a module's V8 code cache as compiled before it ran, which holds
 * only its top level: every function `rcs --help` calls was compiled again on every start. A
 * script's code cache can be made after it ran, so this file keeps one, next to Node's own (in
 * its compile cache directory: none when that cache is off), made at the end of the first run
 * that had none and used from then on (start-up goal, bench/cli).
 */
const WIRING = new URL('./wiring.js', import.meta.url);

interface WiringExports {
  runFromProcess(): Promise<void>;
  warmHelp(): void;
}

type Wiring = (
  importer: (specifier: string) => Promise<unknown>,
  builtins: (specifier: string) => unknown,
  importMetaUrl: string,
) => Promise<WiringExports>;

let wiring: WiringExports | undefined;

function loadWiring(): Wiring {
  const file = fileURLToPath(WIRING);
  const source = readFileSync(file, 'utf8');
  const dir = module.getCompileCacheDir?.();
  if (!dir) return new Script(source, { filename: file }).runInThisContext();
  // The cache is used only for this very text: its build hash (first line), length and mtime.
  const key = `${source.slice(0, source.indexOf('\n'))} ${source.length} ${statSync(file).mtimeMs}\n`;
  const cacheFile = `${dir}/rcs-wiring-${pathHash(file)}`;
  let cachedData: Buffer | undefined;
  try {
    const data = readFileSync(cacheFile);
    if (data.toString('latin1', 0, key.length) === key) cachedData = data.subarray(key.length);
  } catch {
    // No cache yet (or unreadable): compile, and write one at exit.
  }
  const script = new Script(source, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      // Best effort, and atomic (concurrent runs): a cache that cannot be written is no error.
      const temporary = `${cacheFile}.${process.pid}`;
      try {
        // The help code too, whichever command this run was (program.ts).
        wiring?.warmHelp();
        const data = Buffer.concat([Buffer.from(key, 'latin1'), script.createCachedData()]);
        writeFileSync(temporary, data, { mode: 0o600 }); // owner-only, as Node's own cache files
        renameSync(temporary, cacheFile);
      } catch {
        // Read-only or full: the next run compiles again.
        try {
          unlinkSync(temporary);
        } catch {
          // Never written.
        }
      }
    });
  }
  return script.runInThisContext();
}

/** One cache file per installed copy (FNV-1a of the path). */
function pathHash(path: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

wiring = await loadWiring()(
  (specifier) => import(specifier.startsWith('.') ? new URL(specifier, WIRING).href : specifier),
  require,
  WIRING.href,
);
await wiring.runFromProcess();
