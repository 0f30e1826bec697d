import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { difference, equalEverywhere } from '../../packages/cli/test/support/warehouse-diff.js';
import { anchors, codeBlocks, links } from './readme-blocks.js';

// The packages as users get them. Every package is packed (`npm pack`,
// after `npm run build`), installed from its tarball into fresh projects outside the workspace
// (the npm registry is the only network used), and used there as an integrator, a TypeScript
// consumer and a CI job would. Footprint limits of the CLI are asserted here and reported in
// bench/README.md.

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = ['transcript', 'client', 'mock', 'export', 'cli'] as const;
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');
/** Child processes run on the Node that runs the tests (the pinned 24), npm included. */
const ENV = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  NO_COLOR: '1',
};

const tarballs: Record<(typeof PACKAGES)[number], string> = {
  transcript: '',
  client: '',
  mock: '',
  export: '',
  cli: '',
};

function sh(cmd: string, args: string[], cwd: string, input?: string): string {
  const r = spawnSync(cmd, args, { cwd, env: ENV, encoding: 'utf8', input, timeout: 300_000 });
  if (r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`,
    );
  }
  return r.stdout;
}

/** A fresh npm project outside the workspace. */
function project(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `rcs-pack-${name}-`));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `consumer-${name}`, version: '1.0.0', private: true }, null, 2),
  );
  return dir;
}

/** Bytes on disk under node_modules, and the packages installed there (nested ones included). */
function footprint(nodeModules: string): { bytes: number; packages: string[] } {
  let bytes = 0;
  const packages: string[] = [];
  const walk = (dir: string, inNodeModules: boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile()) bytes += readFileSync(path).byteLength;
      if (!entry.isDirectory()) continue;
      if (inNodeModules && entry.name.startsWith('@')) {
        walk(path, true); // a scope: its children are packages
        continue;
      }
      if (inNodeModules && existsSync(join(path, 'package.json'))) {
        packages.push(path.slice(nodeModules.length + 1));
      }
      walk(path, entry.name === 'node_modules');
    }
  };
  walk(nodeModules, true);
  return { bytes, packages };
}

beforeAll(() => {
  const out = mkdtempSync(join(tmpdir(), 'rcs-tarballs-'));
  for (const name of PACKAGES) {
    if (!existsSync(join(REPO, `packages/${name}/dist`))) {
      throw new Error(`packages/${name}/dist is missing: run \`npm run build\` first`);
    }
    const json = sh(
      'npm',
      ['pack', '--json', '--pack-destination', out, `./packages/${name}`],
      REPO,
    );
    const [info] = JSON.parse(json) as { filename: string }[];
    tarballs[name] = join(out, info!.filename);
  }
}, 300_000);

describe('installed from the tarballs, in a fresh project', () => {
  let dir = '';

  beforeAll(() => {
    dir = project('libs');
    sh('npm', ['install', ...Object.values(tarballs)], dir);
  }, 600_000);

  it('ESM import and CJS require of @rcs/client and @rcs/transcript', () => {
    const esm = sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRcsClient, EXPORT_RESOURCES } from '@rcs/client';
         import { parseTranscript } from '@rcs/transcript';
         const c = createRcsClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
         const t = parseTranscript('1\\n00:00:01,000 --> 00:00:02,000\\nrep@acme.com: Hello\\n');
         console.log(typeof c.sessions.create, EXPORT_RESOURCES.length, t.format);`,
      ],
      dir,
    );
    expect(esm.trim()).toBe('function 9 labeled-srt');
    const cjs = sh(
      process.execPath,
      [
        '-e',
        `const { createRcsClient, EXPORT_RESOURCES } = require('@rcs/client');
         const { parseTranscript } = require('@rcs/transcript');
         const c = createRcsClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
         const t = parseTranscript('1\\n00:00:01,000 --> 00:00:02,000\\nrep@acme.com: Hello\\n');
         console.log(typeof c.sessions.create, EXPORT_RESOURCES.length, t.format);`,
      ],
      dir,
    );
    expect(cjs.trim()).toBe('function 9 labeled-srt');
  });

  it.each([
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])('a strict TypeScript consumer under module resolution %s', (name, options) => {
    const ts = join(dir, `ts-${name}`);
    mkdirSync(ts, { recursive: true });
    writeFileSync(
      join(ts, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...options,
          target: 'es2022',
          strict: true,
          noEmit: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          lib: ['es2022', 'dom'],
          skipLibCheck: false,
          types: [],
        },
        files: ['index.ts'],
      }),
    );
    writeFileSync(join(ts, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(ts, 'index.ts'),
      `import { ApiError, type ApiErrorCode, createRcsClient, type ProblemCode, type RealCallSession, RcsError } from '@rcs/client';
import { parseTranscript, prevalidateUpload } from '@rcs/transcript';
const rcs = createRcsClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
export async function score(text: string): Promise<number | undefined> {
  const parsed = parseTranscript(text);
  const check = prevalidateUpload({ transcript: text, meetingName: 'Call', email: 'r@acme.com' });
  if (!check.ok || parsed.cues.length === 0) return undefined;
  try {
    const s: RealCallSession = await rcs.sessions.waitUntilDone(
      (await rcs.sessions.create({ transcript: text, meetingName: 'Call', email: 'r@acme.com' })).id,
    );
    return s.analysis?.score;
  } catch (e) {
    // The problem codes as literals; a code of a newer service is still a string to keep.
    if (e instanceof ApiError && e.code === 'seat_limit_reached') return -1;
    if (e instanceof RcsError) return undefined;
    throw e;
  }
}
export const known: ProblemCode = 'rate_limited';
export const anyCode: ApiErrorCode = 'a_code_from_a_newer_service';
export const exact: ApiErrorCode = known;
`,
    );
    // node_modules is one level up: TypeScript looks there as Node does.
    sh(process.execPath, [TSC, '-p', ts], ts);
  });

  it('an integrator test: setupServer(...createMockApi().handlers) from msw/node drives @rcs/client', () => {
    writeFileSync(
      join(dir, 'integrator.mjs'),
      `import { createRcsClient } from '@rcs/client';
import { createMockApi } from '@rcs/mock';
import { setupServer } from 'msw/node';
const api = createMockApi({ processingMs: 0 });
const server = setupServer(...api.handlers);
server.listen({ onUnhandledRequest: 'error' });
const rcs = createRcsClient({ baseUrl: 'https://api.example.com', apiKey: api.info.apiKeys[0] });
const rep = api.info.repEmails[0];
const transcript = '1\\n00:00:01,000 --> 00:00:05,000\\n' + rep + ': Hi, what is your budget?\\n\\n2\\n00:00:05,500 --> 00:00:09,000\\nbuyer@client.example: About ten thousand.\\n';
const created = await rcs.sessions.create({ transcript, meetingName: 'Pack test', email: rep });
const done = await rcs.sessions.waitUntilDone(created.id, { timeoutMs: 20000, initialIntervalMs: 50 });
const users = await rcs.exports.users.all().toArray();
console.log(done.state, typeof done.analysis.score, users.length > 0);
server.close();
`,
    );
    expect(sh(process.execPath, ['integrator.mjs'], dir).trim()).toBe('DONE number true');
  });

  it('npx rcs --version and npx rcs demo', () => {
    expect(sh('npx', ['--no-install', 'rcs', '--version'], dir).trim()).toBe('0.1.0');
    const demo = sh('npx', ['--no-install', 'rcs', 'demo'], dir);
    expect(demo).toMatch(/score \d+\/100/);
    // The demo's own directory: never `rcs export`'s ./rcs-export (a real export may be there).
    expect(existsSync(join(dir, 'rcs-demo', 'manifest.json'))).toBe(true);
    expect(existsSync(join(dir, 'rcs-export'))).toBe(false);
  });
});

/**
 * Another Node on this machine than the one running the tests (the machine's own, often 20),
 * so that the `engines` the packages declare (>= 20) are tried, not only the pinned 24.
 */
function otherNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate)) continue;
    const r = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    const major = Number(/^v(\d+)/.exec(r.stdout ?? '')?.[1]);
    if (r.status === 0 && major >= 20 && `${r.stdout.trim()}` !== process.version) return candidate;
  }
  return undefined;
}

describe.runIf(otherNode())('on the oldest Node the packages declare (engines >= 20)', () => {
  it('the libraries import and require, and the CLI runs its demo', () => {
    const node = otherNode() as string;
    const dir = project('old-node');
    sh('npm', ['install', ...Object.values(tarballs)], dir);
    const code = `const c = createRcsClient({ baseUrl: 'https://api.example.com', apiKey: 'k' });
      console.log(typeof c.exports.users.all, parseTranscript('1\\n00:00:01,000 --> 00:00:02,000\\nHi\\n').cues.length);`;
    expect(
      sh(
        node,
        [
          '--input-type=module',
          '-e',
          `import { createRcsClient } from '@rcs/client'; import { parseTranscript } from '@rcs/transcript'; ${code}`,
        ],
        dir,
      ).trim(),
    ).toBe('function 1');
    expect(
      sh(
        node,
        [
          '-e',
          `const { createRcsClient } = require('@rcs/client'); const { parseTranscript } = require('@rcs/transcript'); ${code}`,
        ],
        dir,
      ).trim(),
    ).toBe('function 1');
    expect(sh(node, [join(dir, 'node_modules/@rcs/cli/bin/rcs.js'), 'demo'], dir)).toMatch(
      /score \d+\/100/,
    );
  }, 600_000);
});

describe('@rcs/cli installed alone', () => {
  it('brings at most 5 packages and 6 MB, and works: --version, demo', () => {
    const dir = project('cli');
    sh('npm', ['install', tarballs.cli], dir);
    const { bytes, packages } = footprint(join(dir, 'node_modules'));
    // Reported in bench/README.md; printed so that CI logs show the figure.
    console.log(
      `@rcs/cli alone: ${packages.length} package(s) (${packages.join(', ')}), ${(bytes / 1e6).toFixed(2)} MB`,
    );
    expect(packages.length).toBeLessThanOrEqual(5);
    expect(bytes).toBeLessThanOrEqual(6 * 1024 * 1024);
    // The figure the package's README gives a user is the one measured here, within 0.1 MB.
    const readme = readFileSync(join(REPO, 'packages/cli/README.md'), 'utf8');
    const stated = /installing it alone brings \*\*1 package, ([\d.]+) MB\*\*/.exec(readme);
    expect(stated, 'packages/cli/README.md states the install size').not.toBeNull();
    expect(Math.abs(Number(stated![1]) - bytes / 1e6)).toBeLessThanOrEqual(0.1);
    expect(sh('npx', ['--no-install', 'rcs', '--version'], dir).trim()).toBe('0.1.0');
    expect(sh('npx', ['--no-install', 'rcs', 'demo'], dir)).toMatch(/score \d+\/100/);
  }, 600_000);
});

// The contract documents travel in the repository, and each README points at them.
describe('the packed READMEs', () => {
  it('link to documents that exist in the repository, not to ../shared', () => {
    for (const name of PACKAGES) {
      const readme = readFileSync(join(REPO, `packages/${name}/README.md`), 'utf8');
      expect(readme, name).not.toMatch(/\]\((\.\.\/)*shared\/spec\//);
    }
  });
});

/**
 * The READMEs as a newcomer reads them, from inside the tarballs (and the repository's
 * own README): every fenced block follows the info-string convention of readme-blocks.ts, every
 * link resolves where the reader is (a file of the same tarball, or an absolute URL), no
 * repository-only command is shown, and every runnable block runs, in document order, in a fresh
 * project against a real `rcs mock` (test/pack/README.md).
 */
describe('the READMEs, as a newcomer reads and runs them', () => {
  let dir = '';
  let mock: ChildProcess | undefined;
  let url = '';
  let key = '';

  beforeAll(async () => {
    dir = project('readmes');
    sh('npm', ['install', ...Object.values(tarballs)], dir);
    mock = spawn(join(dir, 'node_modules/.bin/rcs'), ['mock', '--port', '0'], {
      cwd: dir,
      env: ENV,
    });
    const lines = createInterface({ input: mock.stdout! });
    for await (const line of lines) {
      if (!url) url = line.trim();
      const k = /^API key: (\S+)/.exec(line);
      if (k) key = k[1]!;
      if (url && key) break;
    }
  }, 600_000);
  afterAll(() => {
    mock?.kill('SIGTERM');
  });

  /** [what, path, the tarball's root (links resolve there) or the repository]. */
  const docs = (): [string, string, string][] => [
    ['the root README', join(REPO, 'README.md'), REPO],
    ...PACKAGES.map((name): [string, string, string] => [
      `@rcs/${name} README.md`,
      join(dir, 'node_modules/@rcs', name, 'README.md'),
      join(dir, 'node_modules/@rcs', name),
    ]),
    [
      '@rcs/cli EXPORT.md',
      join(dir, 'node_modules/@rcs/cli/EXPORT.md'),
      join(dir, 'node_modules/@rcs/cli'),
    ],
    [
      '@rcs/cli templates/nightly/README.md (what rcs init nightly writes)',
      join(dir, 'node_modules/@rcs/cli/templates/nightly/README.md'),
      join(dir, 'node_modules/@rcs/cli'),
    ],
    [
      '@rcs/export FORMATS.md',
      join(dir, 'node_modules/@rcs/export/FORMATS.md'),
      join(dir, 'node_modules/@rcs/export'),
    ],
    // The fixture format, where `rcs mock --fixture` users and the mock's integrators look.
    [
      '@rcs/mock FIXTURE.md',
      join(dir, 'node_modules/@rcs/mock/FIXTURE.md'),
      join(dir, 'node_modules/@rcs/mock'),
    ],
    [
      '@rcs/cli MOCK-FIXTURE.md',
      join(dir, 'node_modules/@rcs/cli/MOCK-FIXTURE.md'),
      join(dir, 'node_modules/@rcs/cli'),
    ],
  ];

  it('every link resolves where the reader is: in the tarball, or an absolute https URL', () => {
    const broken: string[] = [];
    for (const [what, path, root] of docs()) {
      const text = readFileSync(path, 'utf8');
      for (const { target, line } of links(text)) {
        const where = `${what}:${line}: ${target}`;
        if (/^https:\/\/[^/]+/.test(target)) continue;
        if (/^[a-z]+:/i.test(target)) {
          broken.push(`${where} (not https)`);
          continue;
        }
        const [file = '', anchor] = target.split('#');
        const resolved = file === '' ? path : join(dirname(path), file);
        if (!resolved.startsWith(root) || !existsSync(resolved)) {
          broken.push(`${where} (not in ${root === REPO ? 'the repository' : 'the tarball'})`);
          continue;
        }
        if (anchor && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`${where} (no heading #${anchor})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the packed docs show commands as an installed user types them', () => {
    for (const [what, path, root] of docs()) {
      if (root === REPO) continue;
      const text = readFileSync(path, 'utf8');
      expect(text, what).not.toMatch(/npm run (build|demo|gen)\b|node packages\/|\.\.\/\.\.\/docs/);
      // The sample a newcomer uses ships with the CLI (`rcs demo --write-sample`).
      expect(text, what).not.toMatch(/examples\/integration\/sample-call\.srt/);
    }
  });

  it('every runnable block runs against a real rcs mock, in document order', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const redirect = join(dir, 'redirect.mjs');
    writeFileSync(redirect, REDIRECT);
    let ran = 0;
    for (const [what, path] of docs()) {
      const blocks = codeBlocks(readFileSync(path, 'utf8'), what);
      const cwd = join(dir, `run-${ran++}`);
      mkdirSync(cwd, { recursive: true });
      // As a reader who started `rcs mock` has them; a config directory per document.
      const env = {
        ...ENV,
        RCS_BASE_URL: url,
        RCS_API_KEY: key,
        RCS_README_SERVICE: url,
        XDG_CONFIG_HOME: join(cwd, '.config'),
      };
      for (const block of blocks.filter((b) => b.run)) {
        const where = `${what}:${block.line}`;
        const [command, args] = blockCommand(block, cwd, redirect, url);
        const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
        expect(
          r.status,
          `${where} exited ${r.status}:\n${block.code}\n${r.stdout}\n${r.stderr}`,
        ).toBe(0);
      }
    }
  }, 900_000);
});

/**
 * `rcs mock` of the installed CLI until it prints its URL and API key. Each night of the
 * rehearsal is the one service at another moment: the same port (`--port` of the first night).
 */
async function startMock(
  dir: string,
  args: string[],
): Promise<{ url: string; key: string; stop(): Promise<void> }> {
  const child = spawn(join(dir, 'node_modules/.bin/rcs'), ['mock', ...args], {
    cwd: dir,
    env: ENV,
  });
  let url = '';
  let key = '';
  for await (const line of createInterface({ input: child.stdout! })) {
    if (!url) url = line.trim();
    key = /^API key: (\S+)/.exec(line)?.[1] ?? key;
    if (url && key) break;
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('close', () => resolve());
      child.kill('SIGTERM');
    });
  return { url, key, stop };
}

/**
 * The three-night rehearsal, from the files a user installs: `rcs init nightly` of the packed
 * CLI writes the job, and its loader, run as written (`node nightly-load.mjs <export-dir>
 * <warehouse.duckdb>`), merges nights 0, 1 and 2 of `rcs mock --day N` into DuckDB; after each
 * night every warehouse table equals that night's Parquet file (EXCEPT ALL both ways is empty).
 */
describe('rcs init nightly, installed from the tarball: three nights against rcs mock --day', () => {
  it("each night merges the changes, and every table equals the night's Parquet files", async () => {
    const dir = project('nightly');
    sh('npm', ['install', tarballs.cli], dir);
    // `npm install @duckdb/node-api` as the recipe's README says: the workspace's copy (the same
    // package; its native binary is 60 MB, not worth a second download per test run).
    symlinkSync(join(REPO, 'node_modules/@duckdb'), join(dir, 'node_modules/@duckdb'), 'dir');
    sh(join(dir, 'node_modules/.bin/rcs'), ['init', 'nightly'], dir);
    const job = join(dir, 'rcs-nightly');
    let port = '0';
    const nights: string[] = [];
    for (const day of ['0', '1', '2']) {
      const mock = await startMock(dir, ['--day', day, '--port', port]);
      port = new URL(mock.url).port;
      try {
        const r = spawnSync(process.execPath, ['nightly-load.mjs', 'export', 'warehouse.duckdb'], {
          cwd: job,
          // No rcs on PATH: the loader runs the @rcs/cli installed beside it.
          env: { ...ENV, PATH: '/usr/bin:/bin', RCS_BASE_URL: mock.url, RCS_API_KEY: mock.key },
          encoding: 'utf8',
          timeout: 300_000,
        });
        expect(r.status, `night ${day}:\n${r.stdout}\n${r.stderr}`).toBe(0);
        nights.push(r.stdout);
        const diff = await difference(join(job, 'warehouse.duckdb'), join(job, 'export'));
        equalEverywhere(diff);
        expect(diff['real-call-session-items rows']![0]).toBeGreaterThan(0);
      } finally {
        await mock.stop();
      }
    }
    expect(nights[0]).toMatch(/real-call-sessions: reloaded \d+/);
    // Nights 1 and 2 are merges, with inserts, updates and deletes among them.
    for (const night of nights.slice(1)) {
      expect(night).not.toMatch(/reloaded/);
      const counts = [...night.matchAll(/\+(\d+) ~(\d+) -(\d+)/g)].map((m) =>
        m.slice(1).map(Number),
      );
      for (const at of [0, 1, 2])
        expect(
          counts.some((c) => c[at]! > 0),
          night,
        ).toBe(true);
    }
  }, 900_000);
});

/**
 * How a runnable block runs (test/pack/README.md): `sh` with bash, `@rcs/<name>` of an
 * `npm install` line as its tarball and the README's mock port as the test mock's URL; `ts` and
 * `js` as a module file on this Node, with the redirect below preloaded.
 */
function blockCommand(
  block: { lang: string; line: number; code: string },
  cwd: string,
  redirect: string,
  url: string,
): [string, string[]] {
  if (block.lang === 'sh') {
    const script = block.code
      .replace(/^(npm (?:install|i)\b.*)$/gm, (line) =>
        line.replace(
          /@rcs\/(transcript|client|mock|export|cli)\b/g,
          (_m, name: string) => tarballs[name as (typeof PACKAGES)[number]],
        ),
      )
      .replaceAll('http://127.0.0.1:4010', url);
    return ['bash', ['-e', '-o', 'pipefail', '-c', script]];
  }
  const file = join(cwd, `block-${block.line}.${block.lang === 'ts' ? 'mts' : 'mjs'}`);
  writeFileSync(file, block.code);
  return [process.execPath, ['--import', pathToFileURL(redirect).href, file]];
}

/**
 * Loaded before a README's TypeScript or JavaScript block: `https://api.example.com`, the
 * service in every example, is this test's `rcs mock` (the block's code is run as written).
 */
const REDIRECT = `const service = process.env.RCS_README_SERVICE;
const real = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!href.startsWith('https://api.example.com/')) return real(input, init);
  const to = service + href.slice('https://api.example.com'.length);
  return real(input instanceof Request ? new Request(to, input) : to, init);
};
`;
