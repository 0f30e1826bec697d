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

describe('exportToDirectory: one export at a time', () => {
  it('each export has the whole window, and the next starts when it is done', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // A page held back blocks the head of the export's reorder buffer: the export then asks for
    // pages up to the held one + its window - 1, and no further, until that page comes.
    let open!: () => void;
    const opened = new Promise<void>((r) => {
      open = r;
    });
    const requests: string[] = [];
    let usersFurthest = 0;
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        listBody: async ({ page, limit }) => {
          requests.push(resource);
          if (resource === 'users') {
            usersFurthest = Math.max(usersFurthest, page);
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
    /** Waits until the export stops asking for more pages (every other page answers at once). */
    const settled = async () => {
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
