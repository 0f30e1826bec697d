import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { PageBody } from '@rcs/client';
import {
  type ExportOptions,
  type ExportProgressEvent,
  ImpossibleValueError,
  type Manifest,
  ResourceExportError,
} from '@rcs/export';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../../../test/support/files.js';
import { planExport } from '../src/options.js';
import {
  type ExportClient,
  type ExportScope,
  exportToDirectory,
  exportToStream,
  type RequestCounts,
} from '../src/run.js';
import { bytesAndHash, fakeService, item, session, steppingClock } from './support/fake-service.js';

/** What the service sends: the page's JSON, as the client's `listBody` gives it. */
const answer = (page: unknown) => new PageBody(new TextEncoder().encode(JSON.stringify(page)));

/**
 * One turn of the event loop: what follows from the answers already in (and needs no I/O) has
 * happened by then.
 */
const aTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * A scope that notes each export as it starts (the run calls it first thing), and `finished`:
 * resolves when the export of `resource` has done its work (its file finished).
 */
function startsNoted() {
  const started: string[] = [];
  const ends = new Map<string, () => void>();
  const finished = (resource: string) =>
    new Promise<void>((resolve) => {
      ends.set(resource, resolve);
    });
  const scope: ExportScope = async (resource, work) => {
    started.push(resource);
    const done = await work(() => {});
    ends.get(resource)?.();
    return done;
  };
  return { scope, started, finished };
}

/** A JSONL plan of users, then teams, into `dir`. */
const usersThenTeams = (dir: string, concurrency: number) =>
  planExport({
    resources: ['users', 'teams'],
    format: 'jsonl',
    out: dir,
    concurrency,
    csvRaw: false,
    bom: false,
    allowDrift: false,
  });

const client: ExportClient = {
  exportsByResource: (resource) => ({
    listBody: async ({ page, limit }) =>
      answer({
        data: [{ id: `${resource}-1` }],
        meta: { total: 1, page, limit, hasNext: false },
      }),
  }),
};

describe('exportToDirectory: committing the files', () => {
  it('a rename that fails part-way still removes every partial file of the run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // teams.jsonl is a non-empty directory, so renaming the finished file over it fails; users
    // (earlier in table order) is committed before that.
    await mkdir(join(dir, 'teams.jsonl'));
    await writeFile(join(dir, 'teams.jsonl', 'keep'), '');
    const plan = usersThenTeams(dir, 2);
    await expect(
      exportToDirectory(plan, {
        client,
        signal: new AbortController().signal,
        version: 'test',
      }),
    ).rejects.toThrow(/teams\.jsonl/);
    const left = await readdir(dir);
    expect(left.filter((n) => n.endsWith('.partial'))).toEqual([]);
    expect(left).not.toContain('manifest.json');
  });
});

describe('exportToDirectory: one export after another', () => {
  it('each export has the whole window, and the next starts once every page of it is requested', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // A page held back blocks the head of the export's reorder buffer: the export then asks for
    // pages up to the held one + its window - 1, and no further, until that page comes.
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const requests: string[] = [];
    let usersFurthest = 0;
    // The window's last page (2 + 16 - 1): once asked for, the export can only wait for page 2.
    let reachedWindow!: () => void;
    const windowReached = new Promise<void>((r) => {
      reachedWindow = r;
    });
    // Every answer but page 2's, as it is given.
    const answers: Promise<unknown>[] = [];
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        listBody: async ({ page, limit }) => {
          requests.push(resource);
          if (resource === 'users') {
            usersFurthest = Math.max(usersFurthest, page);
            if (usersFurthest >= 2 + 16 - 1) reachedWindow();
            if (page === 2) await opened;
          }
          const pages = resource === 'teams' ? 3 : 60;
          const data = Array.from({ length: limit }, (_, i) => ({
            id: `${resource}-${(page - 1) * limit + i}`,
          }));
          const given = answer({
            data,
            meta: { total: pages * limit, page, limit, hasNext: page < pages },
          });
          answers.push(Promise.resolve(given));
          return given;
        },
      }),
    };
    let wroteFirstPage!: () => void;
    const firstPageWritten = new Promise<void>((r) => {
      wroteFirstPage = r;
    });
    const { scope, started } = startsNoted();
    /**
     * Waits for the window's last page to be asked for (however long the run takes to start: its
     * lock and manifest come first) and page 1 to be written, then until every page asked for but
     * page 2 has been answered and no request followed: the export can then only wait for page
     * 2, and a page past the window, or the next export, would have been asked for.
     */
    const settled = async () => {
      await Promise.all([windowReached, firstPageWritten]);
      for (let seen = -1; seen !== answers.length; ) {
        seen = answers.length;
        await Promise.all(answers);
        await aTurn();
      }
      return usersFurthest;
    };
    const plan = usersThenTeams(dir, 8);
    const run = exportToDirectory(plan, {
      client,
      signal: new AbortController().signal,
      version: 'test',
      scope,
      onProgress: (event) => {
        if (event.resource === 'users' && event.count > 0) wroteFirstPage();
      },
    });
    // Users alone: twice the budget of 8 pages requested and not yet written, and teams waits.
    expect(await settled()).toBe(2 + 16 - 1);
    expect(started).toEqual(['users']);
    expect(requests).not.toContain('teams');
    open();
    const manifest = await run;
    expect(manifest.resources.map((r) => r.count)).toEqual([6000, 300]);
    // Every page of users was asked for before the first page of teams.
    expect(requests.indexOf('teams')).toBe(60);
    expect(requests.slice(60)).toEqual(['teams', 'teams', 'teams']);
  });
});

describe('exportToDirectory: the boundary between two exports', () => {
  /** users (3 pages) then teams (1 page); `hold` keeps a page of users back until released. */
  function heldClient(hold: { page: number; until: Promise<void> } | undefined, fail?: string) {
    const requests: string[] = [];
    const waiting = new Map<string, () => void>();
    /** Resolves when `request` ("teams 1") is asked for. */
    const asked = (request: string) =>
      new Promise<void>((resolve) => {
        waiting.set(request, resolve);
      });
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        listBody: async ({ page, limit, signal }) => {
          requests.push(`${resource} ${page}`);
          waiting.get(`${resource} ${page}`)?.();
          if (resource === 'users' && page === hold?.page) await hold.until;
          if (resource === fail) throw new Error(`${resource} is down`);
          signal?.throwIfAborted();
          const pages = resource === 'users' ? 3 : 1;
          const data = Array.from({ length: limit }, (_, i) => ({
            id: `${resource}-${(page - 1) * limit + i}`,
          }));
          return answer({
            data,
            meta: { total: pages * limit, page, limit, hasNext: page < pages },
          });
        },
      }),
    };
    return { client, requests, asked };
  }

  it("the next export's first page is on its way while the current one's last page is not", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    let release!: () => void;
    const until = new Promise<void>((r) => {
      release = r;
    });
    const { client, requests, asked } = heldClient({ page: 3, until });
    const teamsAsked = asked('teams 1');
    const run = exportToDirectory(usersThenTeams(dir, 8), {
      client,
      signal: new AbortController().signal,
      version: 'test',
    });
    // (Users' page 3 is held back: a run that waited for it would never get here.)
    await teamsAsked;
    expect(requests).toEqual(['users 1', 'users 2', 'users 3', 'teams 1']);
    release();
    const manifest = await run;
    // Each file holds its own export's records, complete.
    expect(manifest.resources.map((r) => [r.resource, r.count])).toEqual([
      ['users', 300],
      ['teams', 100],
    ]);
  });

  it('two exports are open at most: a third waits for the first to finish', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    let release!: () => void;
    const until = new Promise<void>((r) => {
      release = r;
    });
    const { client, requests } = heldClient({ page: 3, until });
    const { scope, started, finished } = startsNoted();
    const missionsDone = finished('missions');
    const plan = planExport({
      resources: ['users', 'teams', 'missions'],
      format: 'jsonl',
      out: dir,
      concurrency: 8,
      csvRaw: false,
      bom: false,
      allowDrift: false,
    });
    const run = exportToDirectory(plan, {
      client,
      signal: new AbortController().signal,
      version: 'test',
      scope,
    });
    // (Table order: users, missions, teams.) missions (one page) is done while users waits for
    // its last page; teams must still wait.
    expect(plan.entries.map((e) => e.resource)).toEqual(['users', 'missions', 'teams']);
    await missionsDone;
    // What the end of missions lets start, starts in this turn.
    await aTurn();
    expect(started).toEqual(['users', 'missions']);
    expect(requests).toEqual(['users 1', 'users 2', 'users 3', 'missions 1']);
    release();
    const manifest = await run;
    expect(requests.at(-1)).toBe('teams 1');
    expect(manifest.resources.map((r) => r.count)).toEqual([300, 100, 100]);
  });

  it('a failure of the next export while the current one finishes fails the run, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    let release!: () => void;
    const until = new Promise<void>((r) => {
      release = r;
    });
    const { client, asked } = heldClient({ page: 3, until }, 'teams');
    const teamsAsked = asked('teams 1');
    const run = exportToDirectory(usersThenTeams(dir, 8), {
      client,
      signal: new AbortController().signal,
      version: 'test',
    });
    const failed = expect(run).rejects.toThrow(/^teams: teams is down/);
    // Teams fails as it is asked for; users' last page comes after that.
    await teamsAsked;
    release();
    await failed;
    // Nothing of the run is visible: no file, no manifest.
    expect(await readdir(dir)).toEqual([]);
  });

  it('a failure of the current export starts no other', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    const { client, requests } = heldClient(undefined, 'users');
    await expect(
      exportToDirectory(usersThenTeams(dir, 8), {
        client,
        signal: new AbortController().signal,
        version: 'test',
      }),
    ).rejects.toThrow(/^users: users is down/);
    expect(requests.filter((r) => r.startsWith('teams'))).toEqual([]);
  });
});

const tmp = () => mkdtemp(join(tmpdir(), 'rcs-run-'));
const plan = (options: Partial<ExportOptions>) =>
  planExport({ resources: ['users', 'teams'], concurrency: 2, ...options });
const USERS = [
  {
    id: 'u1',
    email: 'a@example.com',
    firstName: 'A',
    lastName: 'B',
    teamIds: [],
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  {
    id: 'u2',
    email: 'c@example.com',
    firstName: 'C',
    lastName: 'D',
    teamIds: ['t1'],
    createdAt: '2026-01-02T00:00:00.000Z',
  },
];
const TEAMS = [
  { id: 't1', name: 'Sales' },
  { id: 't2', name: 'Support' },
  { id: 't3', name: 'Success' },
];
const COUNTS: RequestCounts = {
  requests: 7,
  retries: 2,
  rateLimited: 1,
  rateLimitWaitMs: 1500,
  bytesReceived: 4321,
};
const noSignal = () => new AbortController().signal;
const manifestIn = async (dir: string) =>
  JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;

describe('exportToDirectory: the manifest says what the run wrote', () => {
  it('CSV: tool, service, options, statuses, durations, items, summary and the figures each export reports', async () => {
    const dir = await tmp();
    const sessions = [session(1, { score: 1, items: [item('a', 1), item('b', 0)] })];
    const service = fakeService(
      { 'real-call-sessions': sessions, teams: TEAMS },
      { baseUrl: 'https://api.example.com/v1' },
    );
    const reported: Record<string, Record<string, unknown>> = {};
    const scope: ExportScope = (resource, work) =>
      work((figures) => {
        reported[resource] = figures;
      });
    const manifest = await exportToDirectory(
      plan({ resources: ['real-call-sessions', 'teams'], format: 'csv', out: dir, bom: true }),
      {
        client: service.client,
        signal: noSignal(),
        version: '9.9.9-test',
        now: steppingClock(),
        scope,
        requestStats: () => COUNTS,
      },
    );
    // What the run returns is what manifest.json says, key for key.
    expect(manifest).toStrictEqual(await manifestIn(dir));
    expect(manifest.tool).toStrictEqual({ name: 'rcs', version: '9.9.9-test' });
    expect(manifest.service).toBe('https://api.example.com/v1');
    expect(manifest.options).toStrictEqual({
      concurrency: 2,
      csvRaw: false,
      bom: true,
      allowDrift: false,
      changes: false,
    });
    expect(manifest.status).toBe('complete');
    const span = (x: { startedAt: string; finishedAt: string }) =>
      Date.parse(x.finishedAt) - Date.parse(x.startedAt);
    expect(manifest.durationMs).toBe(span(manifest));
    expect(manifest.durationMs).toBeGreaterThan(0);
    const files: Record<string, { bytes: number; sha256: string }> = {};
    for (const name of ['real-call-sessions.csv', 'real-call-session-items.csv', 'teams.csv']) {
      files[name] = await bytesAndHash(join(dir, name));
    }
    for (const e of manifest.resources) {
      expect(e.status).toBe('complete');
      expect(e.durationMs).toBe(span(e));
      expect(e.durationMs).toBeGreaterThan(0);
      expect({ bytes: e.bytes, sha256: e.sha256 }).toEqual(files[e.file]);
      expect(reported[e.resource]).toStrictEqual({
        'rcs.export.records': e.count,
        'rcs.export.bytes': e.bytes,
        'rcs.export.pages': e.pages,
        'rcs.export.format': 'csv',
      });
    }
    expect(manifest.resources[0]?.items).toStrictEqual({
      file: 'real-call-session-items.csv',
      count: 2,
      ...files['real-call-session-items.csv'],
    });
    expect(manifest.summary).toStrictEqual({
      ...COUNTS,
      bytesWritten: Object.values(files).reduce((n, f) => n + f.bytes, 0),
      records: { 'real-call-sessions': 1, teams: 3 },
    });
  });

  it('JSONL, a client with no base URL or counts: no CSV options, no service, no summary', async () => {
    const dir = await tmp();
    const service = fakeService({ users: USERS, teams: TEAMS });
    const manifest = await exportToDirectory(plan({ out: dir }), {
      client: service.client,
      signal: noSignal(),
      version: 'test',
    });
    expect(manifest).toStrictEqual(await manifestIn(dir));
    expect(manifest.options).toStrictEqual({ concurrency: 2, allowDrift: false, changes: false });
    expect(manifest).not.toHaveProperty('service');
    expect(manifest).not.toHaveProperty('summary');
    expect(manifest.resources.map((e) => [e.resource, e.count, e.status])).toEqual([
      ['users', 2, 'complete'],
      ['teams', 3, 'complete'],
    ]);
  });

  it('a list that drifted, accepted with allowDrift: that export and the run say drift, the other complete', async () => {
    const dir = await tmp();
    // Teams announces 4 but has 3: the last page ends before the total.
    const service = fakeService({ users: USERS, teams: TEAMS }, { totals: { teams: 4 } });
    const events: ExportProgressEvent[] = [];
    const manifest = await exportToDirectory(plan({ out: dir, allowDrift: true }), {
      client: service.client,
      signal: noSignal(),
      version: 'test',
      onProgress: (e) => events.push(e),
    });
    const [users, teams] = manifest.resources;
    expect(users).toMatchObject({ status: 'complete', warnings: [] });
    expect(teams?.status).toBe('drift');
    expect(teams?.warnings.length).toBeGreaterThan(0);
    expect(manifest.status).toBe('drift');
    expect(events.filter((e) => e.status !== 'running')).toEqual([
      { resource: 'users', count: 2, total: 2, status: 'done' },
      { resource: 'teams', count: 3, total: 4, status: 'drift' },
    ]);
  });
});

describe('exportToDirectory: what each request asks the service', () => {
  it('`archived` goes to the tracks export only; `retryForMs` to every request when given, and only then', async () => {
    const records = {
      tracks: [{ id: 'k1', title: 'K', description: null, missionIds: [], archived: true }],
      teams: TEAMS,
    };
    const asked = async (options: Partial<ExportOptions>) => {
      const service = fakeService(records);
      const dir = await tmp();
      const manifest = await exportToDirectory(
        plan({ resources: ['tracks', 'teams'], out: dir, ...options }),
        {
          client: service.client,
          signal: noSignal(),
          version: 'test',
        },
      );
      const requests = service.requests.map(({ resource, options: { signal, ...rest } }) => {
        expect(signal).toBeInstanceOf(AbortSignal);
        return { resource, ...rest };
      });
      return { requests, manifest };
    };
    const first = { page: 1, limit: 100, maxRetries: 8 };
    const archived = await asked({ archived: 'include' });
    expect(archived.requests).toStrictEqual([
      { resource: 'tracks', ...first, archived: 'include' },
      { resource: 'teams', ...first },
    ]);
    expect(archived.manifest.options.archived).toBe('include');
    const retrying = await asked({ archived: 'only', retryForMs: 5000 });
    expect(retrying.requests).toStrictEqual([
      { resource: 'tracks', ...first, archived: 'only', retryForMs: 5000 },
      { resource: 'teams', ...first, retryForMs: 5000 },
    ]);
    const plain = await asked({});
    expect(plain.requests).toStrictEqual([
      { resource: 'tracks', ...first },
      { resource: 'teams', ...first },
    ]);
    expect(plain.manifest.options).not.toHaveProperty('archived');
  });
});

describe('exportToDirectory: a run that cannot commit replaces nothing', () => {
  it('an impossible value fails the run with an ImpossibleValueError; no file, no manifest', async () => {
    const dir = await tmp();
    const users = USERS.map((u, i) =>
      i === 1 ? { ...u, createdAt: '2026-02-30T00:00:00.000Z' } : u,
    );
    const service = fakeService({ users, teams: TEAMS });
    const run = exportToDirectory(plan({ out: dir }), {
      client: service.client,
      signal: noSignal(),
      version: 'test',
    });
    await expect(run).rejects.toBeInstanceOf(ImpossibleValueError);
    await expect(run).rejects.toThrow(/2026-02-30/);
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([
    ['teams.csv', false],
    ['real-call-session-items.csv', false],
    ['teams.changes.jsonl', true],
    ['manifest.json', false],
  ])(
    'a directory in place of %s: refused before the first rename, the previous files stay',
    async (name, changes) => {
      const dir = await tmp();
      await writeFile(join(dir, 'real-call-sessions.csv'), 'previous');
      await mkdir(join(dir, name));
      const service = fakeService({
        'real-call-sessions': [session(1, { score: 1, items: [item('a', 1)] })],
        teams: TEAMS,
      });
      const run = exportToDirectory(
        plan({ resources: ['real-call-sessions', 'teams'], format: 'csv', out: dir, changes }),
        { client: service.client, signal: noSignal(), version: 'test' },
      );
      await expect(run).rejects.toThrow(`${join(dir, name)} is a directory`);
      expect(await readFile(join(dir, 'real-call-sessions.csv'), 'utf8')).toBe('previous');
      expect((await readdir(dir)).sort()).toEqual([name, 'real-call-sessions.csv'].sort());
    },
  );

  it('aborted once every export is done, before the commit: rejects with the reason, replaces nothing', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'teams.jsonl'), 'previous');
    const ac = new AbortController();
    const reason = new Error('stop');
    const started: string[] = [];
    const scope: ExportScope = (resource, work) => {
      started.push(resource);
      return work(() => {});
    };
    const run = exportToDirectory(plan({ out: dir }), {
      client: fakeService({ users: USERS, teams: TEAMS }).client,
      signal: ac.signal,
      version: 'test',
      scope,
      onProgress: (e) => {
        if (e.resource === 'teams' && e.status === 'done') ac.abort(reason);
      },
    });
    await expect(run).rejects.toBe(reason);
    expect(started).toEqual(['users', 'teams']);
    expect(await readdir(dir)).toEqual(['teams.jsonl']);
    expect(await readFile(join(dir, 'teams.jsonl'), 'utf8')).toBe('previous');
  });

  it('a failed export: the run is a ResourceExportError naming it, starts no other, and leaves no change state', async () => {
    const dir = await tmp();
    await exportToDirectory(plan({ out: dir, changes: true }), {
      client: fakeService({ users: USERS, teams: TEAMS }).client,
      signal: noSignal(),
      version: 'test',
    });
    const before = await snapshot(dir);
    const started: string[] = [];
    let usersDone!: () => void;
    const downWhen = new Promise<void>((r) => {
      usersDone = r;
    });
    const scope: ExportScope = async (resource, work) => {
      started.push(resource);
      const done = await work(() => {});
      if (resource === 'users') usersDone();
      return done;
    };
    // Teams fails once users is done: its file and its change files written, not committed.
    const run = exportToDirectory(plan({ out: dir, changes: true }), {
      client: fakeService({ users: USERS, teams: TEAMS }, { down: ['teams'], downWhen }).client,
      signal: noSignal(),
      version: 'test',
      scope,
    });
    await expect(run).rejects.toBeInstanceOf(ResourceExportError);
    await expect(run).rejects.toMatchObject({ name: 'ResourceExportError', resource: 'teams' });
    expect(await snapshot(dir)).toEqual(before);

    const usersDown = exportToDirectory(plan({ out: dir, changes: true }), {
      client: fakeService({ users: USERS, teams: TEAMS }, { down: ['users'] }).client,
      signal: noSignal(),
      version: 'test',
      scope: (resource, work) => {
        started.push(resource);
        return work(() => {});
      },
    });
    await expect(usersDown).rejects.toThrow(/^users: users is down$/);
    expect(started).toEqual(['users', 'teams', 'users']);
    expect(await snapshot(dir)).toEqual(before);
  });
});

describe('exportToDirectory: the change state in the manifest', () => {
  /** The change snapshots of `resource` in `dir`, by run id. */
  const snapshots = async (dir: string, resource: string) =>
    (await readdir(dir))
      .filter((n) => n.startsWith(`.${resource}.changes-state.`))
      .map((n) => n.slice(`.${resource}.changes-state.`.length))
      .sort();

  it('base, acknowledged and states carried from run to run; snapshots no longer named are pruned', async () => {
    const dir = await tmp();
    const now = steppingClock();
    const run = (options: Partial<ExportOptions>, counts?: RequestCounts) =>
      exportToDirectory(plan({ out: dir, changes: true, ...options }), {
        client: fakeService({ users: USERS, teams: TEAMS }).client,
        signal: noSignal(),
        version: 'test',
        now,
        ...(counts ? { requestStats: () => counts } : {}),
      });
    const baseOf = (m: Manifest, resource: string) =>
      m.resources.find((e) => e.resource === resource)?.changes?.base;

    // 1: the first run compares with nothing.
    const m1 = await run({}, COUNTS);
    const r1 = m1.changes?.runId ?? '';
    expect(m1.changes).toStrictEqual({
      runId: r1,
      acknowledged: null,
      full: false,
      states: { users: r1, teams: r1 },
    });
    expect(baseOf(m1, 'teams')).toBeNull();
    expect(m1).toStrictEqual(await manifestIn(dir));
    // Every file written counts: data and change files.
    let written = 0;
    for (const e of m1.resources) {
      written += (await bytesAndHash(join(dir, e.file))).bytes;
      written += (await bytesAndHash(join(dir, e.changes?.file ?? ''))).bytes;
      expect(e.changes?.bytes).toBeGreaterThan(0);
    }
    expect(m1.summary?.bytesWritten).toBe(written);

    // 2: teams only, acknowledging run 1: users' state is carried over.
    const m2 = await run({ resources: ['teams'], ack: r1 });
    const r2 = m2.changes?.runId ?? '';
    expect(m2.changes).toStrictEqual({
      runId: r2,
      acknowledged: r1,
      full: false,
      states: { users: r1, teams: r2 },
    });
    expect(baseOf(m2, 'teams')).toBe(r1);

    // 3 and 4: no `ack`: each compares with the last run, the acknowledged run is carried, and
    // a snapshot neither compared with, acknowledged nor this run's goes.
    const m3 = await run({ resources: ['teams'] });
    const r3 = m3.changes?.runId ?? '';
    expect(m3.changes?.acknowledged).toBe(r1);
    expect(baseOf(m3, 'teams')).toBe(r2);
    const m4 = await run({ resources: ['teams'] });
    const r4 = m4.changes?.runId ?? '';
    expect(m4.changes).toStrictEqual({
      runId: r4,
      acknowledged: r1,
      full: false,
      states: { users: r1, teams: r4 },
    });
    expect(baseOf(m4, 'teams')).toBe(r3);
    expect(await snapshots(dir, 'teams')).toEqual([r1, r3, r4].sort());

    // 5: `full` starts over: no base, nothing acknowledged, only this run's states.
    const m5 = await run({ resources: ['teams'], full: true });
    const r5 = m5.changes?.runId ?? '';
    expect(m5.changes).toStrictEqual({
      runId: r5,
      acknowledged: null,
      full: true,
      states: { teams: r5 },
    });
    expect(baseOf(m5, 'teams')).toBeNull();
    expect(await snapshots(dir, 'teams')).toEqual([r5]);
    expect(await snapshots(dir, 'users')).toEqual([r1]);
  });
});

describe('the library guards of exportToDirectory and exportToStream', () => {
  const deps = { client, signal: noSignal(), version: 'test' };

  it('exportToDirectory needs a directory; exportToStream takes exactly one export', async () => {
    await expect(exportToDirectory(plan({ resources: ['teams'], out: '-' }), deps)).rejects.toThrow(
      /^exportToDirectory needs a directory$/,
    );
    const two = plan({ out: await tmp() });
    await expect(exportToStream(two, deps, new PassThrough())).rejects.toThrow(
      /^exportToStream takes one export$/,
    );
    await expect(exportToStream({ ...two, entries: [] }, deps, new PassThrough())).rejects.toThrow(
      /^exportToStream takes one export$/,
    );
  });
});

describe('exportToStream', () => {
  it('reports its records and pages to the scope, and returns its counts', async () => {
    const reported: Record<string, unknown>[] = [];
    const stream = new PassThrough();
    stream.resume();
    const result = await exportToStream(
      plan({ resources: ['teams'], out: '-' }),
      {
        client: fakeService({ teams: TEAMS }).client,
        signal: noSignal(),
        version: 'test',
        scope: (_resource, work) => work((figures) => reported.push(figures)),
      },
      stream,
    );
    expect(result).toMatchObject({ count: 3, total: 3, pages: 1 });
    expect(reported).toStrictEqual([{ 'rcs.export.records': 3, 'rcs.export.pages': 1 }]);
  });

  it("a failure from below is a ResourceExportError naming the export, the service's error its cause", async () => {
    const run = exportToStream(
      plan({ resources: ['teams'], out: '-' }),
      {
        client: fakeService({ teams: TEAMS }, { down: ['teams'] }).client,
        signal: noSignal(),
        version: 'test',
      },
      new PassThrough(),
    );
    await expect(run).rejects.toBeInstanceOf(ResourceExportError);
    await expect(run).rejects.toThrow(/^teams: teams is down$/);
    await expect(run).rejects.toMatchObject({
      resource: 'teams',
      cause: { message: 'teams is down' },
    });
  });
});
