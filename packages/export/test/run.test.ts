import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planExport } from '../src/options.js';
import { type ExportClient, exportToDirectory } from '../src/run.js';

const client: ExportClient = {
  exportsByResource: (resource) => ({
    list: async ({ page, limit }) => ({
      data: [{ id: `${resource}-1` }],
      meta: { total: 1, page, limit, hasNext: false },
    }),
  }),
};

const progress = { update() {}, finish() {}, stop() {} };

describe('exportToDirectory: committing the files', () => {
  it('a rename that fails part-way still removes every partial file of the run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // teams.jsonl is a non-empty directory, so renaming the finished file over it fails; users
    // (earlier in table order) is committed before that.
    await mkdir(join(dir, 'teams.jsonl'));
    await writeFile(join(dir, 'teams.jsonl', 'keep'), '');
    const plan = planExport({
      resources: ['users', 'teams'],
      format: 'jsonl',
      out: dir,
      concurrency: 2,
      csvRaw: false,
      bom: false,
      allowDrift: false,
    });
    await expect(
      exportToDirectory(plan, {
        client,
        signal: new AbortController().signal,
        progress,
        version: 'test',
      }),
    ).rejects.toThrow(/teams\.jsonl/);
    const left = await readdir(dir);
    expect(left.filter((n) => n.endsWith('.partial'))).toEqual([]);
    expect(left).not.toContain('manifest.json');
  });
});

describe('exportToDirectory: the read-ahead window of each export', () => {
  it('shares the window while exports run together; the last one alone gets all of it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rcs-run-'));
    // A page held back blocks the head of its export's reorder buffer: the export then asks for
    // pages up to the held one + its window - 1, and no further, until that page comes.
    const gate = () => {
      let open!: () => void;
      const opened = new Promise<void>((r) => {
        open = r;
      });
      return { opened, open };
    };
    const teams = gate();
    const users2 = gate();
    const users30 = gate();
    let usersFurthest = 0;
    const client: ExportClient = {
      exportsByResource: (resource) => ({
        list: async ({ page, limit }) => {
          if (resource === 'teams') await teams.opened;
          else {
            usersFurthest = Math.max(usersFurthest, page);
            if (page === 2) await users2.opened;
            if (page === 30) await users30.opened;
          }
          const pages = resource === 'teams' ? 1 : 60;
          const data = Array.from({ length: limit }, (_, i) => ({
            id: `${resource}-${(page - 1) * limit + i}`,
          }));
          return { data, meta: { total: pages * limit, page, limit, hasNext: page < pages } };
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
    const plan = planExport({
      resources: ['users', 'teams'],
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
      progress,
      version: 'test',
    });
    // Both running: twice the budget (16) shared by two, 8 pages each.
    expect(await settled()).toBe(2 + 8 - 1);
    teams.open();
    users2.open();
    // Users alone: the whole window of 16.
    expect(await settled()).toBe(30 + 16 - 1);
    users30.open();
    const manifest = await run;
    expect(manifest.resources.map((r) => r.count)).toEqual([6000, 100]);
  });
});
