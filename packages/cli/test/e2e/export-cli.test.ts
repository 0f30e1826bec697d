/**
 * `rcs export` as users run it: the built CLI (`npm run build` first) spawned as a process, with
 * real signals, against the mock over HTTP.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXPORT_TABLE } from '@rcs/client';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const RCS = fileURLToPath(new URL('../../dist/rcs.js', import.meta.url));

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function rcs(args: string[], mock: MockServer, cwd: string): Run {
  const child = spawn(process.execPath, [RCS, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      RCS_BASE_URL: mock.url,
      RCS_API_KEY: mock.info.apiKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out waiting');
}

const hasPartial = async (dir: string) =>
  (await readdir(dir).catch((): string[] => [])).some((n) => n.endsWith('.partial'));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-export-cli-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rcs export (built CLI, spawned)', () => {
  let mock: MockServer;
  let slow: MockServer;
  beforeAll(async () => {
    if (!existsSync(RCS)) throw new Error(`${RCS} is missing: run \`npm run build\` first`);
    mock = await startMockServer({ port: 0, records: 2000, seed: 11 });
    slow = await startMockServer({ port: 0, records: 4000, seed: 11, faults: { latencyMs: 50 } });
  });
  afterAll(async () => {
    await Promise.all([mock.close(), slow.close()]);
  });

  it('exports all nine to CSV; --json prints the manifest on stdout, nothing on stderr off a TTY', async () => {
    const { code, stdout, stderr } = await rcs(
      ['export', 'all', '--format', 'csv', '--out', 'out', '--json'],
      mock,
      dir,
    ).done;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const manifest = JSON.parse(stdout);
    expect(manifest).toEqual(JSON.parse(await readFile(join(dir, 'out', 'manifest.json'), 'utf8')));
    expect(manifest.resources.map((e: { file: string }) => e.file)).toEqual(
      EXPORT_TABLE.map((e) => `${e.resource}.csv`),
    );
    expect((await readdir(join(dir, 'out'))).sort()).toEqual(
      [
        ...EXPORT_TABLE.map((e) => `${e.resource}.csv`),
        'real-call-session-items.csv',
        'manifest.json',
      ].sort(),
    );
  });

  it('--out - streams JSON Lines to stdout for piping', async () => {
    const { code, stdout } = await rcs(['export', 'users', '--out', '-'], mock, dir).done;
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as { id: string });
    expect(records.length).toBeGreaterThan(100);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a reader that leaves early (`| head`) ends the export without a message, exit 0 (cli.md)', async () => {
    const run = rcs(['export', 'real-call-sessions', '--out', '-'], slow, dir);
    run.child.stdout!.once('data', () => run.child.stdout!.destroy());
    const { code, stderr } = await run.done;
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('an unknown resource exits 2 with one line listing the nine', async () => {
    const { code, stderr } = await rcs(['export', 'userz'], mock, dir).done;
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    for (const e of EXPORT_TABLE) expect(stderr).toContain(e.resource);
  });

  for (const [signal, exitCode] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`${signal} mid-run: exit ${exitCode}, previous files and manifest untouched, no partial files`, async () => {
      const out = join(dir, 'out');
      const first = await rcs(['export', 'all', '--out', 'out'], mock, dir).done;
      expect(first.code).toBe(0);
      const before = new Map<string, string>();
      for (const name of await readdir(out))
        before.set(name, await readFile(join(out, name), 'utf8'));

      const run = rcs(['export', 'all', '--out', 'out', '--concurrency', '2'], slow, dir);
      await waitFor(() => hasPartial(out));
      run.child.kill(signal);
      const { code, stderr } = await run.done;
      expect(code).toBe(exitCode);
      expect(stderr).toMatch(/interrupted/);
      const after = new Map<string, string>();
      for (const name of await readdir(out))
        after.set(name, await readFile(join(out, name), 'utf8'));
      expect(after).toEqual(before);
    });
  }

  it('a second run on the same directory is refused while the first runs; the first completes', async () => {
    await writeFile(join(dir, 'marker'), '');
    const first = rcs(['export', 'all', '--out', 'out', '--concurrency', '2'], slow, dir);
    await waitFor(() => hasPartial(join(dir, 'out')));
    const second = await rcs(['export', 'teams', '--out', 'out'], slow, dir).done;
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/another rcs export is writing to out \(pid \d+/);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    const { code, stderr } = await first.done;
    expect(code, stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'out', 'manifest.json'), 'utf8'));
    expect(manifest.resources).toHaveLength(9);
  });
});
