import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageBody } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { planExport } from '../src/options.js';
import { type ExportClient, type ExportScope, exportToDirectory } from '../src/run.js';

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
