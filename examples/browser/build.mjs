// Builds the browser example into examples/browser/dist: the page, its stylesheet, the app bundled
// by esbuild (the built @rcs packages, msw/browser), and MSW's service worker script.
//
//   npm run build && npx node examples/browser/build.mjs
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist');
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(here, 'src/app.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});
// The SDK's spans in a page: the client with OpenTelemetry's browser SDK.
await build({
  entryPoints: [join(here, 'src/tracing.ts')],
  outfile: join(out, 'tracing.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
});
copyFileSync(join(here, 'tracing.html'), join(out, 'tracing.html'));
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
copyFileSync(join(here, 'style.css'), join(out, 'style.css'));
// The worker script must come from the msw that the page's bundle uses.
const require = createRequire(import.meta.url);
const msw = dirname(require.resolve('msw/package.json'));
copyFileSync(join(msw, 'lib/mockServiceWorker.js'), join(out, 'mockServiceWorker.js'));
console.log(`examples/browser/dist built (${out})`);
