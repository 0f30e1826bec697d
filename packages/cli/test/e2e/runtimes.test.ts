import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO, runCli, runCommand, tempDir } from './helpers.js';

// Bun and Deno stay supported. The integration example (the SDK's main path) and
// `rcs export` run under each, against the mock over HTTP, with the binaries of their npm
// packages (@oven/bun-linux-x64, @deno/linux-x64-glibc: optional dependencies of the repository,
// installed on linux-x64). The tested versions are the ones pinned in package.json.

const RUNTIMES = [
  {
    name: 'Bun',
    bin: join(REPO, 'node_modules/@oven/bun-linux-x64/bin/bun'),
    flags: [] as string[],
  },
  {
    name: 'Deno',
    bin: join(REPO, 'node_modules/@deno/linux-x64-glibc/deno'),
    flags: ['run', '-A'],
  },
];

let mock: MockServer;
let env: Record<string, string> = {};
let rep = '';

beforeAll(async () => {
  assertBuilt();
  mock = await startMockServer({ port: 0, processingMs: 200 });
  rep = mock.info.repEmails[0] ?? '';
  env = { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.info.apiKey ?? '' };
});
afterAll(async () => {
  await mock?.close();
});

function manifestCounts(dir: string): Record<string, number> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    resources: { resource: string; count: number }[];
  };
  return Object.fromEntries(manifest.resources.map((r) => [r.resource, r.count]));
}

describe.each(RUNTIMES)('$name', ({ bin, flags }) => {
  it.runIf(existsSync(bin))(
    'runs the integration example and rcs export against the mock',
    async () => {
      const dir = tempDir('rcs-runtime-');
      const call = readFileSync(join(REPO, 'examples/integration/sample-call.srt'), 'utf8');
      writeFileSync(join(dir, 'call.srt'), call.replaceAll('rep@acme.com', rep));
      // Run from the repository (its node_modules resolve @rcs/client); home and caches in `dir`.
      const opts = {
        cwd: REPO,
        env: {
          ...env,
          HOME: dir,
          XDG_CONFIG_HOME: join(dir, 'config'),
          DENO_DIR: join(dir, 'deno'),
        },
      };
      const example = await runCommand(
        bin,
        [
          ...flags,
          join(REPO, 'examples/integration/upload-and-score.ts'),
          join(dir, 'call.srt'),
          rep,
        ],
        opts,
      );
      expect(example.code, example.stderr).toBe(0);
      const result = JSON.parse(example.stdout) as { score: number; items: unknown[] };
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.items.length).toBeGreaterThan(0);

      const out = join(dir, 'export');
      const exported = await runCli(['export', 'all', '--out', out], {
        ...opts,
        command: [bin, ...flags],
      });
      expect(exported.code, exported.stderr).toBe(0);
      // The same export as under Node.
      const viaNode = join(dir, 'node-export');
      const node = await runCli(['export', 'all', '--out', viaNode], opts);
      expect(node.code, node.stderr).toBe(0);
      expect(manifestCounts(out)).toEqual(manifestCounts(viaNode));
    },
    240_000,
  );

  it.runIf(existsSync(bin))(
    'traces a run into --trace-file under the caller trace',
    async () => {
      const dir = tempDir('rcs-runtime-');
      const trace = join(dir, 'trace.jsonl');
      const caller = '4bf92f3577b34da6a3ce929d0e0e4736';
      const r = await runCli(
        ['export', 'teams', '--out', join(dir, 'out'), '--trace-file', trace],
        {
          command: [bin, ...flags],
          cwd: REPO,
          env: {
            ...env,
            HOME: dir,
            DENO_DIR: join(dir, 'deno'),
            TRACEPARENT: `00-${caller}-00f067aa0ba902b7-01`,
          },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const spans = readFileSync(trace, 'utf8')
        .split('\n')
        .filter(Boolean)
        .flatMap((line) => JSON.parse(line).resourceSpans[0].scopeSpans[0].spans) as {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
      }[];
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([caller]));
      const command = spans.find((s) => s.name === 'rcs export teams');
      const teams = spans.find((s) => s.name === 'rcs.export teams');
      expect(teams?.parentSpanId).toBe(command?.spanId);
      const requests = spans.filter((s) => s.parentSpanId === teams?.spanId);
      expect(requests.map((s) => s.name)).toContain('GET /api/v1/data-exports/teams');
    },
    120_000,
  );
});
