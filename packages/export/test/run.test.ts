import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PageBody } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { planExport } from '../src/options.js';
import { type ExportClient, exportToDirectory } from '../src/run.js';

/** What the service sends: the page's JSON, as the client's `listBody` gives it. */
const answer = (page: unknown) => new PageBody(new TextEncoder().encode(JSON.stringify(page)));

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
          return answer({
            data,
            meta: { total: pages * limit, page, limit, hasNext: page < pages },
          });
        },
      }),
    };
    /**
     * Waits for the window's last page to be asked for (however long the run takes to start: its
     * lock and manifest come first), then until the export stops asking (every other page
     * answers at once), so that a page past the window would be seen.
     */
    const settled = async () => {
      await windowReached;
      for (let last = -1; last !== usersFurthest; ) {
        last = usersFurthest;
        await new Promise((r) => setTimeout(r, 20));
      }
      return usersFurthest;
    };
    const plan = usersThenTeams(dir, 8);
    const run = exportToDirectory(plan, {
      client,
      signal: new AbortController().signal,
      version: 'test',
    });
    // Users alone: twice the budget of 8 pages requested and not yet written, and teams waits.
    expect(await settled()).toBe(2 + 16 - 1);
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
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        listBody: async ({ page, limit, signal }) => {
          requests.push(`${resource} ${page}`);
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
    return { client, requests };
  }

  it("the next export's first page is on its way while the current one's last page is not", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    let release!: () => void;
    const until = new Promise<void>((r) => {
      release = r;
    });
    const { client, requests } = heldClient({ page: 3, until });
    const run = exportToDirectory(usersThenTeams(dir, 8), {
      client,
      signal: new AbortController().signal,
      version: 'test',
    });
    for (let i = 0; i < 50 && !requests.includes('teams 1'); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
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
    });
    // (Table order: users, missions, teams.) missions (one page) is done while users waits for
    // its last page; teams must still wait.
    expect(plan.entries.map((e) => e.resource)).toEqual(['users', 'missions', 'teams']);
    await new Promise((r) => setTimeout(r, 200));
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
    const { client } = heldClient({ page: 3, until }, 'teams');
    const run = exportToDirectory(usersThenTeams(dir, 8), {
      client,
      signal: new AbortController().signal,
      version: 'test',
    });
    const failed = expect(run).rejects.toThrow(/^teams: teams is down/);
    setTimeout(release, 50);
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
