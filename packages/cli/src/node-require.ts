import { createRequire } from 'node:module';

/**
 * The root tsup build bundles commander (CommonJS) into the ESM bundle; its bundled copy calls
 * `require('events')`, which esbuild's shim can only satisfy when a global `require` exists. This
 * module is imported first by program.ts to provide one.
 *
 * It also makes commander's `require('child_process')` lazy: commander loads it at start-up for
 * executable sub-commands, which rcs never uses, and loading it pulls in `net`, `dgram` and more,
 * ~2 ms of every `rcs` start (bench/cli). The real module is loaded on first property access.
 */
const real = createRequire(import.meta.url);
let childProcess: typeof import('node:child_process') | undefined;
const lazyChildProcess = new Proxy(
  {},
  {
    get: (_, key) => {
      childProcess ??= real('node:child_process') as typeof import('node:child_process');
      return childProcess[key as keyof typeof childProcess];
    },
  },
);

const g = globalThis as { require?: NodeJS.Require };
g.require ??= Object.assign(
  (id: string) => (id === 'child_process' ? lazyChildProcess : real(id)),
  real,
) as NodeJS.Require;
