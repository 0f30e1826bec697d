import { RcsError } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { paginate } from '../src/paginate.js';

// all()'s own details: the de-duplication window, the stats a caller reads while it
// iterates, the refusal of a page that is not the one asked for or not a page at all, and a
// clean end whichever way the consumer leaves.
type Rec = { id: string };

/** Pages of `ids`, `limit` per page, total = ids.length, each page as `tamper` changes it. */
function pages(
  ids: string[],
  limit: number,
  tamper: (p: unknown, n: number) => unknown = (p) => p,
) {
  return async (n: number) => {
    const data = ids.slice((n - 1) * limit, n * limit).map((id) => ({ id }));
    return tamper(
      { data, meta: { total: ids.length, page: n, limit, hasNext: n * limit < ids.length } },
      n,
    ) as { data: Rec[]; meta: { total: number; page: number; limit: number; hasNext: boolean } };
  };
}

/** A page that never comes: it fails, as fetch does, once its request is aborted. */
const stoppedBy = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const ids = (it: AsyncIterable<Rec>) =>
  (async () => {
    const out: string[] = [];
    for await (const r of it) out.push(r.id);
    return out;
  })();

describe('the de-duplication window (dedupeWindow)', () => {
  it('remembers the last N ids: a repeat within them is dropped, an older one comes through', async () => {
    const seq = ['a', 'b', 'c', 'd', 'b', 'd'];
    const got = await ids(paginate(pages(seq, 1), { dedupeWindow: 2, concurrency: 1, limit: 1 }));
    // b was forgotten after c and d; d was still remembered.
    expect(got).toEqual(['a', 'b', 'c', 'd', 'b']);
  });

  it('0 remembers nothing; Infinity remembers all', async () => {
    const seq = ['a', 'b', 'a', 'c', 'b'];
    expect(
      await ids(paginate(pages(seq, 1), { dedupeWindow: 0, concurrency: 1, limit: 1 })),
    ).toEqual(seq);
    expect(
      await ids(
        paginate(pages(seq, 1), {
          dedupeWindow: Number.POSITIVE_INFINITY,
          concurrency: 1,
          limit: 1,
        }),
      ),
    ).toEqual(['a', 'b', 'c']);
  });
});

describe('stats while iterating', () => {
  it('missing counts down as records arrive, and stays at what never came', async () => {
    const all = Array.from({ length: 30 }, (_, i) => `r${i}`);
    const it = paginate(pages(all, 10), { concurrency: 1, limit: 10 });
    const seen: number[] = [];
    for await (const r of it) {
      if (r.id === 'r4') seen.push(it.stats.missing);
    }
    expect(seen).toEqual([25]);
    expect(it.stats.missing).toBe(0);
    // The service counts 30 but serves 25: 5 missing at the end.
    const short = paginate(
      pages(all, 10, (p, n) =>
        n === 3 ? { ...(p as object), data: all.slice(20, 25).map((id) => ({ id })) } : p,
      ),
      { concurrency: 1, limit: 10 },
    );
    await short.toArray();
    expect(short.stats.missing).toBe(5);
  });
});

describe('pages all() refuses', () => {
  it('a page answered as another page', async () => {
    const wrong = pages(['a', 'b', 'c'], 1, (p, n) =>
      n === 2
        ? { ...(p as { meta: object }), meta: { ...(p as { meta: object }).meta, page: 1 } }
        : p,
    );
    await expect(paginate(wrong, { concurrency: 1, limit: 1 }).toArray()).rejects.toThrow(
      'page 2 of the export was answered as page 1 (meta.page): the service did not serve the page requested, so the export would repeat or skip records',
    );
  });

  it.each([
    ['null', null],
    ['no data', { meta: { total: 1, page: 1, limit: 1, hasNext: false } }],
    ['data not an array', { data: 'x', meta: { total: 1, page: 1, limit: 1, hasNext: false } }],
    ['no meta', { data: [] }],
    ['no meta.total', { data: [], meta: { page: 1, limit: 1, hasNext: false } }],
  ])(
    'a page that is not a page (%s): one clear error, whatever the consumer did',
    async (_, body) => {
      const it = paginate((async () => body) as never, { concurrency: 1, limit: 1 });
      const error = await it.toArray().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RcsError);
      expect((error as Error).message).toBe(
        'page 1 of the export is not { data: [...], meta: { total, page, limit, hasNext } }',
      );
    },
  );

  it('a consumer that leaves early stops the pages still in flight', async () => {
    const all = Array.from({ length: 50 }, (_, i) => `r${i}`);
    const serve = pages(all, 10);
    const signals: AbortSignal[] = [];
    const reader = async (n: number, _limit: number, signal: AbortSignal) => {
      signals.push(signal);
      // Every page after the first is still on its way when the consumer leaves.
      if (n > 1) await stoppedBy(signal);
      return serve(n);
    };
    for await (const r of paginate(reader as never, { concurrency: 3, limit: 10 })) {
      if (r.id === 'r0') break;
    }
    expect(signals.length).toBeGreaterThan(1);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('a consumer that leaves early leaves no unhandled rejection behind', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const all = Array.from({ length: 50 }, (_, i) => `r${i}`);
      const slow = pages(all, 10);
      const reads: Promise<unknown>[] = [];
      const reader = (n: number, _limit: number, signal: AbortSignal) => {
        // Every page after the first fails when the consumer leaves: a rejection nobody awaits.
        const read = n > 1 ? stoppedBy(signal) : slow(n);
        reads.push(read);
        return read;
      };
      for await (const r of paginate(reader as never, { concurrency: 3, limit: 10 })) {
        if (r.id === 'r0') break;
      }
      expect(reads.length).toBeGreaterThan(1);
      // Every read has failed; Node reports a rejection left unhandled once the promise jobs
      // run out, which they have one turn of the event loop later.
      await Promise.allSettled(reads);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
