import { defineConfig } from 'tsup';

// One build for the whole monorepo. The client and transcript packages ship ESM + CJS + .d.ts
// (publint / attw check the exports map); the mock and the export engine ship ESM + .d.ts; the CLI is one bundled,
// ESM executable whose heavy commands are split into lazily imported chunks.
const workspace = ['@rcs/transcript', '@rcs/client', '@rcs/mock', '@rcs/export'];

export default defineConfig([
  {
    name: 'transcript',
    entry: { index: 'packages/transcript/src/index.ts' },
    outDir: 'packages/transcript/dist',
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { composite: false } },
    tsconfig: 'packages/transcript/tsconfig.json',
    platform: 'neutral',
    target: 'es2022',
    clean: true,
    sourcemap: true,
  },
  {
    name: 'client',
    // `otel` is the OpenTelemetry adapter: the only file that imports the optional peer.
    // `internal` is the plumbing the sibling packages share (not for users: internal.ts).
    entry: {
      index: 'packages/client/src/index.ts',
      otel: 'packages/client/src/otel.ts',
      internal: 'packages/client/src/internal.ts',
    },
    outDir: 'packages/client/dist',
    format: ['esm', 'cjs'],
    dts: true,
    tsconfig: 'packages/client/tsconfig.json',
    platform: 'neutral',
    target: 'es2022',
    external: ['openapi-fetch', 'p-limit', '@opentelemetry/api'],
    clean: true,
    sourcemap: true,
  },
  {
    name: 'mock',
    entry: { index: 'packages/mock/src/index.ts', node: 'packages/mock/src/node.ts' },
    outDir: 'packages/mock/dist',
    format: ['esm'],
    dts: true,
    tsconfig: 'tsconfig.json',
    platform: 'node',
    target: 'node22',
    // The mock's own dependencies stay external (they are in its package.json); bundling msw
    // would copy its graphql chunk into dist.
    external: [...workspace, 'msw', /^msw\//, 'zod', 'jose'],
    clean: true,
    sourcemap: true,
  },
  {
    name: 'export',
    // `internal` is the plumbing the CLI shares (not for users: internal.ts).
    entry: { index: 'packages/export/src/index.ts', internal: 'packages/export/src/internal.ts' },
    outDir: 'packages/export/dist',
    format: ['esm'],
    dts: true,
    tsconfig: 'tsconfig.json',
    platform: 'node',
    target: 'node22',
    // Its dependencies stay external (they are in its package.json).
    external: [...workspace, 'csv-stringify', /^csv-stringify\//, /^hyparquet/, 'p-limit'],
    clean: true,
    sourcemap: true,
  },
  {
    name: 'cli',
    entry: { rcs: 'packages/cli/src/main.ts' },
    outDir: 'packages/cli/dist',
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    splitting: true,
    // Bundle our own packages into the CLI so start-up reads few files. Third-party modules are
    // bundled too (the root package.json lists them as devDependencies), each split into a chunk
    // that only the commands using it import: `rcs --help` loads commander and the wiring only.
    noExternal: workspace,
    // Bundled CommonJS (commander) calls `require`, which an ES module lacks (esbuild: "Dynamic
    // require of … is not supported"): each chunk gets a module-scoped one from createRequire.
    banner: {
      js: [
        '#!/usr/bin/env node',
        "import { createRequire as __rcsCreateRequire } from 'node:module';",
        'const require = __rcsCreateRequire(import.meta.url);',
      ].join('\n'),
    },
    clean: true,
    sourcemap: false,
  },
]);
