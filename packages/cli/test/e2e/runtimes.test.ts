import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, baseEnv, CLI, REPO, tempDir } from './helpers.js';

// Issue 10 item 8: Bun and Deno stay supported. The integration example (the SDK's main path) and
// `rcs export` run under each, against the mock over HTTP, with the binaries of their npm
// packages (@oven/bun-linux-x64, @deno/linux-x64-glibc: optional dependencies of the repository,
// installed on linux-x64). The tested versions are the ones pinned in package.json.

const RUNTIMES = [
  {
    name: 'Bun',
    bin: join(REPO, 'node_modules/@oven/bun-linux-x64/bin/bun'),
    run: (file: string, ...args: string[]) => [file, ...args],
  },
  {
    name: 'Deno',
    bin: join(REPO, 'node_modules/@deno/linux-x64-glibc/deno'),
    run: (file: string, ...args: string[]) => ['run', '-A', file, ...args],
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

/** Runs a command without blocking this process: the mock answers from this process. */
function exec(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(killer);
      resolve({ status, stdout, stderr });
    });
  });
}

function manifestCounts(dir: string): Record<string, number> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    resources: { resource: string; count: number }[];
  };
  return Object.fromEntries(manifest.resources.map((r) => [r.resource, r.count]));
}

describe.each(RUNTIMES)('$name', ({ bin, run }) => {
  it.runIf(existsSync(bin))(
    'runs the integration example and rcs export against the mock',
    async () => {
      const dir = tempDir('rcs-runtime-');
      const call = readFileSync(join(REPO, 'examples/integration/sample-call.srt'), 'utf8');
      writeFileSync(join(dir, 'call.srt'), call.replaceAll('rep@acme.com', rep));
      const opts = {
        cwd: REPO,
        env: { ...baseEnv(dir), ...env, DENO_DIR: join(dir, 'deno'), NO_COLOR: '1' },
        encoding: 'utf8' as const,
        timeout: 120_000,
      };
      const example = await exec(
        bin,
        run(join(REPO, 'examples/integration/upload-and-score.ts'), join(dir, 'call.srt'), rep),
        opts,
      );
      expect(example.status, example.stderr).toBe(0);
      const result = JSON.parse(example.stdout) as { score: number; items: unknown[] };
      expect(result.score).toBeGreaterThanOrEqual(0);
      expect(result.items.length).toBeGreaterThan(0);

      const out = join(dir, 'export');
      const exported = await exec(bin, run(CLI, 'export', 'all', '--out', out), opts);
      expect(exported.status, exported.stderr).toBe(0);
      // The same export as under Node.
      const viaNode = join(dir, 'node-export');
      const node = await exec(process.execPath, [CLI, 'export', 'all', '--out', viaNode], opts);
      expect(node.status, node.stderr).toBe(0);
      expect(manifestCounts(out)).toEqual(manifestCounts(viaNode));
    },
    240_000,
  );
});
