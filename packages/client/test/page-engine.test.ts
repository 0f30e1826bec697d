import { type Anomaly, runPages } from '@rcs/client/internal';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';

// The one pagination engine on its own: every anomaly it reports, its stop
// rules, its window and budget. all() and rcs export are built on it; these tests pin what both
// rely on (the engine's own tests, not only its callers').

type Rec = { id: string };
type PageOf = {
  data: Rec[];
  meta: { total: number; page: number; limit: number; hasNext: boolean };
};

/**
 * One turn of the event loop: every promise chain that can move without I/O or a timer has moved
 * (here, every read the engine lets start has started, and those answering at once have answered).
 */
const aTurn = () => new Promise<void>((r) => setImmediate(r));

const recs = (from: number, n: number, prefix = 'r'): Rec[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${from + i}` }));

/** A list of `total` records served `limit` per page; `tamper` changes a page as served. */
function service(total: number, tamper: (page: PageOf, n: number) => PageOf = (p) => p) {
  const requested: number[] = [];
  const read = async (n: number, limit: number) => {
    requested.push(n);
    const data = recs((n - 1) * limit, Math.max(0, Math.min(limit, total - (n - 1) * limit)));
    return tamper({ data, meta: { total, page: n, limit, hasNext: n * limit < total } }, n);
  };
  return { read, requested };
}

/** The error a caller of the strict shape names its refusals with (the export's own, there). */
class ShapeError extends Error {}

/** Runs the engine, collecting every record handed over and every anomaly (never fatal here). */
async function run(
  read: (n: number, limit: number) => Promise<unknown>,
  opts: {
    limit?: number;
    window?: number | (() => number);
    fatal?: Anomaly['kind'][];
    strict?: boolean;
  } = {},
) {
  const anomalies: Anomaly[] = [];
  const records: Rec[] = [];
  const ids = new Set<string>();
  const result = await runPages<Rec>({
    read: read as never,
    limit: opts.limit ?? 10,
    window: opts.window ?? 3,
    limiter: pLimit(typeof opts.window === 'number' ? opts.window : 3),
    signal: new AbortController().signal,
    ...(opts.strict && { shape: 'strict', shapeError: (m: string) => new ShapeError(m) }),
    ids: {
      add: (id) => {
        if (ids.has(id)) return false;
        ids.add(id);
        return true;
      },
    },
    onAnomaly: (a) => {
      anomalies.push(a);
      if (opts.fatal?.includes(a.kind)) throw new Error(`fatal: ${a.message}`);
    },
    onPage: (fresh) => {
      records.push(...fresh);
    },
  });
  return { result, records, anomalies, kinds: anomalies.map((a) => a.kind) };
}

/**
 * Pages requested and not yet handed over, at most, as a caller sees them: a page counts from its
 * request until onPage receives it. The consumer is slow, so pages pile up if anything lets them
 * (the page being consumed is the caller's, one more).
 */
async function heldAtMost(window: number, total = 100): Promise<number> {
  const { read } = service(total);
  let held = 0;
  let most = 0;
  await runPages<Rec>({
    read: (n, limit) => {
      held++;
      most = Math.max(most, held);
      return read(n, limit);
    },
    limit: 10,
    window,
    // More budget than window: the window is the bound.
    limiter: pLimit(window * 4),
    signal: new AbortController().signal,
    ids: { add: () => true },
    onAnomaly: () => {},
    onPage: async () => {
      held--;
      await aTurn();
    },
  });
  return most;
}

describe('runPages', () => {
  it('reads a well-behaved list once, in order, with no anomaly', async () => {
    const { read, requested } = service(45);
    const r = await run(read);
    expect(r.records.map((x) => x.id)).toEqual(recs(0, 45).map((x) => x.id));
    expect(r.anomalies).toEqual([]);
    expect(r.result).toMatchObject({
      count: 45,
      total: 45,
      totalAtEnd: 45,
      pages: 5,
      duplicates: 0,
    });
    expect([...requested].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });

  it('an empty list is one request and a success', async () => {
    const { read, requested } = service(0);
    const r = await run(read);
    expect(requested).toEqual([1]);
    expect(r.result).toMatchObject({ count: 0, pages: 1 });
    expect(r.anomalies).toEqual([]);
  });

  it('a page answered as another page is a wrong-page anomaly naming both', async () => {
    const { read } = service(30, (p, n) => (n === 2 ? { ...p, meta: { ...p.meta, page: 3 } } : p));
    const r = await run(read);
    expect(r.anomalies[0]).toEqual({
      kind: 'wrong-page',
      page: 2,
      answeredAs: 3,
      message: 'page 2 came back as meta.page 3',
    });
  });

  it('a total that changes is reported once, and a grown list is followed to its end', async () => {
    const { read, requested } = service(30, (p, n) =>
      n >= 2
        ? {
            data: recs((n - 1) * 10, Math.min(10, 45 - (n - 1) * 10)),
            meta: { total: 45, page: n, limit: 10, hasNext: n * 10 < 45 },
          }
        : p,
    );
    const r = await run(read);
    expect(r.kinds.filter((k) => k === 'total-changed')).toHaveLength(1);
    expect(r.anomalies.find((a) => a.kind === 'total-changed')).toMatchObject({
      page: 2,
      from: 30,
      to: 45,
      message:
        'meta.total changed from 30 (page 1) to 45 (page 2): the list changed during the export',
    });
    expect(Math.max(...requested)).toBe(5);
    expect(r.result).toMatchObject({ count: 45, total: 30, totalAtEnd: 45 });
    expect(r.kinds).toContain('count-mismatch');
  });

  it('a page with more records than its limit is oversized', async () => {
    const { read } = service(20, (p, n) =>
      n === 1 ? { ...p, data: [...p.data, { id: 'x' }] } : p,
    );
    const r = await run(read);
    expect(r.anomalies).toContainEqual({
      kind: 'oversized-page',
      page: 1,
      message: 'page 1 holds 11 records, more than its limit of 10',
    });
  });

  it('a repeated page and repeated records are reported and de-duplicated', async () => {
    const { read } = service(30, (p, n) => (n === 2 ? { ...p, data: recs(0, 10) } : p));
    const r = await run(read);
    expect(r.kinds).toContain('repeated-page');
    expect(r.anomalies.find((a) => a.kind === 'duplicates')).toMatchObject({ page: 2, count: 10 });
    expect(r.result.duplicates).toBe(10);
    expect(new Set(r.records.map((x) => x.id)).size).toBe(r.records.length);
    expect(r.result.count).toBe(20);
  });

  it('an empty page that says hasNext stops the run', async () => {
    const { read } = service(50, (p, n) => (n === 2 ? { ...p, data: [] } : p));
    const r = await run(read, { window: 1 });
    expect(r.kinds).toContain('empty-with-next');
    // Nothing after the empty page is handed over (the one page read ahead is dropped).
    expect(r.result).toMatchObject({ pages: 2, count: 10 });
  });

  it('hasNext: false before the planned pages is ended-early', async () => {
    const { read } = service(50, (p, n) =>
      n === 3 ? { ...p, meta: { ...p.meta, hasNext: false } } : p,
    );
    const r = await run(read, { window: 1 });
    expect(r.anomalies).toContainEqual({
      kind: 'ended-early',
      page: 3,
      message: 'page 3 says hasNext: false after 30 of 50 records (5 pages expected)',
    });
  });

  it('past the plan, hasNext: true is followed one page at a time while pages bring new ids', async () => {
    // total says 20, but pages keep coming with new records until page 4.
    const read = async (n: number) => ({
      data: recs((n - 1) * 10, 10),
      meta: { total: 20, page: n, limit: 10, hasNext: n < 4 },
    });
    const r = await run(read);
    expect(r.kinds.filter((k) => k === 'past-plan')).toHaveLength(2);
    expect(r.anomalies.find((a) => a.kind === 'past-plan')?.message).toBe(
      'page 2 says hasNext: true, but meta.total 20 means 2 page(s)',
    );
    expect(r.result.count).toBe(40);
  });

  it('a page past the plan that brings nothing new stops the run (stalled)', async () => {
    const read = async (n: number) => ({
      data: [{ id: 'same' }],
      meta: { total: 1, page: n, limit: 10, hasNext: true },
    });
    const r = await run(read);
    expect(r.anomalies.find((a) => a.kind === 'stalled')).toEqual({
      kind: 'stalled',
      page: 2,
      message: 'page 2 brought no new record but says hasNext: true; stopped reading there',
    });
    expect(r.result.pages).toBe(2);
  });

  it('a list that keeps growing stops at twice the announced pages, at least 10 more', async () => {
    const read = async (n: number) => ({
      data: recs((n - 1) * 10, 10),
      meta: { total: 10, page: n, limit: 10, hasNext: true },
    });
    const r = await run(read);
    expect(r.anomalies.find((a) => a.kind === 'runaway')).toEqual({
      kind: 'runaway',
      page: 11,
      message:
        'the list kept growing past twice the 1 page(s) meta.total announced; stopped reading at page 11',
    });
    expect(r.result.pages).toBe(11);
  });

  it.each([
    [30, 3, 13],
    [150, 15, 30],
  ])(
    'a total of %i announces %i pages: a list that keeps growing stops at page %i',
    async (total, announced, stop) => {
      const read = async (n: number) => ({
        data: recs((n - 1) * 10, 10),
        meta: { total, page: n, limit: 10, hasNext: true },
      });
      const r = await run(read);
      expect(r.anomalies.find((a) => a.kind === 'runaway')?.message).toBe(
        `the list kept growing past twice the ${announced} page(s) meta.total announced; stopped reading at page ${stop}`,
      );
      expect(r.result.pages).toBe(stop);
    },
  );

  it('fewer records than meta.total is a count mismatch', async () => {
    const { read } = service(25, (p, n) => (n === 3 ? { ...p, data: p.data.slice(1) } : p));
    const r = await run(read);
    expect(r.anomalies.at(-1)).toEqual({
      kind: 'count-mismatch',
      message: 'exported 24 records, but meta.total was 25 at the start and 25 at the end',
    });
  });

  it('an anomaly the caller makes fatal ends the run with that error', async () => {
    const { read } = service(30, (p, n) => (n === 2 ? { ...p, meta: { ...p.meta, page: 9 } } : p));
    await expect(run(read, { fatal: ['wrong-page'] })).rejects.toThrow(
      'fatal: page 2 came back as meta.page 9',
    );
  });

  it('a missing hasNext is derived from meta.total; a missing meta.page is tolerated', async () => {
    const { read } = service(25, (p) => ({
      data: p.data,
      meta: { total: p.meta.total, limit: p.meta.limit } as PageOf['meta'],
    }));
    const r = await run(read);
    expect(r.result.count).toBe(25);
    expect(r.anomalies).toEqual([]);
  });

  it('a page without data is refused by the default shape check', async () => {
    await expect(run(async () => ({ meta: { total: 1 } }))).rejects.toThrow(
      'page 1 of the export is not { data: [...], meta: { total, page, limit, hasNext } }',
    );
  });

  it('never holds more than the window, and the service clamping limit sets the page size', async () => {
    expect(await heldAtMost(2)).toBeLessThanOrEqual(2);
    const clamped = async (n: number) => ({
      data: recs((n - 1) * 5, n <= 4 ? 5 : 0),
      meta: { total: 20, page: n, limit: 5, hasNext: n < 4 },
    });
    const c = await run(clamped, { limit: 100 });
    expect(c.result).toMatchObject({ count: 20, pages: 4 });
    expect(c.anomalies).toEqual([]);
  });

  it('stops requesting pages once the caller aborts', async () => {
    const ac = new AbortController();
    const requested: number[] = [];
    const limiter = pLimit(2);
    const engine = runPages<Rec>({
      read: async (n, limit, signal) => {
        requested.push(n);
        await aTurn();
        signal.throwIfAborted();
        return {
          data: recs((n - 1) * limit, limit),
          meta: { total: 1000, page: n, limit, hasNext: true },
        };
      },
      limit: 10,
      window: 2,
      limiter,
      signal: ac.signal,
      ids: { add: () => true },
      onAnomaly: () => {},
      onPage: (_fresh, info) => {
        if (info.page === 3) ac.abort(new Error('stop'));
      },
    });
    await expect(engine).rejects.toThrow();
    const before = requested.length;
    // The budget is first come, first served: once a task queued now runs, every page the run
    // had queued before it has been sent or refused.
    await limiter(async () => {});
    expect(requested.length).toBe(before);
    expect(before).toBeLessThan(10);
  });
});

describe('the engine’s details', () => {
  it('names what repeats, what is empty, and what was already exported, in words', async () => {
    const repeat = await run(
      service(30, (p, n) => (n === 2 ? { ...p, data: recs(0, 10) } : p)).read,
    );
    expect(repeat.anomalies.find((a) => a.kind === 'repeated-page')?.message).toBe(
      'page 2 repeats page 1',
    );
    expect(repeat.anomalies.find((a) => a.kind === 'duplicates')?.message).toBe(
      'page 2 repeats 10 record(s) already exported (de-duplicated by id); the list shifted during the export',
    );
    const empty = await run(service(30, (p, n) => (n === 2 ? { ...p, data: [] } : p)).read);
    expect(empty.anomalies.find((a) => a.kind === 'empty-with-next')?.message).toBe(
      'page 2 is empty but says hasNext: true',
    );
  });

  it('a page sharing only some ids with the one before is duplicates, not a repeated page', async () => {
    const r = await run(
      service(30, (p, n) => (n === 2 ? { ...p, data: [...recs(5, 5), ...recs(10, 5)] } : p)).read,
    );
    expect(r.kinds).toContain('duplicates');
    expect(r.kinds).not.toContain('repeated-page');
  });

  it('a page holding only part of the page before (same ids, fewer) is duplicates, not a repeated page', async () => {
    const r = await run(service(30, (p, n) => (n === 2 ? { ...p, data: recs(0, 5) } : p)).read);
    expect(r.kinds).toContain('duplicates');
    expect(r.kinds).not.toContain('repeated-page');
  });

  it.each([
    ['without meta', { data: [] }],
    ['whose meta has no total', { data: [], meta: { page: 1, limit: 10, hasNext: false } }],
  ])('a page %s is refused by the default shape check, in words', async (_, body) => {
    const error = await run(async () => body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      'page 1 of the export is not { data: [...], meta: { total, page, limit, hasNext } }',
    );
  });

  it('a list that shrinks while it is read keeps its plan: the early end is reported', async () => {
    const shrink = service(30, (p, n) =>
      n === 2 ? { ...p, meta: { ...p.meta, total: 15, hasNext: false } } : p,
    );
    const r = await run(shrink.read, { window: 1 });
    expect(r.anomalies.find((a) => a.kind === 'ended-early')?.message).toBe(
      'page 2 says hasNext: false after 20 of 30 records (3 pages expected)',
    );
  });

  it('a slow consumer holds the window full, never more', async () => {
    expect(await heldAtMost(3)).toBe(3);
    expect(await heldAtMost(1)).toBe(1);
  });

  it('asks a window function again each time it requests pages', async () => {
    // A run's share of the budget (rcs export all): 1 page while others run, then 3.
    let asked = 0;
    const { read } = service(100);
    const held: number[] = [];
    const result = await runPages<Rec>({
      read: read as never,
      limit: 10,
      window: () => (++asked > 4 ? 3 : 1),
      limiter: pLimit(3),
      signal: new AbortController().signal,
      ids: { add: () => true },
      onAnomaly: () => {},
      onPage: (_fresh, info) => {
        held.push(info.page);
      },
    });
    expect(result.count).toBe(100);
    expect(asked).toBeGreaterThan(4);
    expect(held).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it.each([
    [95, 3],
    [10, 3],
    [5, 1],
    [0, 2],
  ])(
    'onPlanRequested: once, when every page of the plan is asked for, so a list it starts queues behind them (%i records, window %i)',
    async (total, window) => {
      const { read, requested } = service(total);
      const limiter = pLimit(window);
      let calls = 0;
      await runPages<Rec>({
        read,
        limit: 10,
        window,
        limiter,
        signal: new AbortController().signal,
        ids: { add: () => true },
        onAnomaly: () => {},
        onPage: () => {},
        onPlanRequested: () => {
          calls++;
          // What run.ts does: the next list's first page, through the same budget (0 marks it).
          void limiter(async () => requested.push(0));
        },
      });
      await limiter(async () => {});
      const pages = Math.max(1, Math.ceil(total / 10));
      expect(calls).toBe(1);
      // Every page of the plan (page 1's, not the one page guessed before it came), then the next.
      expect(requested).toEqual([...Array.from({ length: pages }, (_, i) => i + 1), 0]);
    },
  );

  it('a list that grows while it is read: the plan follows the largest total', async () => {
    const grow = service(50, (p, n) => (n === 1 ? { ...p, meta: { ...p.meta, total: 30 } } : p));
    const r = await run(grow.read, { window: 1 });
    expect(r.records).toHaveLength(50);
    expect(grow.requested).toEqual([1, 2, 3, 4, 5]);
    expect(r.kinds).toContain('total-changed');
    expect(r.kinds).not.toContain('past-plan');
  });

  it('plans with the page size the service answered (a clamped limit, even 1), or the asked one when it gives none', async () => {
    const clamped = (size: number) => async (n: number) => {
      const data = recs((n - 1) * size, Math.max(0, Math.min(size, 3 - (n - 1) * size)));
      return { data, meta: { total: 3, page: n, limit: size, hasNext: n * size < 3 } };
    };
    const one = await run(clamped(1), { limit: 10 });
    expect([one.result.pages, one.records.length, one.kinds]).toEqual([3, 3, []]);
    const none = async (n: number) => {
      const page = await clamped(10)(n);
      return { ...page, meta: { ...page.meta, limit: 0 } };
    };
    const zero = await run(none, { limit: 10 });
    expect([zero.result.pages, zero.records.length, zero.kinds]).toEqual([1, 3, []]);
  });

  it('a total that changes on the last page only is still a count mismatch', async () => {
    const r = await run(
      service(30, (p, n) =>
        n === 3 ? { ...p, meta: { ...p.meta, total: 31, hasNext: false } } : p,
      ).read,
    );
    expect(r.kinds).toContain('count-mismatch');
  });

  it('a caller that stops while a page is handed over gets no page read ahead after it', async () => {
    const caller = new AbortController();
    const handed: number[] = [];
    const s = service(50);
    const reads: Promise<unknown>[] = [];
    await expect(
      runPages<Rec>({
        read: ((n: number, limit: number) => {
          const read = s.read(n, limit);
          reads.push(read);
          return read;
        }) as never,
        limit: 10,
        window: 3,
        limiter: pLimit(3),
        signal: caller.signal,
        ids: { add: () => true },
        onAnomaly: () => {},
        onPage: async (_fresh, info) => {
          handed.push(info.page);
          // The pages read ahead have arrived: the engine holds them when the caller stops.
          await Promise.all(reads);
          caller.abort(new Error('stopped'));
        },
      }),
    ).rejects.toThrow('stopped');
    expect(s.requested.length).toBeGreaterThan(1);
    expect(handed).toEqual([1]);
  });

  it('sends nothing for an aborted run, and no queued page once the run is over', async () => {
    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    const reads: number[] = [];
    await expect(
      runPages<Rec>({
        read: (async (n: number) => {
          reads.push(n);
          return { data: [], meta: { total: 0, page: n, limit: 10, hasNext: false } };
        }) as never,
        limit: 10,
        window: 3,
        limiter: pLimit(1),
        signal: aborted.signal,
        ids: { add: () => true },
        onAnomaly: () => {},
        onPage: () => {},
      }),
    ).rejects.toThrow('stopped');
    expect(reads).toEqual([]);

    const s = service(100);
    const signals: AbortSignal[] = [];
    const budget = pLimit(1);
    await expect(
      runPages<Rec>({
        read: ((n: number, limit: number, signal: AbortSignal) => {
          signals.push(signal);
          return s.read(n, limit);
        }) as never,
        limit: 10,
        window: 3,
        limiter: budget,
        signal: new AbortController().signal,
        ids: { add: () => true },
        onAnomaly: () => {},
        onPage: () => {
          throw new Error('consumer left');
        },
      }),
    ).rejects.toThrow('consumer left');
    // First come, first served: when a task queued now runs, the queued pages had their turn.
    await budget(async () => {});
    // Pages queued behind the budget when the consumer left are never sent.
    expect(s.requested[0]).toBe(1);
    expect(s.requested).not.toContain(3);
    // What was still in flight is told to stop.
    expect(signals.every((x) => x.aborted)).toBe(true);
  });
});

describe('the strict shape (an exact export: all of meta, a string id on every record)', () => {
  /** A list of 25 read strictly, its page 2 as `tamper` serves it. */
  const strictly = (tamper: (page: PageOf) => unknown) =>
    run(service(25, (p, n) => (n === 2 ? (tamper(p) as PageOf) : p)).read, { strict: true });
  const without = (field: keyof PageOf['meta']) => (p: PageOf) => {
    const meta: Partial<PageOf['meta']> = { ...p.meta };
    delete meta[field];
    return { ...p, meta };
  };

  it('reads a list whose every page is whole, as the lenient shape does', async () => {
    const r = await strictly((p) => p);
    expect(r.result).toMatchObject({ count: 25, pages: 3 });
    expect(r.records.map((x) => x.id)).toEqual(recs(0, 25).map((x) => x.id));
    expect(r.anomalies).toEqual([]);
  });

  it.each([['page'], ['limit'], ['hasNext']] as const)(
    'a page without meta.%s is refused with the caller’s error, naming the page',
    async (field) => {
      const refused = await strictly(without(field)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ShapeError);
      expect((refused as Error).message).toBe(
        'page 2 of the export is not { data: [...], meta: { total, page, limit, hasNext } }',
      );
    },
  );

  it.each([
    ['null', null],
    ['an object without id', {}],
    ['a number id', { id: 7 }],
    ['a bare string', 'r10'],
  ])('a page holding one record that is %s among good ones is refused', async (_, bad) => {
    const refused = await strictly((p) => ({ ...p, data: [...p.data.slice(1), bad] })).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ShapeError);
    expect((refused as Error).message).toBe(
      'page 2 of the export holds a record without a string id',
    );
  });
});
