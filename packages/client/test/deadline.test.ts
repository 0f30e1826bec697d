import {
  ConnectionError,
  createRcsClient,
  RcsError,
  RequestNotSentError,
  ServerError,
  TimeoutError,
} from '@rcs/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, BASE, SESSION_ID, sessionFixture } from './helpers.js';

// One deadline for every network wait. `deadlineMs` bounds a request with all
// its attempts and the waits between them; without it, each attempt has `timeoutMs` only.

const refused = () =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
  });

/** A fetch that fails every attempt at once, counting them. */
function alwaysFailing() {
  const starts: number[] = [];
  const fetch = (async () => {
    starts.push(starts.length);
    throw refused();
  }) as typeof globalThis.fetch;
  return { fetch, starts };
}

/** A fetch that never answers (until its signal aborts it). */
const stalled = (async (input: Request) =>
  new Promise((_resolve, reject) => {
    input.signal.addEventListener('abort', () => reject(input.signal.reason), { once: true });
  })) as typeof globalThis.fetch;

const get = (client: ReturnType<typeof createRcsClient>) => client.sessions.get(SESSION_ID);

/**
 * A fetch that answers in turn, each answer at its time on the wall clock, which the test sets
 * (`vi.useFakeTimers({ toFake: ['Date'] })`: the waits between attempts run on real timers).
 */
function answeringAt(...answers: [ms: number, status: number][]) {
  let n = 0;
  const fetch = (async () => {
    const [at, status] = answers[Math.min(n++, answers.length - 1)]!;
    vi.setSystemTime(at);
    return status === 200
      ? new Response(JSON.stringify(sessionFixture('DONE')), {
          headers: { 'content-type': 'application/json' },
        })
      : new Response(null, { status });
  }) as typeof globalThis.fetch;
  return { fetch, attempts: () => n };
}

describe('deadlineMs', () => {
  it('a request that keeps failing, with retries to spare, ends at the deadline with its last failure', async () => {
    const { fetch, starts } = alwaysFailing();
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch,
      maxRetries: 1_000,
      initialDelayMs: 20,
      maxDelayMs: 40,
      deadlineMs: 400,
      adaptiveRate: false,
    });
    const error = await get(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNRESET/);
    expect(starts.length).toBeGreaterThan(1);
  });

  it('an answer that never comes fails with a TimeoutError that names the deadline', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: stalled,
      timeoutMs: 60_000,
      deadlineMs: 150,
    });
    const error = await get(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(150);
    expect((error as Error).message).toMatch(/got no answer within 150 ms/);
  });

  it('without it, each attempt has its own timeout and the retries all run', async () => {
    let attempts = 0;
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: (async (input: Request) => {
        attempts++;
        return stalled(input);
      }) as typeof globalThis.fetch,
      timeoutMs: 30,
      maxRetries: 2,
      initialDelayMs: 1,
      maxDelayMs: 1,
    });
    await expect(get(client)).rejects.toMatchObject({ name: 'TimeoutError', timeoutMs: 30 });
    expect(attempts).toBe(3);
  });

  it('a request that answers in time succeeds: the deadline bounds it, it does not shorten each attempt to nothing', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      deadlineMs: 60_000,
      // Answers after 20 ms (fake timers), unless its request is aborted first (as fetch does).
      fetch: (async (input: Request) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 20);
          input.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(input.signal.reason);
          });
        });
        return Response.json(sessionFixture('DONE'));
      }) as typeof globalThis.fetch,
    });
    vi.useFakeTimers();
    try {
      const answer = get(client);
      await vi.advanceTimersByTimeAsync(20);
      await expect(answer).resolves.toMatchObject({ id: SESSION_ID, state: 'DONE' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('no wait between retries runs past it: the last failure ends the request at once', async () => {
    // Waits of up to 1,000 s between retries, a deadline of 200 ms: the first wait would pass it.
    const { fetch } = alwaysFailing();
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch,
      maxRetries: 5,
      initialDelayMs: 1_000_000,
      maxDelayMs: 1_000_000,
      deadlineMs: 200,
      adaptiveRate: false,
    });
    const error = await get(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ECONNRESET/);
  });

  it('nor past an answer: a 503 the deadline leaves no time to retry is the outcome', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      maxRetries: 5,
      initialDelayMs: 1_000_000,
      maxDelayMs: 1_000_000,
      deadlineMs: 200,
      adaptiveRate: false,
      fetch: (async () =>
        Response.json({ title: 'down', status: 503 }, { status: 503 })) as typeof globalThis.fetch,
    });
    const error = await get(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
  });

  it('a Retry-After that would end past it is not waited for: the answer it came with is the outcome', async () => {
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      deadlineMs: 500,
      adaptiveRate: false,
      fetch: (async () =>
        Response.json(
          { title: 'down', status: 503 },
          { status: 503, headers: { 'retry-after': '30' } },
        )) as typeof globalThis.fetch,
    });
    const error = await get(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(client.stats).toMatchObject({ requests: 1, retries: 0 });
  });

  describe('and the waits it holds (on a clock the test sets)', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const settings = { baseUrl: BASE, apiKey: API_KEY, adaptiveRate: false, deadlineMs: 1_000 };

    it('starts when the request does: a retry does not start it again', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: 0 });
      // 500 at 0.5 s: 0.5 s left, retried; 500 at 1 s: the deadline is there, so that is the outcome.
      const { fetch, attempts } = answeringAt([500, 500], [1_000, 500], [3_000, 500]);
      const client = createRcsClient({ ...settings, fetch, maxRetries: 5, initialDelayMs: 1 });
      await expect(get(client)).rejects.toBeInstanceOf(ServerError);
      expect(attempts()).toBe(2);
    });

    it('but the time an outage was waited out (retryForMs) is not the request’s: it starts again after', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: 0 });
      // 503 at 0.9 s: waited out; 500 at 1.5 s is then 0.6 s into a new deadline, so retried.
      const { fetch, attempts } = answeringAt([900, 503], [1_500, 500], [1_600, 200]);
      const client = createRcsClient({
        ...settings,
        fetch,
        maxRetries: 1,
        retryForMs: 60_000,
        initialDelayMs: 1,
        logger: { warn: () => {} },
      });
      await expect(get(client)).resolves.toMatchObject({ id: SESSION_ID });
      expect(attempts()).toBe(3);
    });
  });

  it('must be a positive number of milliseconds', () => {
    for (const deadlineMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createRcsClient({ baseUrl: BASE, apiKey: API_KEY, deadlineMs })).toThrow(
        RcsError,
      );
    }
  });

  it('a fetch that says the request was not sent (a proxy that did not open its tunnel): a create POST is retried', async () => {
    let attempts = 0;
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      maxRetries: 1,
      initialDelayMs: 1,
      maxDelayMs: 1,
      fetch: (async () => {
        attempts++;
        throw new TypeError('fetch failed', {
          cause: new RequestNotSentError('the proxy closed the connection'),
        });
      }) as typeof globalThis.fetch,
    });
    const error = await client.sessions
      .create({ transcript: 'Hello there.', meetingName: 'Call', email: 'r@a.io' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConnectionError', mayHaveBeenCreated: false });
    expect(attempts).toBe(2);
  });

  it('a create POST cut by the deadline before the fetch sent it is a failure, not an unknown outcome', async () => {
    let attempts = 0;
    const client = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      deadlineMs: 50,
      // Still connecting when the deadline stops it (a proxy that never answers CONNECT).
      fetch: (async (request: Request) => {
        attempts++;
        await new Promise((resolve) => request.signal.addEventListener('abort', resolve));
        throw new RequestNotSentError('still connecting', { cause: request.signal.reason });
      }) as typeof globalThis.fetch,
    });
    const error = await client.sessions
      .create({ transcript: 'Hello there.', meetingName: 'Call', email: 'r@a.io' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveBeenCreated: false });
    expect(attempts).toBe(1);
  });
});
