import {
  ConnectionError,
  createRcsClient,
  IdentityProviderError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '@rcs/client';
import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, BASE, problem, SESSION_ID, sessionFixture } from './helpers.js';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

const SESSION_URL = `${BASE}/api/v1/real-call-sessions/${SESSION_ID}`;
const CREATE_URL = `${BASE}/api/v1/real-call-sessions`;
const body = { transcript: 'Hello there, this is a call.', meetingName: 'Call', email: 'r@a.io' };

/** Answers `statuses` in turn (then 201 with a session), counting the calls. */
function sequence(method: 'get' | 'post', url: string, statuses: number[], headers = {}) {
  const calls: number[] = [];
  server.use(
    http[method](url, () => {
      calls.push(Date.now());
      const status = statuses[calls.length - 1];
      if (status === undefined) return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      return HttpResponse.json(problem(status, 'x', 'Failed', 'try later'), {
        status,
        headers: { 'content-type': 'application/problem+json', ...headers },
      });
    }),
  );
  return calls;
}

const client = (extra = {}) => createRcsClient({ baseUrl: BASE, apiKey: API_KEY, ...extra });

describe('retries of GET', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    // Math.random → just under 1: every full-jitter wait is at its ceiling, so waits are known.
    vi.spyOn(Math, 'random').mockReturnValue(0.999999);
  });

  it.each([408, 429, 500, 502, 503, 504])(
    'retries %i twice by default, then succeeds',
    async (s) => {
      const calls = sequence('get', SESSION_URL, [s, s]);
      const pending = client().sessions.get(SESSION_ID);
      await vi.advanceTimersByTimeAsync(10_000);
      await expect(pending).resolves.toMatchObject({ id: SESSION_ID });
      expect(calls).toHaveLength(3);
    },
  );

  it('gives up after maxRetries and throws the typed error of the last answer', async () => {
    const calls = sequence('get', SESSION_URL, [500, 500, 500, 500]);
    const pending = client().sessions.get(SESSION_ID);
    const outcome = expect(pending).rejects.toBeInstanceOf(ServerError);
    await vi.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(calls).toHaveLength(3);
  });

  it('maxRetries can be changed per client and per request', async () => {
    const calls = sequence('get', SESSION_URL, [500, 500, 500, 500, 500]);
    const c = client({ maxRetries: 4 });
    const first = c.sessions.get(SESSION_ID, { maxRetries: 0 });
    const outcome = expect(first).rejects.toBeInstanceOf(ServerError);
    await vi.advanceTimersByTimeAsync(0);
    await outcome;
    expect(calls).toHaveLength(1);
    const second = c.sessions.get(SESSION_ID);
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(second).resolves.toBeDefined();
    expect(calls).toHaveLength(6);
  });

  it.each([400, 401, 403, 404, 409, 422])('does not retry %i', async (s) => {
    const calls = sequence('get', SESSION_URL, [s]);
    const pending = client().sessions.get(SESSION_ID);
    const outcome = expect(pending).rejects.toMatchObject({ status: s });
    await vi.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(calls).toHaveLength(1);
  });

  it('honours Retry-After in seconds', async () => {
    const calls = sequence('get', SESSION_URL, [429], { 'retry-after': '3' });
    const pending = client().sessions.get(SESSION_ID);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await expect(pending).resolves.toBeDefined();
  });

  it('honours Retry-After as an HTTP date', async () => {
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
    const calls = sequence('get', SESSION_URL, [503], {
      'retry-after': new Date('2026-03-01T10:00:05Z').toUTCString(),
    });
    const pending = client().sessions.get(SESSION_ID);
    await vi.advanceTimersByTimeAsync(4_990);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(4_990);
    await expect(pending).resolves.toBeDefined();
  });

  it('does not wait for a Retry-After beyond the cap: the RateLimitError carries it', async () => {
    const calls = sequence('get', SESSION_URL, [429], { 'retry-after': '3600' });
    const pending = client({ maxRetryAfterMs: 60_000 }).sessions.get(SESSION_ID);
    const outcome = expect(pending).rejects.toSatisfy(
      (e) => e instanceof RateLimitError && e.retryAfterMs === 3_600_000,
    );
    await vi.advanceTimersByTimeAsync(0);
    await outcome;
    expect(calls).toHaveLength(1);
  });

  it('retries a dropped connection, then reports a ConnectionError', async () => {
    let calls = 0;
    server.use(
      http.get(SESSION_URL, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const pending = client().sessions.get(SESSION_ID);
    const outcome = expect(pending).rejects.toSatisfy(
      (e) => e instanceof ConnectionError && !e.mayHaveBeenCreated,
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(calls).toBe(3);
  });
});

describe('retries of the create POST (never create a session twice)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });

  it.each([429, 503])('retries %i (nothing was created)', async (s) => {
    const calls = sequence('post', CREATE_URL, [s, s]);
    const pending = client().sessions.create(body);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toMatchObject({ id: SESSION_ID });
    expect(calls).toHaveLength(3);
  });

  it('retries 502 identity_provider_error (R9: nothing created, may be retried)', async () => {
    let calls = 0;
    server.use(
      http.post(CREATE_URL, () => {
        calls++;
        if (calls === 1) {
          return HttpResponse.json(
            problem(502, 'identity_provider_error', 'Bad Gateway', 'identity provider refused'),
            { status: 502 },
          );
        }
        return HttpResponse.json(sessionFixture('PENDING'), { status: 201 });
      }),
    );
    const pending = client().sessions.create(body);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toMatchObject({ state: 'PENDING' });
    expect(calls).toBe(2);
  });

  it('retries 502 identity_provider_error sent as { error: { code } } (the code the error class reads)', async () => {
    let calls = 0;
    server.use(
      http.post(CREATE_URL, () => {
        calls++;
        if (calls === 1) {
          return HttpResponse.json(
            { error: { code: 'identity_provider_error', message: 'identity provider refused' } },
            { status: 502 },
          );
        }
        return HttpResponse.json(sessionFixture('PENDING'), { status: 201 });
      }),
    );
    const pending = client().sessions.create(body);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toMatchObject({ state: 'PENDING' });
    expect(calls).toBe(2);
  });

  it('after retries, a 502 identity_provider_error is an IdentityProviderError', async () => {
    let calls = 0;
    server.use(
      http.post(CREATE_URL, () => {
        calls++;
        return HttpResponse.json(
          problem(502, 'identity_provider_error', 'Bad Gateway', 'identity provider refused'),
          { status: 502 },
        );
      }),
    );
    const pending = client().sessions.create(body);
    const outcome = expect(pending).rejects.toBeInstanceOf(IdentityProviderError);
    await vi.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(calls).toBe(3);
  });

  it.each([500, 502, 504, 408])(
    'does not retry %i without the identity-provider code',
    async (s) => {
      const calls = sequence('post', CREATE_URL, [s, s]);
      const pending = client().sessions.create(body);
      const outcome = expect(pending).rejects.toMatchObject({ status: s });
      await vi.advanceTimersByTimeAsync(10_000);
      await outcome;
      expect(calls).toHaveLength(1);
    },
  );

  it('never retries after a dropped connection: unknown outcome, mayHaveBeenCreated', async () => {
    let calls = 0;
    server.use(
      http.post(CREATE_URL, () => {
        calls++;
        return HttpResponse.error();
      }),
    );
    const pending = client().sessions.create(body);
    const outcome = expect(pending).rejects.toSatisfy(
      (e) => e instanceof ConnectionError && e.mayHaveBeenCreated === true,
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await outcome;
    expect(calls).toBe(1);
  });

  it('does retry a refused connection (the request never left)', async () => {
    let calls = 0;
    const fetch = async (input: Request | string | URL, init?: RequestInit) => {
      calls++;
      if (calls === 1) {
        throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
      }
      return globalThis.fetch(input, init);
    };
    server.use(
      http.post(CREATE_URL, () => HttpResponse.json(sessionFixture('PENDING'), { status: 201 })),
    );
    const pending = client({ fetch }).sessions.create(body);
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toMatchObject({ id: SESSION_ID });
    expect(calls).toBe(2);
  });

  it('idempotent: true opts a POST into GET-style retries', async () => {
    const calls = sequence('post', CREATE_URL, [500]);
    const pending = client().sessions.create(body, { idempotent: true });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toBeDefined();
    expect(calls).toHaveLength(2);
  });
});

describe('timeouts and aborts', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0);
  });

  it('a GET without an answer within timeoutMs is retried, then a TimeoutError', async () => {
    let calls = 0;
    server.use(
      http.get(SESSION_URL, async () => {
        calls++;
        await delay(10_000);
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const pending = client({ timeoutMs: 1_000 }).sessions.get(SESSION_ID);
    const outcome = expect(pending).rejects.toSatisfy(
      (e) => e instanceof TimeoutError && e.timeoutMs === 1_000 && !e.mayHaveBeenCreated,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
    expect(calls).toBe(3);
  });

  it('a create POST that times out is not repeated: mayHaveBeenCreated', async () => {
    let calls = 0;
    server.use(
      http.post(CREATE_URL, async () => {
        calls++;
        await delay(10_000);
        return HttpResponse.json(sessionFixture('PENDING'), { status: 201 });
      }),
    );
    const pending = client().sessions.create(body, { timeoutMs: 500 });
    const outcome = expect(pending).rejects.toSatisfy(
      (e) => e instanceof TimeoutError && e.mayHaveBeenCreated,
    );
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
    expect(calls).toBe(1);
  });

  it("the caller's AbortSignal stops a request in flight, with no retry", async () => {
    let calls = 0;
    server.use(
      http.get(SESSION_URL, async () => {
        calls++;
        await delay(10_000);
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const controller = new AbortController();
    const pending = client().sessions.get(SESSION_ID, { signal: controller.signal });
    const outcome = expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await outcome;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
  });

  it('an abort during the backoff pause ends the wait at once', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const calls = sequence('get', SESSION_URL, [503, 503]);
    const controller = new AbortController();
    const pending = client().sessions.get(SESSION_ID, { signal: controller.signal });
    const outcome = expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(100);
    controller.abort();
    await outcome;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const calls = sequence('get', SESSION_URL, []);
    const pending = client().sessions.get(SESSION_ID, { signal: AbortSignal.abort() });
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });
});
