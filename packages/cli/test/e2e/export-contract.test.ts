/**
 * The export's contract over real processes (the built `rcs`, a real mock or a raw export
 * service on loopback, real files): each scenario as it was seen, and its fix. Item 3 (a crash
 * during the commit) is export-crash.test.ts.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readJsonl, sha } from '../../../../test/support/files.js';
import { HOSTILE_API_KEY, hostileFixture } from '../support/hostile-fixture.js';
import { pageTexts, startRawExportServer } from '../support/raw-export-server.js';
import { assertBuilt, cliLine, runCli, runCommand, startCli, tempDir } from './helpers.js';

let cwd: string;
let mock: MockServer;
beforeAll(async () => {
  assertBuilt();
  cwd = tempDir('rcs-export-contract-');
  mock = await startMockServer({ port: 0, fixture: hostileFixture() });
});
afterAll(async () => {
  await mock.close();
});

const exportAt = (url: string, args: string[]) =>
  runCli(['export', ...args], { cwd, env: { RCS_BASE_URL: url, RCS_API_KEY: HOSTILE_API_KEY } });

const manifestOf = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));

const user = (i: number, name = `U${i}`) =>
  JSON.stringify({
    id: `u-${String(i).padStart(4, '0')}`,
    email: `u${i}@x.example`,
    firstName: name,
    lastName: 'L',
    teamIds: [],
    createdAt: '2026-01-01T00:00:00Z',
  });

describe('item 4: a change state cut at a line boundary, edited or appended to', () => {
  it('is refused naming the file and --full; --full starts over with every record an insert', async () => {
    const dir = join(cwd, 'item4');
    const first = await exportAt(mock.url, ['users', '--changes', '--out', dir]);
    expect(first.code, first.stderr).toBe(0);
    const state = join(dir, (await manifestOf(dir)).resources[0].changes.state);
    const good = await readFile(state, 'utf8');
    const lines = good.split('\n');
    const users = hostileFixture().organizations[0]!.users.length;
    for (const damaged of [
      // `head -n 3`: cut at a line boundary.
      `${lines.slice(0, 3).join('\n')}\n`,
      `${good}"zz-extra"\tAAAAAAAAAAAAAAAAAAAAAA\n`,
      good.replace(/\t[A-Za-z0-9_-]{21}/, '\tBBBBBBBBBBBBBBBBBBBBB'),
    ]) {
      await writeFile(state, damaged);
      const before = await sha(join(dir, 'users.changes.jsonl'));
      const r = await exportAt(mock.url, ['users', '--changes', '--out', dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(state);
      expect(r.stderr).toMatch(/is damaged .*run with --full to start over/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(await sha(join(dir, 'users.changes.jsonl'))).toBe(before);
    }
    const full = await exportAt(mock.url, ['users', '--changes', '--full', '--out', dir]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toMatch(/--full: comparing with no earlier run; every record is an insert/);
    const changes = await readJsonl(join(dir, 'users.changes.jsonl'));
    expect(changes).toHaveLength(users);
    expect(changes.every((c) => c.op === 'insert')).toBe(true);
    expect((await manifestOf(dir)).resources[0].changes.base).toBeNull();
  }, 120_000);
});

describe('item 5: a filter change and --allow-drift never delete live records', () => {
  it('tracks, then --archived only: refused naming both listings and --full, nothing replaced', async () => {
    const dir = join(cwd, 'item5');
    const first = await exportAt(mock.url, ['tracks', '--changes', '--out', dir]);
    expect(first.code, first.stderr).toBe(0);
    const before = await sha(join(dir, 'tracks.changes.jsonl'));
    const r = await exportAt(mock.url, ['tracks', '--archived', 'only', '--changes', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /taken with --archived include, this run lists tracks with --archived only.*--full/,
    );
    expect(await sha(join(dir, 'tracks.changes.jsonl'))).toBe(before);
    // The fix: start over for the new listing.
    const full = await exportAt(mock.url, [
      'tracks',
      '--archived',
      'only',
      '--changes',
      '--full',
      '--out',
      dir,
    ]);
    expect(full.code, full.stderr).toBe(0);
    expect(
      (await readJsonl(join(dir, 'tracks.changes.jsonl'))).every((c) => c.op === 'insert'),
    ).toBe(true);
  });

  it('--allow-drift over a repeated page: no deletes, said on stderr and in the manifest; the next exact run deletes', async () => {
    const dir = join(cwd, 'item5-drift');
    const all = Array.from({ length: 150 }, (_, i) => user(i));
    const clean = pageTexts(all);
    let drifting = false;
    const server = await startRawExportServer((resource, page) => {
      if (resource !== 'users') return undefined;
      // Drift: page 2 repeats 50 records of page 1 instead of the last 50.
      if (drifting && page === 2) {
        return clean(2).replace(
          /"data":\[.*\],"meta"/,
          `"data":[${all.slice(0, 50).join(',')}],"meta"`,
        );
      }
      return clean(page);
    });
    try {
      expect((await exportAt(server.url, ['users', '--changes', '--out', dir])).code).toBe(0);
      drifting = true;
      const r = await exportAt(server.url, ['users', '--changes', '--allow-drift', '--out', dir]);
      expect(r.code, r.stderr).toBe(0);
      const changes = await readJsonl(join(dir, 'users.changes.jsonl'));
      expect(changes.filter((c) => c.op === 'delete')).toEqual([]);
      expect(r.stderr).toMatch(
        /--allow-drift: 50 records missing from the listing were not reported as deleted/,
      );
      expect((await manifestOf(dir)).resources[0].changes).toMatchObject({
        deletes: 0,
        deletesWithheld: 50,
      });
      // The records really gone are reported by the next run that can trust its listing.
      drifting = false;
      const gone = all.slice(0, 140);
      const fewer = pageTexts(gone);
      await server.close();
      const next = await startRawExportServer((resource, page) =>
        resource === 'users' ? fewer(page) : undefined,
      );
      try {
        // The same service's data on another port: --force lets the new URL into the directory.
        const exact = await exportAt(next.url, ['users', '--changes', '--out', dir, '--force']);
        expect(exact.code, exact.stderr).toBe(0);
        const deletes = (await readJsonl(join(dir, 'users.changes.jsonl'))).filter(
          (c) => c.op === 'delete',
        );
        expect(deletes.map((d) => d.id)).toEqual(
          Array.from({ length: 10 }, (_, i) => `u-${String(140 + i).padStart(4, '0')}`),
        );
      } finally {
        await next.close();
      }
    } finally {
      await server.close().catch(() => {});
    }
  });
});

describe('item 6: a lock a new process can judge', () => {
  const lockOf = (dir: string) => join(dir, '.rcs-export.lock');

  it('a lock whose pid is the new process’s own (PID 1 in a restarted container) is taken over', async () => {
    const dir = join(cwd, 'item6-own');
    expect((await exportAt(mock.url, ['teams', '--out', dir])).code).toBe(0);
    // The shell writes the lock with its own pid, then execs rcs: the same pid, as after a
    // container restart where the dead run and the new one are both PID 1.
    const script = `printf '{"pid":%d,"host":"%s","startedAt":"2026-01-01T00:00:00Z"}' $$ "$HOST" > "$LOCK"; exec ${cliLine(['export', 'teams', '--out', dir])}`;
    const r = await runCommand('sh', ['-c', script], {
      cwd,
      env: {
        RCS_BASE_URL: mock.url,
        RCS_API_KEY: HOSTILE_API_KEY,
        HOST: hostname(),
        LOCK: lockOf(dir),
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await readdir(dir)).not.toContain('.rcs-export.lock');
  });

  it('a lock from another host waits for its lease; once expired it is taken over', async () => {
    const dir = join(cwd, 'item6-host');
    expect((await exportAt(mock.url, ['teams', '--out', dir])).code).toBe(0);
    await writeFile(
      lockOf(dir),
      JSON.stringify({ pid: 1, host: 'old-pod-7f9c', startedAt: '2026-01-01T00:00:00Z' }),
    );
    const held = await exportAt(mock.url, ['teams', '--out', dir]);
    expect(held.code).toBe(1);
    expect(held.stderr).toMatch(/another rcs export is writing .*pid 1 on old-pod-7f9c/);
    expect(held.stderr).toMatch(/after 120 s without renewal from another host/);
    // The lease is the one the lock promised (here 1 ms, long past by the time rcs looks),
    // judged by when the file system last saw it renewed: the mtime its host's clock wrote, an
    // hour ahead, counts for nothing.
    await writeFile(
      lockOf(dir),
      JSON.stringify({ pid: 1, host: 'old-pod-7f9c', startedAt: '', leaseMs: 1 }),
    );
    const ahead = new Date(Date.now() + 3_600_000);
    await utimes(lockOf(dir), ahead, ahead);
    const taken = await exportAt(mock.url, ['teams', '--out', dir]);
    expect(taken.code, taken.stderr).toBe(0);
    expect(await readdir(dir)).not.toContain('.rcs-export.lock');
  });

  it('a live run keeps the lock (its lease renewed): a second run on the directory is refused', async () => {
    const dir = join(cwd, 'item6-live');
    const slow = await startMockServer({
      port: 0,
      fixture: hostileFixture(),
      faults: { latencyMs: 3000 },
    });
    try {
      const first = startCli(['export', 'all', '--out', dir], {
        cwd,
        env: { RCS_BASE_URL: slow.url, RCS_API_KEY: HOSTILE_API_KEY },
      });
      // Until the first run holds the lock (it then waits 3 s for its first page).
      await vi.waitFor(
        async () =>
          expect(await readdir(dir).catch((): string[] => [])).toContain('.rcs-export.lock'),
        { timeout: 10_000, interval: 50 },
      );
      const second = await exportAt(mock.url, ['teams', '--out', dir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(
        new RegExp(`another rcs export is writing .*pid ${first.child.pid}`),
      );
      first.child.kill('SIGTERM');
      await first.done;
    } finally {
      await slow.close();
    }
  });
});

describe('item 8 (D29): impossible values fail the run in every format alike', () => {
  const session = (extra: string) =>
    `{"id":"s-0001","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","learnerUserId":"u-1","transcript":"t","language":"en","completed":true,"analysis":{"score":${extra},"items":[]},"missionId":null,"participantUserIds":[]}`;
  const cases: [string, string, RegExp][] = [
    [
      'users',
      user(1).replace('2026-01-01T00:00:00Z', '2026-02-30T00:00:00Z'),
      /export users.*record "u-0001": createdAt is "2026-02-30T00:00:00Z", a date-time that does not exist/,
    ],
    [
      'users',
      user(1).replace('"U1"', '"A\\ud800B"'),
      /export users.*record "u-0001": firstName is "A\\ud800B", text that is not valid Unicode/,
    ],
    [
      'real-call-sessions',
      session('1e400'),
      /export real-call-sessions.*record "s-0001": analysis\.score is Infinity, a number that is not finite/,
    ],
  ];

  it.each(cases)('%s: %s', async (resource, record, message) => {
    const pages = pageTexts([record]);
    const server = await startRawExportServer((r, page) =>
      r === resource ? pages(page) : undefined,
    );
    try {
      for (const format of ['jsonl', 'csv', 'parquet']) {
        const dir = join(
          cwd,
          `item8-${resource}-${format}-${createHash('md5').update(record).digest('hex').slice(0, 6)}`,
        );
        const r = await exportAt(server.url, [
          resource,
          '--format',
          format,
          '--changes',
          '--out',
          dir,
        ]);
        expect(r.code, `${format}: ${r.stderr}`).toBe(1);
        expect(r.stderr, format).toMatch(message);
        expect(r.stderr).not.toMatch(/\(D29\)/);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        // Nothing written: no file, no change state.
        expect((await readdir(dir)).filter((f) => !f.startsWith('.rcs-export'))).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it('a value nested 6,000 levels deep fails the run naming it, not with a stack overflow', async () => {
    const pages = pageTexts([session(`${'['.repeat(6_000)}${']'.repeat(6_000)}`)]);
    const server = await startRawExportServer((r, page) =>
      r === 'real-call-sessions' ? pages(page) : undefined,
    );
    try {
      for (const format of ['jsonl', 'csv', 'parquet']) {
        const dir = join(cwd, `item8-nested-${format}`);
        const r = await exportAt(server.url, [
          'real-call-sessions',
          '--format',
          format,
          '--out',
          dir,
        ]);
        expect(r.code, `${format}: ${r.stderr}`).toBe(1);
        expect(r.stderr, format).toMatch(
          /export real-call-sessions.*record "s-0001": analysis\.score(\[0\])+\.\.\. is \[…\], a value nested deeper than 1000 levels/,
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect((await readdir(dir)).filter((f) => !f.startsWith('.rcs-export'))).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it('bytes that are not UTF-8 on the wire fail the run naming them, not as a silent U+FFFD', async () => {
    const [before, after] = pageTexts([user(1, 'AXB')])(1).split('AXB');
    const body = Buffer.concat([
      Buffer.from(before!),
      Buffer.from([0x41, 0xff, 0x42]),
      Buffer.from(after!),
    ]);
    const server = await startRawExportServer((r) => (r === 'users' ? body : undefined));
    try {
      for (const format of ['jsonl', 'csv', 'parquet']) {
        const dir = join(cwd, `item8-bytes-${format}`);
        const r = await exportAt(server.url, ['users', '--format', format, '--out', dir]);
        expect(r.code, `${format}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toMatch(
          /record "u-0001": firstName is "A\\udcffB", text that is not valid Unicode \(bytes that are not UTF-8 on the wire/,
        );
      }
    } finally {
      await server.close();
    }
  });

  it('Parquet keeps a date-time to the millisecond, equal to JSONL; a finer one is refused by name', async () => {
    const at = [
      '2026-01-01T00:00:00.123Z',
      '2026-01-01T00:00:00.123000Z',
      '2026-01-01T02:00:00.5+02:00',
    ];
    const exact = pageTexts(at.map((t, i) => user(i).replace('2026-01-01T00:00:00Z', t)));
    const finer = [
      '2026-01-01T00:00:00.123456Z',
      '2026-01-01T00:00:00.123456789+00:00',
      '2026-01-01T00:00:00.9999Z',
    ];
    const server = await startRawExportServer((r, page) => {
      if (r === 'users') return exact(page);
      if (r === 'teams') return undefined;
      return undefined;
    });
    try {
      const jsonlDir = join(cwd, 'item5-ms-jsonl');
      const parquetDir = join(cwd, 'item5-ms-parquet');
      expect((await exportAt(server.url, ['users', '--out', jsonlDir])).code).toBe(0);
      const p = await exportAt(server.url, ['users', '--format', 'parquet', '--out', parquetDir]);
      expect(p.code, p.stderr).toBe(0);
      const fromJsonl = (await readFile(join(jsonlDir, 'users.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).createdAt as string);
      expect(fromJsonl).toEqual(at);
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      try {
        const rows = (
          await c.runAndReadAll(
            `SELECT epoch_ms(createdAt) AS ms FROM '${join(parquetDir, 'users.parquet')}' ORDER BY id`,
          )
        ).getRowObjectsJS();
        expect(rows.map((r) => Number(r.ms))).toEqual(fromJsonl.map((t) => Date.parse(t)));
      } finally {
        c.closeSync();
        db.closeSync();
      }
    } finally {
      await server.close();
    }
    for (const [i, t] of finer.entries()) {
      const pages = pageTexts([user(1).replace('2026-01-01T00:00:00Z', t)]);
      const one = await startRawExportServer((r, page) =>
        r === 'users' ? pages(page) : undefined,
      );
      try {
        const p = await exportAt(one.url, [
          'users',
          '--format',
          'parquet',
          '--out',
          join(cwd, `item5-us-${i}`),
        ]);
        expect(p.code).toBe(1);
        expect(p.stderr.trim()).toMatch(
          new RegExp(
            `export users.*record "u-0001": createdAt must be a date-time \\(TIMESTAMP\\), got "${t.replaceAll('.', '\\.').replaceAll('+', '\\+')}": the column holds milliseconds and this value is finer; the jsonl or csv format keeps it as text`,
          ),
        );
        const dir = join(cwd, `item5-us-jsonl-${i}`);
        expect((await exportAt(one.url, ['users', '--out', dir])).code).toBe(0);
        expect(await readFile(join(dir, 'users.jsonl'), 'utf8')).toContain(`"createdAt":"${t}"`);
      } finally {
        await one.close();
      }
    }
  }, 120_000);

  it('-0 and 1e-400 (nearest double: 0) are 0 in every format, Parquet included', async () => {
    const session = (id: string, score: string) =>
      `{"id":"${id}","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","learnerUserId":"u-1","transcript":"t","language":"en","completed":true,"analysis":{"score":${score},"items":[]},"missionId":null,"participantUserIds":[]}`;
    const pages = pageTexts([
      session('s-1', '-0'),
      session('s-2', '1e-400'),
      session('s-3', '-0.0'),
    ]);
    const server = await startRawExportServer((r, page) =>
      r === 'real-call-sessions' ? pages(page) : undefined,
    );
    try {
      const out = (f: string) => join(cwd, `item5-zero-${f}`);
      for (const f of ['jsonl', 'csv', 'parquet']) {
        const r = await exportAt(server.url, [
          'real-call-sessions',
          '--format',
          f,
          '--out',
          out(f),
        ]);
        expect(r.code, r.stderr).toBe(0);
      }
      const jsonl = await readFile(join(out('jsonl'), 'real-call-sessions.jsonl'), 'utf8');
      expect(jsonl.match(/"score":[^,}]*/g)).toEqual(['"score":0', '"score":0', '"score":0']);
      const csv = await readFile(join(out('csv'), 'real-call-sessions.csv'), 'utf8');
      const scores = csv
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',')[7]);
      expect(scores).toEqual(['0', '0', '0']);
      const db = await DuckDBInstance.create(':memory:');
      const c = await db.connect();
      try {
        const rows = (
          await c.runAndReadAll(
            `SELECT analysis.score::VARCHAR AS s FROM '${join(out('parquet'), 'real-call-sessions.parquet')}' ORDER BY id`,
          )
        ).getRowObjectsJS();
        expect(rows.map((r) => r.s)).toEqual(['0.0', '0.0', '0.0']);
      } finally {
        c.closeSync();
        db.closeSync();
      }
    } finally {
      await server.close();
    }
  }, 120_000);

  it('the same record with possible values exports in every format (the control)', async () => {
    const pages = pageTexts([user(1)]);
    const server = await startRawExportServer((r, page) =>
      r === 'users' ? pages(page) : undefined,
    );
    try {
      for (const format of ['jsonl', 'csv', 'parquet']) {
        const r = await exportAt(server.url, [
          'users',
          '--format',
          format,
          '--out',
          join(cwd, `item8-ok-${format}`),
        ]);
        expect(r.code, r.stderr).toBe(0);
      }
    } finally {
      await server.close();
    }
  });
});
