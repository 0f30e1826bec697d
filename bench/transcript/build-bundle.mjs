// Bundles @rcs/transcript from source into bench/.out/transcript.mjs (no `npm run build` needed).
import { join } from 'node:path';
import { build } from 'esbuild';

export const bundlePath = join(import.meta.dirname, '..', '.out', 'transcript.mjs');

export async function buildBundle() {
  await build({
    entryPoints: [join(import.meta.dirname, '..', '..', 'packages/transcript/src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: bundlePath,
    logLevel: 'warning',
  });
  return bundlePath;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildBundle();
