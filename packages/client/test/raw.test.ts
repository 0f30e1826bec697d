import {
  createRcsClient,
  type ExportIterable,
  type FetchFunction,
  type RealCallSession,
  type TrackExportRecord,
  type UserExportRecord,
} from '@rcs/client';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { API_KEY, BASE, SESSION_ID, sessionFixture } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

describe('the raw typed GET/POST', () => {
  it('answers { data, response } typed by paths, with credentials and retries applied', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v1/data-exports/tracks`, ({ request }) => {
        calls++;
        expect(request.headers.get('x-api-key')).toBe(API_KEY);
        if (calls === 1) return new HttpResponse(null, { status: 503 });
        return HttpResponse.json({
          data: [],
          meta: { total: 0, page: 1, limit: 5, hasNext: false },
        });
      }),
    );
    const rcs = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, initialDelayMs: 1 });
    const { data, error, response } = await rcs.GET('/api/v1/data-exports/tracks', {
      params: { query: { limit: 5, archived: 'only' } },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.meta.total).toBe(0);
    expectTypeOf(data!.data).toEqualTypeOf<TrackExportRecord[]>();
    expect(calls).toBe(2);
  });

  it('does not throw on a non-2xx: the error body is returned', async () => {
    server.use(
      http.get(`${BASE}/api/v1/real-call-sessions/:id`, () =>
        HttpResponse.json({ code: 'not_found', title: 'Not Found', status: 404 }, { status: 404 }),
      ),
    );
    const rcs = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    const { data, error } = await rcs.GET('/api/v1/real-call-sessions/{sessionId}', {
      params: { path: { sessionId: SESSION_ID } },
    });
    expect(data).toBeUndefined();
    expect(error).toMatchObject({ code: 'not_found' });
  });
});

describe('types', () => {
  it('each export is typed by its own record; archived exists on tracks only (D8)', () => {
    const rcs = createRcsClient({ baseUrl: BASE });
    expectTypeOf(rcs.exports.users.all()).toEqualTypeOf<ExportIterable<UserExportRecord>>();
    expectTypeOf(rcs.exports.tracks.list)
      .parameter(0)
      .exclude<undefined>()
      .toHaveProperty('archived');
    // @ts-expect-error: the users export has no archive filter
    rcs.exports.users.list({ archived: 'only' }).catch(() => {});
    expectTypeOf(rcs.sessions.get).returns.resolves.toEqualTypeOf<RealCallSession>();
  });

  it('the fetch option takes the platform fetch, a function of a Request, and an (input, init) wrapper', () => {
    expectTypeOf(globalThis.fetch).toExtend<FetchFunction>();
    expectTypeOf((request: Request) => fetch(request)).toExtend<FetchFunction>();
    createRcsClient({ baseUrl: BASE, fetch: (input, init) => fetch(input, init) });
    createRcsClient({ baseUrl: BASE, fetch: (request) => fetch(request) });
    // @ts-expect-error: the client reads the answer's status and body; a string is not one
    createRcsClient({ baseUrl: BASE, fetch: async (_request: Request) => 'ok' });
  });
});

describe('logger', () => {
  it('gets one line per request and per retry, never a credential', async () => {
    let calls = 0;
    server.use(
      http.get(`${BASE}/api/v1/real-call-sessions/:id`, () => {
        calls++;
        return calls === 1
          ? new HttpResponse(null, { status: 502 })
          : HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const lines: string[] = [];
    const logger = {
      debug: (m: string, d?: object) => lines.push(`debug ${m} ${JSON.stringify(d)}`),
      warn: (m: string, d?: object) => lines.push(`warn ${m} ${JSON.stringify(d)}`),
    };
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      token: 'a.jwt.token-value',
      logger,
      initialDelayMs: 1,
    });
    await rcs.sessions.get(SESSION_ID);
    // The failed answer, then the retry announced, then the answer that came: in that order.
    const failed = lines.findIndex((l) => l.includes('-> 502'));
    const retry = lines.findIndex((l) => /^warn retrying GET .* \(retry 1 of 2\)/.test(l));
    const done = lines.findIndex((l) => l.includes('-> 201'));
    expect(failed).toBeGreaterThanOrEqual(0);
    expect(retry).toBeGreaterThan(failed);
    expect(done).toBeGreaterThan(retry);
    expect(lines.join('\n')).not.toContain(API_KEY);
    expect(lines.join('\n')).not.toContain('a.jwt.token-value');
  });
});
