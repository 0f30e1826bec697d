import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// The main entry must bundle for a browser (MSW's setupWorker); the node-only parts (the HTTP
// server, the fixture-file loader) live in `@rcs/mock/node`.
const entry = (name: string) => fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url));

async function bundle(file: string) {
  return build({
    entryPoints: [file],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    metafile: true,
    alias: {
      '@rcs/transcript': fileURLToPath(new URL('../../transcript/src/index.ts', import.meta.url)),
      '@rcs/client': fileURLToPath(new URL('../../client/src/index.ts', import.meta.url)),
      '@rcs/client/internal': fileURLToPath(
        new URL('../../client/src/internal.ts', import.meta.url),
      ),
    },
  });
}

describe('@rcs/mock in the browser', () => {
  it('the main entry bundles for platform browser with no node: import', async () => {
    const out = await bundle(entry('index'));
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs.some((i) => i.includes('packages/mock/src/api.ts'))).toBe(true);
    expect(inputs.filter((i) => i.startsWith('node:'))).toEqual([]);
    const text = out.outputFiles[0]!.text;
    expect(text).not.toMatch(/from\s*["']node:|require\(["']node:/);
    expect(text).toContain('createMockApi');
  });

  it('the node entry is the one that needs Node', async () => {
    await expect(bundle(entry('node'))).rejects.toThrow(/node:/);
  });
});
