/**
 * `rcs export` as users run it: the built CLI (`npm run build` first) spawned as a process, with
 * real signals, against the mock over HTTP.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EXPORT_TABLE } from '@rcs/client';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { assertBuilt, type Running, startCli } from './helpers.js';

/** The rows of each row group of a Parquet file, in order, as DuckDB reads its footer. */
async function rowGroupsOf(path: string): Promise<number[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const rows = await c.runAndReadAll(
      `SELECT row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata('${path.replaceAll("'", "''")}') GROUP BY row_group_id ORDER BY row_group_id`,
    );
    return rows.getRowObjectsJS().map((r) => Number(r.n));
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

function rcs(args: string[], mock: MockServer, cwd: string): Running {
  return startCli(args, { cwd, env: { RCS_BASE_URL: mock.url, RCS_API_KEY: mock.info.apiKey } });
}

/** Until `check` holds: a file appearing in another process's output directory. */
async function waitFor(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  await vi.waitFor(async () => expect(await check()).toBe(true), { timeout: ms, interval: 10 });
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
    assertBuilt();
    mock = await startMockServer({ port: 0, records: 2000, seed: 11 });
    slow = await startMockServer({ port: 0, records: 4000, seed: 11, faults: { latencyMs: 50 } });
  });
  afterAll(async () => {
    await Promise.all([mock.close(), slow.close()]);
  });

  it('exports all nine to CSV; --json prints the manifest on stdout, off a TTY only the finished line on stderr', async () => {
    const { code, stdout, stderr } = await rcs(
      ['export', 'all', '--format', 'csv', '--out', 'out', '--json'],
      mock,
      dir,
    ).done;
    expect(stderr).toMatch(
      /^rcs export: 9 exports, [\d,]+ records, written to out \(manifest\.json\) in [\d.]+ s\n$/,
    );
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
    // No export file in the working directory. HOME is that directory here, so Node's compile
    // cache (~/.cache/rcs) may appear in it: that is the user's cache, not an output.
    expect((await readdir(dir)).filter((name) => name !== '.cache')).toEqual([]);
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

  it.each([
    [
      ['--concurrency', 'abc'],
      "option '--concurrency <n>' argument 'abc' is invalid. It must be a number in digits",
    ],
    [['--concurrency', '0'], '--concurrency must be a whole number from 1 to 64, got 0'],
    [['--concurrency', '1.5'], '--concurrency must be a whole number from 1 to 64, got 1.5'],
    [
      ['--format', 'parquet', '--row-group-rows', '1e5'],
      "option '--row-group-rows <n>' argument '1e5' is invalid. It must be a number in digits",
    ],
    [
      ['--format', 'parquet', '--row-group-bytes', '0'],
      '--row-group-bytes must be a whole number from 1 to 1073741824, got 0',
    ],
    [['--row-group-rows', '1000'], '--row-group-rows applies to --format parquet only'],
    [['--compression', 'zstd'], '--compression applies to --format parquet only'],
    [['--format', 'parquet', '--compression', 'gzip'], "'gzip' is invalid"],
  ])('%j exits 2 with one line naming the flag, before any request', async (flags, message) => {
    const out = join(dir, 'never');
    const { code, stderr } = await rcs(['export', 'users', '--out', 'never', ...flags], mock, dir)
      .done;
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(message);
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it('--row-group-rows N cuts the Parquet row groups at N rows', async () => {
    const out = join(dir, 'groups');
    const { code, stderr } = await rcs(
      ['export', 'users', '--format', 'parquet', '--row-group-rows', '7', '--out', 'groups'],
      mock,
      dir,
    ).done;
    expect(code, stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const users = manifest.resources[0];
    const groups = await rowGroupsOf(join(out, users.file));
    expect(groups.reduce((n, g) => n + g, 0)).toBe(users.count);
    expect(groups.slice(0, -1).every((g) => g === 7)).toBe(true);
    expect(groups.at(-1)).toBeLessThanOrEqual(7);
  });

  it('--compression zstd and none write files DuckDB reads equal to the snappy default', async () => {
    const files: Record<string, string> = {};
    for (const compression of ['snappy', 'zstd', 'none']) {
      const args = ['export', 'real-call-sessions', '--format', 'parquet', '--out', compression];
      if (compression !== 'snappy') args.push('--compression', compression);
      const { code, stderr } = await rcs(args, mock, dir).done;
      expect(code, stderr).toBe(0);
      const manifest = JSON.parse(await readFile(join(dir, compression, 'manifest.json'), 'utf8'));
      expect(manifest.resources[0].parquet.compression).toBe(compression);
      expect(manifest.resources[0].items.parquet.compression).toBe(compression);
      files[compression] = join(dir, compression, manifest.resources[0].file);
      files[`${compression} items`] = join(dir, compression, manifest.resources[0].items.file);
    }
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    const q = (sql: string) => c.runAndReadAll(sql).then((r) => r.getRowObjectsJS());
    try {
      for (const [compression, codec] of [
        ['zstd', 'ZSTD'],
        ['none', 'UNCOMPRESSED'],
      ]) {
        for (const table of ['', ' items']) {
          const [file, snappy] = [files[compression + table]!, files[`snappy${table}`]!];
          const codecs = await q(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
          expect(codecs).toEqual([{ compression: codec }]);
          // Value for value: no row of one file is missing from the other, and none is extra.
          const { n } = (await q(`SELECT count(*) AS n FROM '${file}'`))[0]!;
          const { m } = (await q(`SELECT count(*) AS m FROM '${snappy}'`))[0]!;
          expect(n).toBe(m);
          expect(Number(n)).toBeGreaterThan(0);
          for (const [a, b] of [
            [file, snappy],
            [snappy, file],
          ]) {
            const { d } = (
              await q(
                `SELECT count(*) AS d FROM (SELECT * FROM '${a}' EXCEPT ALL SELECT * FROM '${b}')`,
              )
            )[0]!;
            expect(d).toBe(0n);
          }
        }
      }
    } finally {
      c.closeSync();
      db.closeSync();
    }
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

      // The slow mock is another service (another port): --force lets it into the directory.
      const run = rcs(
        ['export', 'all', '--out', 'out', '--concurrency', '2', '--force'],
        slow,
        dir,
      );
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
