/**
 * `rcs export` end to end, in process: runExport with a fake context against the mock over real
 * HTTP (startMockServer on port 0) and the real client.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRcsClient, EXPORT_TABLE, type RcsClient } from '@rcs/client';
import { recordShapeOf, SESSION_ITEM_SHAPE } from '@rcs/export';
import { type MockServer, startMockServer } from '@rcs/mock/node';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { csvColumnsOf } from '../../../export/src/formats/columns.js';
import type { ExportOptions } from '../../src/commands/export.js';
import { runExport } from '../../src/commands/export.js';
import { InterruptedError } from '../../src/errors.js';
import { fakeContext } from '../support/context.js';
import { HOSTILE_API_KEY, HOSTILE_CELLS, hostileFixture } from '../support/hostile-fixture.js';

type Rec = { id: string } & Record<string, unknown>;

const options = (over: Partial<ExportOptions> = {}): ExportOptions => ({
  resources: ['all'],
  format: 'jsonl',
  out: '',
  concurrency: 8,
  csvRaw: false,
  bom: false,
  allowDrift: false,
  ...over,
});

function clientFor(mock: MockServer, apiKey: string, fetchImpl?: typeof fetch): () => RcsClient {
  return () =>
    createRcsClient({
      baseUrl: mock.url,
      apiKey,
      initialDelayMs: 5,
      maxDelayMs: 20,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
}

/** An independent reader: one sequential page loop with plain fetch, no SDK, no CLI code. */
async function readAll(mock: MockServer, apiKey: string, path: string, query = ''): Promise<Rec[]> {
  const out: Rec[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${mock.url}${path}?page=${page}&limit=100${query}`, {
      headers: { 'X-API-KEY': apiKey },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Rec[]; meta: { hasNext: boolean } };
    out.push(...body.data);
    if (!body.meta.hasNext) return out;
  }
}

const readJsonl = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Rec);

const readCsv = async (file: string) =>
  parse(await readFile(file, 'utf8'), { bom: true }) as string[][];

/** EXPORT.md's flattening, written independently of the CLI's code. */
function flatCell(record: unknown, column: string): string {
  let v: unknown = record;
  for (const key of column.split('.')) v = (v as Record<string, unknown> | undefined)?.[key];
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-export-e2e-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('rcs export against the mock (hostile fixture)', () => {
  let mock: MockServer;
  const fixture = hostileFixture();
  const org = fixture.organizations[0]!;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, fixture });
  });
  afterAll(async () => {
    await mock.close();
  });

  it('writes all nine as JSONL, record for record the fixture, with a verified manifest', async () => {
    const { ctx, stderr } = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY) });
    const out = join(dir, 'out');
    expect(await runExport(options({ out }), ctx), stderr()).toBe(0);

    const byId = (rs: Rec[]) => [...rs].sort((a, b) => a.id.localeCompare(b.id));
    const pick = (rs: Rec[], keys: string[]) =>
      rs.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])) as Rec);
    const expected: Record<string, Rec[]> = {
      users: org.users,
      teams: org.teams,
      tracks: org.tracks,
      sprints: org.sprints,
      'track-assignments': org.trackAssignments,
      'mission-assignments': org.missionAssignments,
      scorecards: pick(org.scorecards, ['id', 'title', 'language']),
      missions: pick(org.missions, ['id', 'title', 'language']),
    };
    for (const [resource, records] of Object.entries(expected)) {
      expect(byId(await readJsonl(join(out, `${resource}.jsonl`))), resource).toEqual(
        byId(records),
      );
    }
    // Sessions: the export shape of D10 (learnerUserId, items with itemScore, undetected → notSolved).
    const sessions = byId(await readJsonl(join(out, 'real-call-sessions.jsonl')));
    expect(sessions.map((s) => s.id)).toEqual(org.realCallSessions.map((s) => s.id).sort());
    for (const s of org.realCallSessions) {
      const got = sessions.find((r) => r.id === s.id)!;
      expect(got.learnerUserId).toBe(s.userId);
      expect(got.transcript).toBe(s.call.transcript);
      expect(got.analysis).toEqual({
        score: s.analysis.score,
        items: s.analysis.items.map((i) => ({
          name: i.name,
          solved: i.solved === 'undetected' || i.solved == null ? 'notSolved' : i.solved,
          explanation: i.explanation,
          suggestion: i.suggestion,
          itemScore: i.score,
        })),
      });
    }

    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      status: 'complete',
      format: 'jsonl',
      tool: { name: 'rcs', version: '0.0.0-test' },
    });
    expect(manifest.resources.map((e: { resource: string }) => e.resource)).toEqual(
      EXPORT_TABLE.map((e) => e.resource),
    );
    for (const entry of manifest.resources) {
      const file = join(out, entry.file);
      expect(entry.sha256).toBe(await sha256(file));
      expect(entry.count).toBe(entry.total);
      expect(entry.status).toBe('complete');
      expect(Date.parse(entry.finishedAt)).toBeGreaterThanOrEqual(Date.parse(entry.startedAt));
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }
    expect((await stat(join(out, 'manifest.json'))).mode & 0o777).toBe(0o600);
    // Nothing else left behind: no lock, no partial files.
    expect((await readdir(out)).sort()).toEqual(
      [...EXPORT_TABLE.map((e) => `${e.resource}.jsonl`), 'manifest.json'].sort(),
    );
  });

  it('writes all nine as CSV: schema header, RFC 4180, neutralised formulas, items child table', async () => {
    const out = join(dir, 'csv');
    const raw = join(dir, 'raw');
    const jsonl = join(dir, 'jsonl');
    for (const [o, format, csvRaw] of [
      [out, 'csv', false],
      [raw, 'csv', true],
      [jsonl, 'jsonl', false],
    ] as const) {
      const { ctx, stderr } = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY) });
      expect(
        await runExport(options({ out: o, format, csvRaw, bom: format === 'csv' }), ctx),
        stderr(),
      ).toBe(0);
    }
    const looksLikeFormula = (s: string) =>
      /^\s*[=+\-@]/.test(s) && !/^[+-]?\d+(\.\d+)?$/.test(s) ? true : /^[\t\r\n]/.test(s);

    let neutralised = 0;
    for (const { resource } of EXPORT_TABLE) {
      const records = await readJsonl(join(jsonl, `${resource}.jsonl`));
      const text = await readFile(join(out, `${resource}.csv`), 'utf8');
      expect(text.startsWith('\uFEFF')).toBe(true);
      expect(text.endsWith('\r\n')).toBe(true);
      const [header, ...rows] = await readCsv(join(out, `${resource}.csv`));
      const [rawHeader, ...rawRows] = await readCsv(join(raw, `${resource}.csv`));
      expect(header).toEqual([...csvColumnsOf(recordShapeOf(resource))]);
      expect(rawHeader).toEqual(header);
      expect(rows).toHaveLength(records.length);
      records.forEach((record, i) => {
        const expectedRaw = header!.map((c) => flatCell(record, c));
        // --csv-raw: exactly the values.
        expect(rawRows[i], `${resource} row ${i}`).toEqual(expectedRaw);
        // Default: the same, except formula-like cells, which gain a leading quote.
        rows[i]!.forEach((cell, j) => {
          const value = expectedRaw[j]!;
          if (looksLikeFormula(value)) {
            expect(cell).toBe(`'${value}`);
            neutralised++;
          } else expect(cell).toBe(value);
        });
      });
    }
    expect(neutralised).toBeGreaterThan(0);

    // Specific cells as a spreadsheet user would see them.
    const [teamHeader, ...teams] = await readCsv(join(out, 'teams.csv'));
    const names = teams.map((r) => r[teamHeader!.indexOf('name')]);
    expect(names).toContain(`'=HYPERLINK("http://evil.example","click")`);
    expect(names).toContain('+1');
    expect(names).toContain('-2');
    expect(names).toContain("'@x");
    expect(names).toContain("' =x");
    expect(names).toContain("'-3+4");
    expect(names).toContain('say "hi", then, leave');
    expect(names).toContain('line one\nline two\r\nline three');
    expect(names).toContain('Zoë Ångström-Łukasiewicz');
    expect(names).toContain('李小龍 🚀');
    expect(HOSTILE_CELLS.length).toBeGreaterThan(5);

    // Items: one row per analysis item, keyed by sessionId, joinable to the sessions table.
    const sessions = await readJsonl(join(jsonl, 'real-call-sessions.jsonl'));
    const [itemHeader, ...items] = await readCsv(join(raw, 'real-call-session-items.csv'));
    const SESSION_ITEM_COLUMNS = csvColumnsOf(SESSION_ITEM_SHAPE);
    expect(itemHeader).toEqual([...SESSION_ITEM_COLUMNS]);
    const expectedItems = sessions.flatMap((s) =>
      ((s.analysis as { items: Rec[] }).items ?? []).map((item, index) => [
        s.id,
        String(index),
        ...SESSION_ITEM_COLUMNS.slice(2).map((c) => flatCell(item, c)),
      ]),
    );
    expect(items).toEqual(expectedItems);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    const sessionsEntry = manifest.resources.find(
      (e: { resource: string }) => e.resource === 'real-call-sessions',
    );
    expect(sessionsEntry.items).toMatchObject({
      file: 'real-call-session-items.csv',
      count: expectedItems.length,
    });
    expect(sessionsEntry.items.sha256).toBe(await sha256(join(out, 'real-call-session-items.csv')));
  });

  it('--archived only exports just the archived tracks (D8)', async () => {
    const { ctx } = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY) });
    expect(
      await runExport(options({ resources: ['tracks'], out: dir, archived: 'only' }), ctx),
    ).toBe(0);
    const tracks = await readJsonl(join(dir, 'tracks.jsonl'));
    expect(tracks.map((t) => t.id).sort()).toEqual(
      org.tracks
        .filter((t) => t.archived)
        .map((t) => t.id)
        .sort(),
    );
  });

  it('--out - streams one export to stdout; --json prints the manifest', async () => {
    const streamed = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY) });
    expect(await runExport(options({ resources: ['teams'], out: '-' }), streamed.ctx)).toBe(0);
    const lines = streamed
      .stdout()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec);
    expect(lines.map((r) => r.id).sort()).toEqual(org.teams.map((t) => t.id).sort());

    const json = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY), json: true });
    expect(await runExport(options({ resources: ['users', 'teams'], out: dir }), json.ctx)).toBe(0);
    expect(JSON.parse(json.stdout())).toEqual(
      JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')),
    );
  });

  it('on a TTY: progress and a summary table on stderr, nothing on stdout; --quiet silences both', async () => {
    const tty = fakeContext({ client: clientFor(mock, HOSTILE_API_KEY), stderrIsTTY: true });
    expect(await runExport(options({ out: join(dir, 'a'), format: 'csv' }), tty.ctx)).toBe(0);
    expect(tty.stdout()).toBe('');
    expect(tty.stderr()).toMatch(/teams\s+36\/36 100%/);
    expect(tty.stderr()).toMatch(/export\s+records\s+total\s+time\s+status\s+file/);
    expect(tty.stderr()).toMatch(
      /real-call-sessions\s+3\s+3 .* complete\s+real-call-sessions\.csv \+ real-call-session-items\.csv \(6 rows\)/,
    );
    const quiet = fakeContext({
      client: clientFor(mock, HOSTILE_API_KEY),
      stderrIsTTY: true,
      quiet: true,
    });
    expect(await runExport(options({ out: join(dir, 'b') }), quiet.ctx)).toBe(0);
    expect(quiet.stderr()).toBe('');
  });

  it('an unknown API key exits 4 and leaves nothing behind', async () => {
    const { ctx, stderr } = fakeContext({ client: clientFor(mock, 'not-a-real-key-123') });
    expect(await runExport(options({ out: dir }), ctx)).toBe(4);
    expect(stderr()).toMatch(/401/);
    expect(stderr().trim().split('\n')).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('rcs export usage errors (exit 2, before any request)', () => {
  const never = () => {
    throw new Error('no request may be made');
  };
  it.each([
    [
      { resources: ['userz'] },
      /unknown export "userz"; the exports are: real-call-sessions, track-assignments, mission-assignments, sprints, users, tracks, scorecards, missions, teams/,
    ],
    [{ resources: ['users', 'teams'], out: '-' }, /--out - streams exactly one export/],
    [{ resources: ['all'], out: '-' }, /--out - streams exactly one export/],
    [{ bom: true }, /--bom applies to --format csv only/],
    [{ concurrency: 0 }, /--concurrency must be an integer from 1 to 64/],
    [
      { resources: ['users'], archived: 'include' as const },
      /--archived applies to the tracks export only/,
    ],
    [{ format: 'xml' as 'csv' }, /--format must be jsonl, csv or parquet, got "xml"/],
    [{ changes: true, out: '-', resources: ['users'] }, /--changes .* needs --out DIR, not -/],
  ])('%o', async (over, message) => {
    const { ctx, stderr } = fakeContext({ client: never });
    expect(await runExport(options({ out: dir, ...over }), ctx)).toBe(2);
    expect(stderr()).toMatch(message);
    expect(stderr().trim().split('\n')).toHaveLength(1);
  });
});

describe('rcs export output directory problems', () => {
  const noRequests = () =>
    ({
      exportsByResource: () => ({
        listBody: () => {
          throw new Error('no request may be made');
        },
      }),
    }) as unknown as RcsClient;

  it('an --out path that is a file exits 2 before any request', async () => {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    const { ctx, stderr } = fakeContext({ client: noRequests });
    expect(await runExport(options({ out: file }), ctx)).toBe(2);
    expect(stderr()).toMatch(
      /--out .*not-a-dir: cannot use it as the output directory \(it is a file\)/,
    );
  });
});

describe('rcs export against the generated demo dataset', () => {
  let mock: MockServer;
  let faulty: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, records: 6000, seed: 7 });
    faulty = await startMockServer({ port: 0, records: 6000, seed: 7, faults: { faultRate: 0.2 } });
  });
  afterAll(async () => {
    await Promise.all([mock.close(), faulty.close()]);
  });

  it('exports every record of the nine exactly as a plain sequential page loop reads them', async () => {
    const key = mock.info.apiKey!;
    const { ctx, stderr } = fakeContext({ client: clientFor(mock, key) });
    expect(await runExport(options({ out: dir }), ctx), stderr()).toBe(0);
    let total = 0;
    for (const entry of EXPORT_TABLE) {
      const expected = await readAll(mock, key, entry.path);
      const got = await readJsonl(join(dir, `${entry.resource}.jsonl`));
      expect(got, entry.resource).toEqual(expected);
      total += got.length;
    }
    expect(total).toBeGreaterThan(5000);
  });

  it('fault injection (20% of requests fail) gives byte-identical files', async () => {
    const clean = join(dir, 'clean');
    const noisy = join(dir, 'noisy');
    const a = fakeContext({ client: clientFor(mock, mock.info.apiKey!) });
    expect(await runExport(options({ out: clean, format: 'csv' }), a.ctx), a.stderr()).toBe(0);
    const b = fakeContext({ client: clientFor(faulty, faulty.info.apiKey!) });
    expect(await runExport(options({ out: noisy, format: 'csv' }), b.ctx), b.stderr()).toBe(0);
    const ma = JSON.parse(await readFile(join(clean, 'manifest.json'), 'utf8'));
    const mb = JSON.parse(await readFile(join(noisy, 'manifest.json'), 'utf8'));
    const digest = (m: { resources: { resource: string; sha256: string; count: number }[] }) =>
      m.resources.map((e) => [e.resource, e.count, e.sha256]);
    expect(digest(mb)).toEqual(digest(ma));
  });

  it('a list that shifts between pages fails with one line and leaves the previous files untouched', async () => {
    const key = mock.info.apiKey!;
    const good = fakeContext({ client: clientFor(mock, key) });
    expect(await runExport(options({ out: dir }), good.ctx)).toBe(0);
    const before = new Map<string, string>();
    for (const name of await readdir(dir)) before.set(name, await sha256(join(dir, name)));

    // A wrapper fetch that shifts users page 2 back by one record: its first record repeats
    // page 1's last, as when a record is inserted before the offset between two requests.
    const shifting: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (url.pathname.endsWith('/users') && url.searchParams.get('page') === '2') {
        url.searchParams.set('page', '1');
        const first = (await (await fetch(url, { headers: request.headers })).json()) as {
          data: Rec[];
        };
        const res = await fetch(request);
        const body = (await res.json()) as { data: Rec[]; meta: unknown };
        body.data = [first.data.at(-1)!, ...body.data.slice(0, -1)];
        return new Response(JSON.stringify(body), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      }
      return fetch(request);
    };
    const bad = fakeContext({ client: clientFor(mock, key, shifting) });
    expect(await runExport(options({ out: dir }), bad.ctx)).toBe(1);
    expect(bad.stderr().trim().split('\n')).toHaveLength(1);
    expect(bad.stderr()).toMatch(/users: page 2 repeats 1 record/);
    expect(bad.stderr()).toMatch(/--allow-drift/);
    const after = new Map<string, string>();
    for (const name of await readdir(dir)) after.set(name, await sha256(join(dir, name)));
    expect(after).toEqual(before);

    // --allow-drift: accepted, de-duplicated, and recorded in the manifest.
    const drift = fakeContext({ client: clientFor(mock, key, shifting) });
    expect(
      await runExport(options({ out: dir, resources: ['users'], allowDrift: true }), drift.ctx),
    ).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.status).toBe('drift');
    expect(manifest.resources[0]).toMatchObject({
      resource: 'users',
      status: 'drift',
      duplicates: 1,
    });
    expect(manifest.resources[0].count).toBe(manifest.resources[0].total - 1);
    expect(drift.stderr()).toMatch(/warning: export users/);
    const users = await readJsonl(join(dir, 'users.jsonl'));
    expect(new Set(users.map((u) => u.id)).size).toBe(users.length);
  });
});

describe('rcs export exactness checks over HTTP (a wrapper fetch misbehaves on one page)', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startMockServer({ port: 0, records: 2900, seed: 5 }); // 201-300 users: 3 pages
  });
  afterAll(async () => {
    await mock.close();
  });

  type Body = {
    data: Rec[];
    meta: { total: number; page: number; limit: number; hasNext: boolean };
  };
  /** Rewrites the answer to `GET …/users?page=2` (of 3). */
  const tampering =
    (edit: (body: Body, page1: Body) => Body): typeof fetch =>
    async (input, init) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      const res = await fetch(request);
      if (!url.pathname.endsWith('/users') || url.searchParams.get('page') !== '2') return res;
      url.searchParams.set('page', '1');
      const previous = (await (await fetch(url, { headers: request.headers })).json()) as Body;
      const body = edit((await res.json()) as Body, previous);
      return new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    };

  it.each([
    [
      'echoes the wrong meta.page',
      (b: Body) => ({ ...b, meta: { ...b.meta, page: 1 } }),
      /page 2 came back as meta\.page 1/,
    ],
    [
      'repeats the previous page',
      (b: Body, prev: Body) => ({ ...b, data: prev.data }),
      /page 2 repeats page 1/,
    ],
    [
      'says hasNext: false before total',
      (b: Body) => ({ ...b, meta: { ...b.meta, hasNext: false } }),
      /page 2 says hasNext: false after 200 of \d+ records \(3 pages expected\)/,
    ],
    [
      'reports another meta.total',
      (b: Body) => ({ ...b, meta: { ...b.meta, total: b.meta.total + 1 } }),
      /meta\.total changed from \d+ \(page 1\) to \d+ \(page 2\)/,
    ],
  ])(
    'a page that %s fails the run (exit 1, one line, nothing written)',
    async (_what, edit, message) => {
      const { ctx, stderr } = fakeContext({
        client: clientFor(mock, mock.info.apiKey!, tampering(edit)),
      });
      expect(await runExport(options({ out: dir }), ctx)).toBe(1);
      expect(stderr()).toMatch(message);
      expect(stderr().trim().split('\n')).toHaveLength(1);
      expect(await readdir(dir)).toEqual([]);
    },
  );

  it('a service failure on one export names it, exits 1 and writes nothing', async () => {
    const failing: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (new URL(request.url).pathname.endsWith('/missions')) {
        return new Response(
          JSON.stringify({
            type: 'about:blank',
            title: 'Boom',
            status: 500,
            detail: 'boom',
            code: 'internal',
          }),
          {
            status: 500,
            headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-500' },
          },
        );
      }
      return fetch(request);
    };
    const { ctx, stderr } = fakeContext({ client: clientFor(mock, mock.info.apiKey!, failing) });
    expect(await runExport(options({ out: dir }), ctx)).toBe(1);
    expect(stderr().trim().split('\n')).toHaveLength(1);
    // The line ends with the service's request id (docs/cli-reference.md "Request ids").
    expect(stderr()).toMatch(
      /^rcs: export missions failed: the service failed \(500\) after retries.*; files in .+ were left as they were \(request id req-500\)\n$/,
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('all nine exports together never have more than --concurrency requests in flight', async () => {
    let inFlight = 0;
    let max = 0;
    const counting: typeof fetch = async (input, init) => {
      inFlight++;
      max = Math.max(max, inFlight);
      try {
        await new Promise((r) => setTimeout(r, 5));
        return await fetch(input, init);
      } finally {
        inFlight--;
      }
    };
    const { ctx, stderr } = fakeContext({ client: clientFor(mock, mock.info.apiKey!, counting) });
    expect(await runExport(options({ out: dir, concurrency: 3 }), ctx), stderr()).toBe(0);
    expect(max).toBe(3);
  });
});

describe('rcs export interruption and locking', () => {
  let slow: MockServer;
  beforeAll(async () => {
    slow = await startMockServer({ port: 0, records: 3000, seed: 3, faults: { latencyMs: 40 } });
  });
  afterAll(async () => {
    await slow.close();
  });

  it('SIGTERM mid-run: exit 143, previous files and manifest untouched, partial files removed', async () => {
    const key = slow.info.apiKey!;
    await writeFile(join(dir, 'users.jsonl'), 'previous users\n');
    await writeFile(join(dir, 'manifest.json'), '{"previous":true}\n');
    const ac = new AbortController();
    const { ctx, stderr } = fakeContext({ client: clientFor(slow, key), signal: ac.signal });
    const run = runExport(options({ out: dir, concurrency: 2 }), ctx);
    // Until the run has written something aside (a file appearing), then stop it.
    await vi.waitFor(
      async () => expect((await readdir(dir)).some((n) => n.endsWith('.partial'))).toBe(true),
      { timeout: 10_000, interval: 10 },
    );
    ac.abort(new InterruptedError('SIGTERM'));
    expect(await run).toBe(143);
    expect(stderr()).toMatch(/interrupted/);
    expect(await readFile(join(dir, 'users.jsonl'), 'utf8')).toBe('previous users\n');
    expect(await readFile(join(dir, 'manifest.json'), 'utf8')).toBe('{"previous":true}\n');
    expect((await readdir(dir)).sort()).toEqual(['manifest.json', 'users.jsonl']);
  });

  it('refuses a second run on the same directory while one is running', async () => {
    const key = slow.info.apiKey!;
    const first = fakeContext({ client: clientFor(slow, key) });
    const running = runExport(options({ out: dir, concurrency: 2 }), first.ctx);
    // Until the first run holds the lock (a file appearing).
    await vi.waitFor(
      async () =>
        expect(await readdir(dir).catch((): string[] => [])).toContain('.rcs-export.lock'),
      { timeout: 10_000, interval: 5 },
    );
    const second = fakeContext({ client: clientFor(slow, key) });
    expect(await runExport(options({ out: dir }), second.ctx)).toBe(1);
    // Both runs are in this process (same pid): the lock tells them apart by what this process
    // holds, not by the pid (a lock with our own pid but not held here is a dead owner's).
    expect(second.stderr()).toMatch(/another export of this process is writing to /);
    expect(await running, first.stderr()).toBe(0);
    expect(await readdir(dir)).toContain('manifest.json');
  });
});
