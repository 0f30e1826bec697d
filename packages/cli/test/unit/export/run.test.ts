import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planExport } from '../../../src/export/options.js';
import { type ExportClient, exportToDirectory } from '../../../src/export/run.js';

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
