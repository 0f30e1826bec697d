import { PageBody } from '@rcs/client';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../src/formats/encoders.js';
import {
  ExportIntegrityError,
  type ExportPage,
  type PageLister,
  pageThrough,
} from '../src/pager.js';

/** What the service sends: the page's JSON, as the client's `listBody` gives it. */
const answer = (page: unknown) => new PageBody(new TextEncoder().encode(JSON.stringify(page)));

const records = (n: number, prefix = 'r') =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, n: i }) as ApiRecord);

/**
 * A well-behaved service over `all`, with a per-page hook to misbehave; each page answers after a
 * random number of turns of the event loop (0-4), so pages finish out of order.
 */
function service(
  all: ApiRecord[],
  tamper: (page: ExportPage, n: number) => ExportPage = (p) => p,
  delay = () => Math.floor(Math.random() * 5),
) {
  const stats = { inFlight: 0, maxInFlight: 0, requested: [] as number[] };
  const list: PageLister = async (page, limit, signal) => {
    stats.requested.push(page);
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      for (let turns = delay(); turns > 0; turns--) await new Promise((r) => setImmediate(r));
      signal.throwIfAborted();
      const data = all.slice((page - 1) * limit, page * limit);
      const meta = { total: all.length, page, limit, hasNext: page * limit < all.length };
      return answer(tamper({ data, meta }, page));
    } finally {
      stats.inFlight--;
    }
  };
  return { list, stats };
}

async function collect(
  list: PageLister,
  opts: { allowDrift?: boolean; limit?: number; concurrency?: number } = {},
) {
  const written: ApiRecord[][] = [];
  const result = await pageThrough({
    resource: 'users',
    list,
    limiter: pLimit(opts.concurrency ?? 4),
    window: opts.concurrency ?? 4,
    limit: opts.limit ?? 10,
    signal: new AbortController().signal,
    allowDrift: opts.allowDrift ?? false,
    async onPage(page) {
      written.push(page);
    },
  });
  return { result, records: written.flat() };
}

describe('pageThrough', () => {
  it('writes every record once, in page order, whatever order pages arrive in', async () => {
    const all = records(237);
    const { list } = service(all);
    const { result, records: got } = await collect(list);
    expect(got.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(result).toMatchObject({
      count: 237,
      total: 237,
      totalAtEnd: 237,
      pages: 24,
      duplicates: 0,
      warnings: [],
    });
  });

  it('treats an empty export as a success with one request', async () => {
    const { list, stats } = service([]);
    const { result } = await collect(list);
    expect(result).toMatchObject({ count: 0, total: 0, pages: 1 });
    expect(stats.requested).toEqual([1]);
  });

  it('never has more pages in flight than the shared budget, across two exports', async () => {
    const a = service(records(500, 'a'));
    const b = service(records(500, 'b'));
    const limiter = pLimit(3);
    let inFlight = 0;
    let max = 0;
    const wrap =
      (list: PageLister): PageLister =>
      async (...args) => {
        inFlight++;
        max = Math.max(max, inFlight);
        try {
          return await list(...args);
        } finally {
          inFlight--;
        }
      };
    const run = (list: PageLister) =>
      pageThrough({
        resource: 'x',
        list: wrap(list),
        limiter,
        window: 3,
        limit: 10,
        signal: new AbortController().signal,
        allowDrift: false,
        onPage: async () => {},
      });
    const [ra, rb] = await Promise.all([run(a.list), run(b.list)]);
    expect(ra.count + rb.count).toBe(1000);
    expect(max).toBeLessThanOrEqual(3);
    expect(max).toBe(3);
  });

  it('keeps the reorder buffer bounded by the window while a slow page holds the head', async () => {
    let held = 0;
    let maxHeld = 0;
    const all = records(200);
    const { list } = service(
      all,
      (p) => p,
      () => 1,
    );
    // Page 2 answers only once the window's last page behind it (2 + 4 - 1) has answered: a
    // pager that let the buffer grow would have asked for more by then.
    let windowAnswered!: () => void;
    const lastOfWindow = new Promise<void>((r) => {
      windowAnswered = r;
    });
    const slowFirst: PageLister = async (page, limit, signal) => {
      held++;
      maxHeld = Math.max(maxHeld, held);
      if (page === 2) await lastOfWindow;
      const given = await list(page, limit, signal);
      if (page === 5) windowAnswered();
      return given;
    };
    await pageThrough({
      resource: 'users',
      list: slowFirst,
      limiter: pLimit(8),
      window: 4,
      limit: 10,
      signal: new AbortController().signal,
      allowDrift: false,
      onPage: async () => {
        held--;
      },
    });
    expect(maxHeld).toBeLessThanOrEqual(4);
  });

  it('fails on a page that echoes the wrong meta.page', async () => {
    const { list } = service(records(50), (p, n) =>
      n === 3 ? { ...p, meta: { ...p.meta, page: 2 } } : p,
    );
    await expect(collect(list)).rejects.toThrow(/page 3 came back as meta\.page 2/);
  });

  it('fails on a page that repeats the previous page', async () => {
    const all = records(50);
    const { list } = service(all, (p, n) => (n === 3 ? { ...p, data: all.slice(10, 20) } : p));
    await expect(collect(list)).rejects.toThrow(/page 3 repeats page 2/);
  });

  it('fails on records already exported (a shift between pages) and names the duplicates', async () => {
    const all = records(50);
    // The list shifted by one between page 1 and page 2: page 2 starts with page 1's last record.
    const { list } = service(all, (p, n) => (n === 2 ? { ...p, data: all.slice(9, 19) } : p));
    const error = await collect(list).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportIntegrityError);
    expect((error as Error).message).toMatch(/^users: page 2 repeats 1 record/);
  });

  it('fails when hasNext is false before meta.total records', async () => {
    const { list } = service(records(50), (p, n) =>
      n === 3 ? { ...p, meta: { ...p.meta, hasNext: false } } : p,
    );
    await expect(collect(list)).rejects.toThrow(
      /page 3 says hasNext: false after 30 of 50 records/,
    );
  });

  it('fails when meta.total changes during the export', async () => {
    const { list } = service(records(50), (p, n) =>
      n === 4 ? { ...p, meta: { ...p.meta, total: 51 } } : p,
    );
    await expect(collect(list)).rejects.toThrow(
      /meta\.total changed from 50 \(page 1\) to 51 \(page 4\)/,
    );
  });

  it('fails when fewer records arrive than meta.total says', async () => {
    const all = records(50);
    const { list } = service(all, (p, n) => (n === 5 ? { ...p, data: p.data.slice(0, 9) } : p));
    await expect(collect(list)).rejects.toThrow(/exported 49 records, but meta\.total was 50/);
  });

  it('with allowDrift, de-duplicates, keeps going and records warnings instead of failing', async () => {
    const all = records(50);
    const { list } = service(all, (p, n) =>
      n === 2 ? { ...p, data: [...all.slice(9, 10), ...all.slice(10, 19)] } : p,
    );
    const { result, records: got } = await collect(list, { allowDrift: true });
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    expect(result.duplicates).toBe(1);
    expect(result.count).toBe(49);
    expect(result.warnings.length).toBeGreaterThanOrEqual(2);
    expect(result.warnings.join('\n')).toMatch(/repeats 1 record/);
    expect(result.warnings.join('\n')).toMatch(/exported 49 records/);
  });

  it('with allowDrift, follows a list that grew past the planned pages until hasNext is false', async () => {
    const all = records(50);
    const grown = records(55);
    const { list } = service(all, (p, n) =>
      n >= 5
        ? {
            data: grown.slice((n - 1) * 10, n * 10),
            meta: { total: 55, page: n, limit: 10, hasNext: n * 10 < 55 },
          }
        : p,
    );
    const { result } = await collect(list, { allowDrift: true });
    expect(result.count).toBe(55);
    expect(result.totalAtEnd).toBe(55);
    expect(result.pages).toBe(6);
  });

  it('with allowDrift, keeps the first 20 warnings and counts the rest in one line', async () => {
    const all = records(300);
    // Every page after the first starts with the first record again.
    const { list } = service(all, (p, n) =>
      n === 1 ? p : { ...p, data: [all[0]!, ...p.data.slice(0, 9)] },
    );
    const { result } = await collect(list, { allowDrift: true });
    expect(result.duplicates).toBe(29);
    // 29 pages that repeat a record, then the count short of meta.total: 30 warnings.
    expect(result.warnings).toHaveLength(21);
    expect(result.warnings.slice(0, 20).every((w) => /repeats 1 record/.test(w))).toBe(true);
    expect(result.warnings[20]).toBe('… and 10 more warning(s) like these');
  });

  it('with allowDrift and a single warning, the list is that warning alone', async () => {
    const all = records(50);
    const { list } = service(all, (p, n) => (n === 5 ? { ...p, data: p.data.slice(0, 9) } : p));
    const { result } = await collect(list, { allowDrift: true });
    expect(result.warnings).toEqual([expect.stringMatching(/exported 49 records/)]);
  });

  it('every refusal is an ExportIntegrityError naming the export (the CLI maps it to exit 1)', async () => {
    const bad: PageLister = async () => answer({ data: 'x' });
    const all = records(50);
    const { list } = service(all, (p, n) => (n === 3 ? { ...p, data: all.slice(10, 20) } : p));
    for (const lister of [bad, list]) {
      const error = await collect(lister).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExportIntegrityError);
      expect(error).toMatchObject({ name: 'ExportIntegrityError', resource: 'users' });
      expect((error as Error).message).toMatch(/^users: /);
    }
  });

  it('refuses a page that is not { data, meta } or a record without id', async () => {
    const bad1: PageLister = async () => answer({ data: 'x' });
    await expect(collect(bad1)).rejects.toThrow(/page 1 of the export is not \{ data/);
    const bad2: PageLister = async () =>
      answer({
        data: [{ name: 'no id' }],
        meta: { total: 1, page: 1, limit: 10, hasNext: false },
      });
    await expect(collect(bad2)).rejects.toThrow(/record without a string id/);
  });

  it('stops requesting pages once the run is aborted', async () => {
    const ac = new AbortController();
    const { list, stats } = service(
      records(1000),
      (p) => p,
      () => 2,
    );
    const limiter = pLimit(2);
    const run = pageThrough({
      resource: 'users',
      list,
      limiter,
      window: 2,
      limit: 10,
      signal: ac.signal,
      allowDrift: false,
      async onPage(_records, info) {
        if (info.page === 3) ac.abort(new Error('stop'));
      },
    });
    await expect(run).rejects.toThrow();
    const before = stats.requested.length;
    // First come, first served: when a task queued now runs, every page queued before it has
    // been sent or refused.
    await limiter(async () => {});
    expect(stats.requested.length).toBe(before);
    expect(before).toBeLessThan(10);
  });
});
