// Bundle size of @rcs/client: min + gzip, with esbuild, for a browser-like target.
// Run: npx node bench/client/bundle-size.mjs   (no build needed: bundles from source)
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entry = new URL('../../packages/client/src/index.ts', import.meta.url).pathname;

async function size(external) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    external,
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

const kb = (n) => `${(n / 1024).toFixed(2)} kB`;
const own = await size(['openapi-fetch', 'p-limit']);
const all = await size([]);
const rows = [
  ['own code (openapi-fetch, p-limit external)', own],
  ['with openapi-fetch and p-limit bundled', all],
];
for (const [name, s] of rows) console.log(`${name}: ${kb(s.min)} min, ${kb(s.gzip)} min+gzip`);
const GOAL = 8 * 1024;
console.log(`goal own code <= 8 kB min+gzip: ${own.gzip <= GOAL ? 'met' : 'MISSED'}`);
process.exitCode = own.gzip <= GOAL ? 0 : 1;
