import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planExport } from '../src/options.js';
import { type ExportClient, exportToDirectory } from '../src/run.js';

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
    list: async ({ page, limit }) => ({
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

describe('exportToDirectory: one export at a time', () => {
  it('one export writes at a time while the next reads ahead one window, so the budget stays full across the boundary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // A page held back blocks the head of the users' reorder buffer: users then asks for pages up
    // to the held one + its window - 1, and no further, until that page comes.
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const requests: string[] = [];
    let usersFurthest = 0;
    let teamsRequested = 0;
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        list: async ({ page, limit }) => {
          requests.push(resource);
          if (resource === 'users') {
            usersFurthest = Math.max(usersFurthest, page);
            if (page === 2) await opened;
          } else teamsRequested++;
          const pages = 60;
          const data = Array.from({ length: limit }, (_, i) => ({
            id: `${resource}-${(page - 1) * limit + i}`,
          }));
          return { data, meta: { total: pages * limit, page, limit, hasNext: page < pages } };
        },
      }),
    };
    /** Waits until neither export asks for more pages (every other page answers at once). */
    const settled = async () => {
      for (let last = -1; last !== usersFurthest + teamsRequested; ) {
        last = usersFurthest + teamsRequested;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const plan = usersThenTeams(dir, 8);
    const progress: string[] = [];
    const run = exportToDirectory(plan, {
      client,
      signal: new AbortController().signal,
      version: 'test',
      onProgress: (event) => progress.push(`${event.resource} ${event.status}`),
    });
    await settled();
    // Users: twice the budget of 8 pages requested and not yet written.
    expect(usersFurthest).toBe(2 + 16 - 1);
    // Teams reads ahead, one window at most, and writes nothing while users is not done.
    expect(teamsRequested).toBeGreaterThan(0);
    // (the page waiting for its turn to be written, and one window of 16 behind it).
    expect(teamsRequested).toBeLessThanOrEqual(1 + 16);
    expect(progress.filter((p) => p.startsWith('teams'))).toEqual([]);
    open();
    const manifest = await run;
    expect(manifest.resources.map((r) => r.count)).toEqual([6000, 6000]);
    // Written one after the other: every event of users comes before the first of teams.
    const firstTeams = progress.findIndex((p) => p.startsWith('teams'));
    expect(progress.slice(0, firstTeams).every((p) => p.startsWith('users'))).toBe(true);
    expect(progress[firstTeams - 1]).toBe('users done');
    expect(progress.slice(firstTeams).every((p) => p.startsWith('teams'))).toBe(true);
  });
});

describe('exportToDirectory: a failure while the next export reads ahead', () => {
  it('the first failure ends the run, names its export, and leaves no file of the run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    let usersPagesServed = 0;
    const failing: ExportClient = {
      exportsByResource: (resource) => ({
        list: async ({ page, limit }) => {
          // Teams (reading ahead) fails on its first page; users is slow, so it is still going.
          if (resource === 'teams') throw new Error('the service broke on teams');
          usersPagesServed++;
          await new Promise((r) => setTimeout(r, 5));
          const data = Array.from({ length: limit }, (_, i) => ({
            id: `${resource}-${(page - 1) * limit + i}`,
          }));
          return { data, meta: { total: 50 * limit, page, limit, hasNext: page < 50 } };
        },
      }),
    };
    const plan = usersThenTeams(dir, 4);
    await expect(
      exportToDirectory(plan, {
        client: failing,
        signal: new AbortController().signal,
        version: 't',
      }),
    ).rejects.toThrow(/teams.*the service broke on teams/s);
    // Users stopped instead of reading its 50 pages to the end.
    expect(usersPagesServed).toBeLessThan(50);
    const left = await readdir(dir);
    expect(left.filter((n) => !n.startsWith('.'))).toEqual([]);
  });
});
