import { createRequire } from 'node:module';

/**
 * The root tsup build bundles third-party modules into the ESM bundle; commander is CommonJS and
 * its bundled copy calls `require('events')`, which esbuild's shim can only satisfy when a global
 * `require` exists. This module is imported first by main.ts to provide one. (The cleaner fix is
 * `external: ['commander']` in the CLI entry of tsup.config.ts; asked of the lead.)
 */
const g = globalThis as { require?: NodeJS.Require };
g.require ??= createRequire(import.meta.url);
