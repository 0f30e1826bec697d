import { createRcsClient, emptyRequestStats, RateLimitError, type RequestStats } from '@rcs/client';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, BASE, problem, SESSION_ID, sessionFixture } from './helpers.js';

// `client.stats` counts every request of the client; `stats` in a call's options is a
// tally of the caller's own (rcs upload's per-file summary) that gets that call's requests only.

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

const CREATE_URL = `${BASE}/api/v1/real-call-sessions`;
const SESSION_URL = `${BASE}/api/v1/real-call-sessions/${SESSION_ID}`;
const body = { transcript: 'Hello there, this is a call.', meetingName: 'Call', email: 'r@a.io' };
const bodyBytes = new TextEncoder().encode(JSON.stringify(body)).byteLength;

const zero = emptyRequestStats;

/** Answers 429 (Retry-After 2 s) `limited` times, then `ok()`; remembers the bodies it sent. */
function answers(method: 'get' | 'post', url: string, limited: number, ok: () => Response) {
  const sent: number[] = [];
  server.use(
    http[method](url, () => {
      if (sent.length < limited) {
        sent.push(0);
        return HttpResponse.json(problem(429, 'rate_limited', 'Slow down', 'later'), {
          status: 429,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '2' },
        });
      }
      const res = ok();
      sent.push(1);
      return res;
    }),
  );
  return sent;
}

describe('request counts', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });

  it('client.stats and a new tally start at zero, every figure named', () => {
    const none = {
      requests: 0,
      retries: 0,
      rateLimited: 0,
      rateLimitWaitMs: 0,
      bytesReceived: 0,
      bytesSent: 0,
    };
    expect(createRcsClient({ baseUrl: BASE, apiKey: API_KEY }).stats).toEqual(none);
    expect(zero()).toEqual(none);
  });

  it("a call's own tally counts its attempts, 429s, the Retry-After waited, the bytes sent and read; client.stats counts every call", async () => {
    const created = JSON.stringify(sessionFixture('PENDING'));
    answers(
      'post',
      CREATE_URL,
      1,
      () =>
        new HttpResponse(created, { status: 201, headers: { 'content-type': 'application/json' } }),
    );
    const done = JSON.stringify(sessionFixture('DONE'));
    answers(
      'get',
      SESSION_URL,
      0,
      () =>
        new HttpResponse(done, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    const first = zero();
    const pending = client.sessions.create(body, { stats: first });
    await vi.advanceTimersByTimeAsync(5_000);
    await pending;
    const problemBytes = first.bytesReceived - new TextEncoder().encode(created).byteLength;
    expect(problemBytes).toBeGreaterThan(0); // the 429's problem body was read too
    expect(first).toEqual({
      requests: 2,
      retries: 1,
      rateLimited: 1,
      rateLimitWaitMs: 2_000,
      bytesReceived: first.bytesReceived,
      bytesSent: 2 * bodyBytes,
    });

    // A second call with its own tally: the first tally is left alone; the client's adds up.
    const second = zero();
    const waited = client.sessions.waitUntilDone(SESSION_ID, { stats: second });
    await vi.advanceTimersByTimeAsync(5_000);
    await waited;
    expect(second).toEqual({
      ...zero(),
      requests: 1,
      bytesReceived: new TextEncoder().encode(done).byteLength,
    });
    expect(first.requests).toBe(2);
    const sum = Object.fromEntries(
      Object.keys(first).map((k) => [
        k,
        first[k as keyof RequestStats] + second[k as keyof RequestStats],
      ]),
    );
    expect(client.stats).toEqual(sum);
  });

  it("an export page's call takes a tally too", async () => {
    server.use(
      http.get(`${BASE}/api/v1/data-exports/teams`, () =>
        HttpResponse.json({ data: [], meta: { total: 0, page: 1, limit: 10, hasNext: false } }),
      ),
    );
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    const tally = zero();
    await client.exports.teams.list({ limit: 10, stats: tally });
    expect(tally.requests).toBe(1);
    expect(tally.bytesReceived).toBeGreaterThan(0);
  });

  it('a call without a tally is counted by client.stats only', async () => {
    answers(
      'get',
      SESSION_URL,
      0,
      () => HttpResponse.json(sessionFixture('DONE'), { status: 200 }) as Response,
    );
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    await client.sessions.get(SESSION_ID);
    expect(client.stats).toMatchObject({ requests: 1, retries: 0, bytesSent: 0 });
  });

  it('a retry for another reason than a 429 (a 503 with Retry-After) is no rate-limit wait', async () => {
    let calls = 0;
    server.use(
      http.get(SESSION_URL, () => {
        calls++;
        return calls === 1
          ? HttpResponse.json(problem(503, 'unavailable', 'Down', 'later'), {
              status: 503,
              headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
            })
          : HttpResponse.json(sessionFixture('DONE'), { status: 200 });
      }),
    );
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    const tally = zero();
    const pending = client.sessions.get(SESSION_ID, { stats: tally });
    await vi.advanceTimersByTimeAsync(5_000);
    await pending;
    expect(tally).toMatchObject({ requests: 2, retries: 1, rateLimited: 0, rateLimitWaitMs: 0 });
    expect(client.stats).toEqual(tally);
  });

  it('no rate-limit wait is counted for a service that never answered 429, however the clock jumps', async () => {
    // On a loaded machine the clock moves between any two readings: that is no wait.
    let clock = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => (clock += 5));
    server.use(http.get(SESSION_URL, () => HttpResponse.json(sessionFixture('DONE'))));
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    for (let i = 0; i < 5; i++) await client.sessions.get(SESSION_ID);
    expect(client.stats).toMatchObject({ requests: 5, rateLimited: 0, rateLimitWaitMs: 0 });
  });

  it('a Retry-After longer than the client waits (maxRetryAfterMs) is not waited for: the 429 is the answer, at once', async () => {
    server.use(
      http.get(SESSION_URL, () =>
        HttpResponse.json(problem(429, 'rate_limited', 'Slow down', 'later'), {
          status: 429,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '3600' },
        }),
      ),
    );
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, maxRetryAfterMs: 1_000 });
    const tally = zero();
    const error = await client.sessions.get(SESSION_ID, { stats: tally }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_600_000);
    expect(tally).toMatchObject({ requests: 1, retries: 0, rateLimited: 1, rateLimitWaitMs: 0 });
    expect(client.stats).toEqual(tally);
  });

  it('an answer without a body (204) reads no bytes', async () => {
    server.use(http.get(SESSION_URL, () => new HttpResponse(null, { status: 204 })));
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY });
    const tally = zero();
    await client.sessions.get(SESSION_ID, { stats: tally }).catch(() => undefined);
    expect(tally).toEqual({ ...zero(), requests: 1 });
    expect(client.stats).toEqual(tally);
  });
});

describe('request counts under the rate controller (real time)', () => {
  it('after a 429, the time a later request was held back is its rate-limit wait; the tallies add up to client.stats', async () => {
    let calls = 0;
    const fetch = (async () => {
      calls++;
      if (calls === 3) {
        return new Response('{}', { status: 429, headers: { 'retry-after': '0' } });
      }
      return Response.json(sessionFixture('DONE'));
    }) as typeof globalThis.fetch;
    const client = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, fetch });
    const tallies: RequestStats[] = [];
    for (let i = 0; i < 6; i++) {
      const tally = zero();
      tallies.push(tally);
      await client.sessions.get(SESSION_ID, { stats: tally });
    }
    // The last ones got no 429 of their own, and were held back by the pacer all the same.
    const last = tallies.at(-1) as RequestStats;
    expect(last.rateLimited).toBe(0);
    expect(last.rateLimitWaitMs).toBeGreaterThan(1);
    const sum = zero();
    for (const t of tallies) {
      for (const k of Object.keys(sum) as (keyof RequestStats)[]) sum[k] += t[k];
    }
    expect(client.stats).toEqual(sum);
  });
});
