import {
  createRcsClient,
  EXPORT_TABLE,
  type ExportMeta,
  type ExportStats,
  RcsError,
  ServerError,
  type UserExportRecord,
} from '@rcs/client';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { API_KEY, BASE } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = () => createRcsClient({ baseUrl: BASE, apiKey: API_KEY, maxRetries: 0 });
const USERS = `${BASE}/api/v1/data-exports/users`;

function user(n: number): UserExportRecord {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    email: `user${n}@acme.test`,
    firstName: null,
    lastName: null,
    teamIds: [],
    createdAt: '2026-01-01T00:00:00Z',
  };
}

/** An export over a list that `list()` returns at request time (so tests can change it). */
function serveUsers(list: () => UserExportRecord[], onRequest?: (page: number) => void) {
  const requested: number[] = [];
  server.use(
    http.get(USERS, ({ request }) => {
      const q = new URL(request.url).searchParams;
      const page = Number(q.get('page') ?? 1);
      const limit = Number(q.get('limit') ?? 20);
      requested.push(page);
      onRequest?.(page);
      const all = list();
      const data = all.slice((page - 1) * limit, page * limit);
      return HttpResponse.json({
        data,
        meta: { total: all.length, page, limit, hasNext: page * limit < all.length },
      });
    }),
  );
  return requested;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => user(i + 1));

describe('exports.<name>.list: one page', () => {
  it('one accessor per row of EXPORT_TABLE, reachable by name and by resource', () => {
    const c = client();
    for (const row of EXPORT_TABLE) {
      const byName = (c.exports as unknown as Record<string, { path: string }>)[row.name];
      expect(byName?.path).toBe(row.path);
      expect(c.exportsByResource(row.resource)).toBe(byName);
    }
    expect(() => c.exportsByResource('user')).toThrow(/unknown export resource "user".*users/);
  });

  it('sends page and limit and returns { data, meta } typed per record', async () => {
    const requested = serveUsers(() => range(45));
    const page = await client().exports.users.list({ page: 2, limit: 20 });
    expectTypeOf(page.data).toEqualTypeOf<UserExportRecord[]>();
    expect(requested).toEqual([2]);
    expect(page.data.map((u) => u.email)).toEqual(
      range(45)
        .slice(20, 40)
        .map((u) => u.email),
    );
    expect(page.meta).toEqual({ total: 45, page: 2, limit: 20, hasNext: true });
  });

  it('sends archived to the tracks export only (D8)', async () => {
    let query = '';
    server.use(
      http.get(`${BASE}/api/v1/data-exports/tracks`, ({ request }) => {
        query = new URL(request.url).search;
        return HttpResponse.json({
          data: [],
          meta: { total: 0, page: 1, limit: 20, hasNext: false },
        });
      }),
    );
    await client().exports.tracks.list({ archived: 'only' });
    expect(query).toBe('?archived=only');
    await expect(client().exportsByResource('users').list({ archived: 'only' })).rejects.toThrow(
      /archived applies to the tracks export only/,
    );
    await expect(client().exports.tracks.list({ archived: 'all' as 'only' })).rejects.toThrow(
      /archived must be 'include' or 'only'/,
    );
  });

  it.each([
    [{ limit: 0 }, /limit must be a whole number from 1 to 100/],
    [{ limit: 101 }, /limit must be a whole number from 1 to 100/],
    [{ limit: 2.5 }, /limit must be a whole number/],
    [{ page: 0 }, /page must be a whole number of at least 1/],
  ])('rejects %o before any request', async (options, message) => {
    const requested = serveUsers(() => range(3));
    await expect(client().exports.users.list(options)).rejects.toThrow(message);
    expect(requested).toEqual([]);
  });

  it('a mistyped option is an error naming it, not a silent query parameter', async () => {
    const requested = serveUsers(() => range(3));
    await expect(
      client().exports.users.list({ pgae: 2 } as unknown as { page: number }),
    ).rejects.toThrow(/exports\.users\.list: unknown option "pgae"; expected one of page, limit/);
    expect(() =>
      client().exports.users.all({ concurency: 2 } as unknown as { concurrency: number }),
    ).toThrow(/exports\.users\.all: unknown option "concurency"/);
    expect(requested).toEqual([]);
  });

  it('a failed page is a typed error', async () => {
    server.use(
      http.get(USERS, () =>
        HttpResponse.json({ code: 'boom', title: 'Internal', detail: 'db down' }, { status: 500 }),
      ),
    );
    await expect(client().exports.users.list()).rejects.toBeInstanceOf(ServerError);
    // listBody parses an error's body at once: it fails the same way, not at json().
    await expect(client().exports.users.listBody()).rejects.toBeInstanceOf(ServerError);
  });

  it('listBody gives the page as its bytes, and json() the page list() gives', async () => {
    serveUsers(() => range(45));
    const body = await client().exports.users.listBody({ page: 3, limit: 20 });
    expect(new TextDecoder().decode(body.bytes)).toMatch(/^\{"data":\[/);
    const page = body.json();
    expectTypeOf(page).toEqualTypeOf<{ data: UserExportRecord[]; meta: ExportMeta } | undefined>();
    expect(page).toEqual(await client().exports.users.list({ page: 3, limit: 20 }));
    expect(page?.data).toHaveLength(5);
  });

  it('listBody: an answer that is not JSON fails at json(), as list() fails', async () => {
    server.use(http.get(USERS, () => new HttpResponse('<html>', { status: 200 })));
    const body = await client().exports.users.listBody();
    expect(() => body.json()).toThrow(SyntaxError);
    await expect(client().exports.users.list()).rejects.toThrow(SyntaxError);
  });
});

describe('exports.<name>.all: every record (D9)', () => {
  it('reads every page and yields every record in page order, with stats', async () => {
    const requested = serveUsers(() => range(250));
    const it = client().exports.users.all({ concurrency: 3, limit: 100 });
    const got: string[] = [];
    for await (const u of it) got.push(u.email ?? '');
    expect(got).toEqual(range(250).map((u) => u.email));
    expect([...requested].sort()).toEqual([1, 2, 3]);
    expect(it.stats).toMatchObject<Partial<ExportStats>>({
      total: 250,
      totalAtEnd: 250,
      seen: 250,
      duplicates: 0,
      pages: 3,
      missing: 0,
    });
  });

  it('yields in page order even when later pages answer first', async () => {
    // Pages 2 to 4 are asked for together; page 4 answers first, then 3, then 2.
    const answered = new Map<number, () => void>();
    const answeredPage = (page: number) =>
      new Promise<void>((resolve) => {
        answered.set(page, resolve);
      });
    const after = { 2: answeredPage(3), 3: answeredPage(4) } as Record<number, Promise<void>>;
    server.use(
      http.get(USERS, async ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        await after[page];
        const data = range(40).slice((page - 1) * 10, page * 10);
        answered.get(page)?.();
        return HttpResponse.json({ data, meta: { total: 40, page, limit: 10, hasNext: page < 4 } });
      }),
    );
    const got = await client().exports.users.all({ concurrency: 4, limit: 10 }).toArray();
    expect(got.map((u) => u.id)).toEqual(range(40).map((u) => u.id));
  });

  it('de-duplicates records repeated across pages and counts them', async () => {
    // A record inserted at the front while exporting shifts everything: the last record of a
    // page comes again as the first of the next (offset pagination).
    let inserted = false;
    const base = range(30);
    const requested = serveUsers(
      () => (inserted ? [user(1000), ...base] : base),
      (page) => {
        if (page === 2) inserted = true;
      },
    );
    const it = client().exports.users.all({ concurrency: 1, limit: 10 });
    const got = await it.toArray();
    const ids = got.map((u) => u.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(it.stats.duplicates).toBe(1);
    expect(it.stats.total).toBe(30);
    expect(it.stats.totalAtEnd).toBe(31);
    // The inserted record came after page 1, so this run missed it, and says so (D9).
    expect(it.stats.seen).toBe(30);
    expect(it.stats.missing).toBe(1);
    expect(requested).toEqual([1, 2, 3, 4]);
  });

  it('follows a total that grows mid-export (reads the extra pages)', async () => {
    let list = range(20);
    const requested = serveUsers(
      () => list,
      (page) => {
        if (page === 2) list = range(35);
      },
    );
    const it = client().exports.users.all({ concurrency: 1, limit: 10 });
    const got = await it.toArray();
    expect(got).toHaveLength(35);
    expect(requested).toEqual([1, 2, 3, 4]);
    expect(it.stats).toMatchObject({ total: 20, totalAtEnd: 35, seen: 35, missing: 0 });
  });

  it('stops at a total that shrinks mid-export and reports what is missing', async () => {
    let list = range(50);
    serveUsers(
      () => list,
      (page) => {
        if (page === 2) list = range(25);
      },
    );
    const it = client().exports.users.all({ concurrency: 1, limit: 10 });
    const got = await it.toArray();
    expect(got).toHaveLength(25);
    expect(it.stats).toMatchObject({ total: 50, totalAtEnd: 25, seen: 25, missing: 0 });
  });

  it('an empty export yields nothing after one request', async () => {
    const requested = serveUsers(() => []);
    const it = client().exports.users.all();
    expect(await it.toArray()).toEqual([]);
    expect(requested).toEqual([1]);
    expect(it.stats).toMatchObject({ total: 0, seen: 0, pages: 1 });
  });

  it('a failing page ends the iteration with its typed error', async () => {
    server.use(
      http.get(USERS, ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        if (page === 3) return HttpResponse.json({ detail: 'nope' }, { status: 500 });
        const data = range(50).slice((page - 1) * 10, page * 10);
        return HttpResponse.json({ data, meta: { total: 50, page, limit: 10, hasNext: page < 5 } });
      }),
    );
    const got: string[] = [];
    const run = async () => {
      for await (const u of client().exports.users.all({ limit: 10, concurrency: 2 }))
        got.push(u.id);
    };
    await expect(run()).rejects.toBeInstanceOf(ServerError);
    expect(got).toHaveLength(20);
  });

  it('breaking out early stops requesting pages', async () => {
    serveUsers(() => range(1000));
    // The pages the client sends, as it sends them, and each request's end.
    const sent: number[] = [];
    const requests: Promise<unknown>[] = [];
    const watched: typeof fetch = (input, init) => {
      sent.push(Number(new URL(new Request(input, init).url).searchParams.get('page')));
      const request = fetch(input, init);
      requests.push(request.catch(() => {}));
      return request;
    };
    const rcs = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, maxRetries: 0, fetch: watched });
    for await (const u of rcs.exports.users.all({ limit: 10, concurrency: 2 })) {
      if (u.id === range(15)[14]!.id) break;
    }
    // Until every request sent has ended and none followed them: a run still going would send
    // its next page once the pages it waits for came in.
    for (let seen = -1; seen !== requests.length; ) {
      seen = requests.length;
      await Promise.all(requests);
      await new Promise((r) => setImmediate(r));
    }
    expect(Math.max(...sent)).toBeLessThanOrEqual(4);
  });

  it('an aborted signal ends the iteration', async () => {
    serveUsers(() => range(100));
    const controller = new AbortController();
    const run = async () => {
      let n = 0;
      for await (const _ of client().exports.users.all({ limit: 10, signal: controller.signal })) {
        if (++n === 15) controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('checks its options before any request', () => {
    expect(() => client().exports.users.all({ concurrency: 0 })).toThrow(
      /concurrency must be a whole number of at least 1/,
    );
    expect(() => client().exports.users.all({ limit: 500 })).toThrow(RcsError);
  });

  it('checks archived at the call too (D8), before any request', () => {
    expect(() => client().exportsByResource('users').all({ archived: 'only' })).toThrow(
      /archived applies to the tracks export only, not to users/,
    );
    expect(() => client().exports.tracks.all({ archived: 'all' as 'only' })).toThrow(
      /archived must be 'include' or 'only'/,
    );
    expect(() => client().exports.tracks.all({ archived: 'only' })).not.toThrow();
  });

  it('a long export (250 pages): never more than `concurrency` pages held', async () => {
    const PAGES = 250;
    // Pages, not records, are what the window bounds: small pages and a few hundred of them keep
    // the test cheap (1,000 pages of 100 records took over 30 s under a parallel CPU load).
    const LIMIT = 5;
    const CONCURRENCY = 4;
    /** The page whose records the consumer is reading right now. */
    let consuming = 1;
    let maxAhead = 0;
    let inFlight = 0;
    let maxInFlight = 0;
    server.use(
      http.get(USERS, async ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        // A page requested while the consumer reads page c is held until c moves past it.
        maxAhead = Math.max(maxAhead, page - consuming);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // In flight across a turn of the event loop (a turn, not a timer: a timer sleeps, and on a
        // loaded machine each wake-up waits for a core).
        await new Promise((r) => setImmediate(r));
        inFlight--;
        const data = Array.from({ length: LIMIT }, (_, i) => ({
          id: `p${page}-r${i}`,
          email: null,
          firstName: null,
          lastName: null,
          teamIds: [],
          createdAt: '2026-01-01T00:00:00Z',
        }));
        return HttpResponse.json({
          data,
          meta: { total: PAGES * LIMIT, page, limit: LIMIT, hasNext: page < PAGES },
        });
      }),
    );
    const it = client().exports.users.all({
      concurrency: CONCURRENCY,
      limit: LIMIT,
      // Called as the consumer moves on to a page, before its records are yielded.
      onPage: ({ page }) => {
        consuming = page;
      },
    });
    let count = 0;
    let lastPage = 0;
    for await (const u of it) {
      const page = Number(u.id.slice(1, u.id.indexOf('-')));
      expect(page).toBeGreaterThanOrEqual(lastPage); // page order
      expect(page).toBe(consuming);
      lastPage = page;
      count++;
      // A slow consumer now and then, so the reader would run ahead if it could.
      if (count % 13 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(count).toBe(PAGES * LIMIT);
    expect(it.stats.pages).toBe(PAGES);
    expect(it.stats.maxPagesHeld).toBeLessThanOrEqual(CONCURRENCY);
    expect(maxAhead).toBeLessThanOrEqual(CONCURRENCY);
    expect(maxAhead).toBe(CONCURRENCY); // it does read ahead: the window is used, not wasted
    // stats says what the service saw: the pages read ahead at most.
    expect(it.stats.maxPagesHeld).toBe(maxAhead);
    expect(maxInFlight).toBeLessThanOrEqual(CONCURRENCY);
  });
});

describe('exportsByResource: for a resource chosen at run time (the CLI)', () => {
  it('lists a page with page and limit', async () => {
    const requested = serveUsers(() => range(30));
    const page = await client().exportsByResource('users').list({ page: 3, limit: 10 });
    expect(requested).toEqual([3]);
    expect(page.data).toHaveLength(10);
    expect(page.meta.hasNext).toBe(false);
  });
});
