import { type Page, paginate, RcsError } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEDUPE_WINDOW } from '../src/paginate.js';

type Rec = { id: string };

/** A page reader over fixed pages (1-based), as the service would answer them. */
function pageReader(pages: string[][], total = pages.flat().length) {
  const requested: number[] = [];
  const read = async (page: number, limit: number): Promise<Page<Rec>> => {
    requested.push(page);
    const ids = pages[page - 1] ?? [];
    return {
      data: ids.map((id) => ({ id })),
      meta: { total, page, limit, hasNext: page < pages.length },
    };
  };
  return { read, requested };
}

describe('paginate: the engine behind exports.<name>.all', () => {
  it('drops a repeat within the dedupe window and counts it', async () => {
    const { read } = pageReader([['a', 'b'], ['b', 'c'], ['d']], 4);
    const it = paginate(read, { limit: 2, dedupeWindow: 10 });
    expect((await it.toArray()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(it.stats).toMatchObject({ seen: 4, duplicates: 1, total: 4 });
  });

  it('a window of N ids forgets older ones: a far repeat passes, a near one is dropped', async () => {
    const { read } = pageReader(
      [
        ['a', 'b'],
        ['c', 'd'],
        ['a', 'd'],
      ],
      6,
    );
    const it = paginate(read, { limit: 2, dedupeWindow: 2 });
    // Remembered after page 2: c, d. So 'a' comes again, 'd' does not.
    expect((await it.toArray()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'a']);
    expect(it.stats.duplicates).toBe(1);
  });

  it('dedupeWindow: Infinity remembers every id', async () => {
    const { read } = pageReader(
      [
        ['a', 'b'],
        ['c', 'd'],
        ['a', 'd'],
      ],
      6,
    );
    const it = paginate(read, { limit: 2, dedupeWindow: Number.POSITIVE_INFINITY });
    expect((await it.toArray()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(it.stats).toMatchObject({ duplicates: 2, missing: 2 });
  });

  it('the default window is 10,000 ids', async () => {
    expect(DEFAULT_DEDUPE_WINDOW).toBe(10_000);
    const many = Array.from({ length: 100 }, (_, p) =>
      Array.from({ length: 100 }, (_, i) => `p${p}-${i}`),
    );
    // 'extra' is the 10,001st id: it pushes p0-0 out of the window, so p0-0 comes through again;
    // p0-2 is still remembered, so it is dropped.
    many.push(['extra', 'p0-0', 'p0-2']);
    const { read } = pageReader(many, 10_003);
    const it = paginate(read, { limit: 100 });
    const got = await it.toArray();
    expect(got.slice(-2).map((r) => r.id)).toEqual(['extra', 'p0-0']);
    expect(it.stats.duplicates).toBe(1);
  });

  it('onPage reports every page in order, before its records', async () => {
    const { read } = pageReader([['a'], ['b'], ['c']]);
    const seen: string[] = [];
    const it = paginate(read, {
      limit: 1,
      concurrency: 3,
      onPage: (p) => seen.push(`page${p.page}`),
    });
    for await (const r of it) seen.push(r.id);
    expect(seen).toEqual(['page1', 'a', 'page2', 'b', 'page3', 'c']);
  });

  it('each iteration is a fresh run with fresh stats', async () => {
    const { read, requested } = pageReader([['a'], ['b']]);
    const it = paginate(read, { limit: 1 });
    await it.toArray();
    await it.toArray();
    expect(requested).toEqual([1, 2, 1, 2]);
    expect(it.stats.seen).toBe(2);
  });

  it('a page that is not { data, meta } is an error naming the page', async () => {
    const it = paginate(async () => ({ items: [] }) as unknown as Page<Rec>, {});
    await expect(it.toArray()).rejects.toThrow(/page 1 of the export is not \{ data/);
  });

  it('without hasNext, total decides how many pages there are', async () => {
    const requested: number[] = [];
    const it = paginate<Rec>(
      async (page) => {
        requested.push(page);
        return { data: [{ id: `r${page}` }], meta: { total: 3, page, limit: 1 } } as Page<Rec>;
      },
      { limit: 1 },
    );
    expect(await it.toArray()).toHaveLength(3);
    expect(requested.sort()).toEqual([1, 2, 3]);
  });

  /** A service that ignores `page`: always the same records, always `hasNext: true`. */
  function ignoringPage(echo: 'requested' | 'first') {
    const requested: number[] = [];
    const read = async (page: number, limit: number): Promise<Page<Rec>> => {
      requested.push(page);
      // Without a stopping rule this would be read forever; fail instead of hanging the test.
      if (page > 50) throw new Error(`page ${page} requested: the export does not terminate`);
      return {
        data: [{ id: 'a' }, { id: 'b' }],
        meta: { total: 4, page: echo === 'requested' ? page : 1, limit, hasNext: true },
      };
    };
    return { read, requested };
  }

  it('terminates when hasNext: true contradicts total and pages bring nothing new', async () => {
    const { read, requested } = ignoringPage('requested');
    const it = paginate(read, { limit: 2, concurrency: 4 });
    expect((await it.toArray()).map((r) => r.id)).toEqual(['a', 'b']);
    // total 4 at 2 a page: two pages planned; page 2 repeats page 1, so nothing past it.
    expect(requested.sort()).toEqual([1, 2]);
    expect(it.stats).toMatchObject({ pages: 2, seen: 2, duplicates: 2, missing: 2 });
  });

  it('terminates without a dedupe window too (a page equal to the one before is no progress)', async () => {
    const { read, requested } = ignoringPage('requested');
    const it = paginate(read, { limit: 2, dedupeWindow: 0 });
    expect(await it.toArray()).toHaveLength(4);
    expect(requested.sort()).toEqual([1, 2]);
  });

  it('a page answered as another page (meta.page) is an error naming both', async () => {
    const { read } = ignoringPage('first');
    const it = paginate(read, { limit: 2 });
    await expect(it.toArray()).rejects.toThrow(RcsError);
    await expect(it.toArray()).rejects.toThrow(/page 2 of the export was answered as page 1/);
  });

  it('past total, hasNext: true is followed while pages bring new records', async () => {
    // A total that understates the list (stale): hasNext and the records say there is more.
    const pages = [['a', 'b'], ['c', 'd'], ['e']];
    const requested: number[] = [];
    const it = paginate<Rec>(
      async (page, limit) => {
        requested.push(page);
        const ids = pages[page - 1] ?? [];
        const data = ids.map((id) => ({ id }));
        return { data, meta: { total: 2, page, limit, hasNext: page < pages.length } };
      },
      { limit: 2 },
    );
    expect((await it.toArray()).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(requested).toEqual([1, 2, 3]);
  });

  it('rejects a bad dedupeWindow', () => {
    expect(() => paginate(pageReader([]).read, { dedupeWindow: -1 })).toThrow(
      /dedupeWindow must be/,
    );
  });
});
