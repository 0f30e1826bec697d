import {
  createRcsClient,
  NotFoundError,
  type RealCallSession,
  ServerError,
  WaitTimeoutError,
} from '@rcs/client';
import { HttpResponse, http } from 'msw';
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

const SESSION_URL = `${BASE}/api/v1/real-call-sessions/:id`;
const client = () => createRcsClient({ baseUrl: BASE, apiKey: API_KEY });

describe('sessions.create', () => {
  it('POSTs the body as JSON and resolves with the created session (201)', async () => {
    let received: unknown;
    server.use(
      http.post(`${BASE}/api/v1/real-call-sessions`, async ({ request }) => {
        received = await request.json();
        expect(request.headers.get('content-type')).toContain('application/json');
        return HttpResponse.json(sessionFixture('PENDING'), { status: 201 });
      }),
    );
    const body = {
      transcript: '1\n00:00:01,000 --> 00:00:02,000\nrep@a.io: hello there\n',
      meetingName: 'Discovery',
      email: 'rep@a.io',
    };
    const session = await client().sessions.create(body);
    expect(received).toEqual(body);
    expect(session).toMatchObject({ id: SESSION_ID, state: 'PENDING' });
  });

  it('rejects a missing body before any request', async () => {
    await expect(
      client().sessions.create(
        undefined as unknown as Parameters<ReturnType<typeof client>['sessions']['create']>[0],
      ),
    ).rejects.toThrow(/needs a request body/);
  });
});

describe('sessions.get', () => {
  it.each([200, 201])('accepts %i (D4: the mock answers 201)', async (status) => {
    server.use(http.get(SESSION_URL, () => HttpResponse.json(sessionFixture('DONE'), { status })));
    await expect(client().sessions.get(SESSION_ID)).resolves.toMatchObject({ state: 'DONE' });
  });

  it('encodes the id into the path', async () => {
    let id: string | undefined;
    server.use(
      http.get(SESSION_URL, ({ params }) => {
        id = params.id as string;
        return HttpResponse.json(problem(404, 'not_found', 'Not Found', 'no such session'), {
          status: 404,
        });
      }),
    );
    await expect(client().sessions.get('a/b')).rejects.toBeInstanceOf(NotFoundError);
    expect(id).toBe('a/b');
  });

  it('rejects an empty id before any request', async () => {
    await expect(client().sessions.get('  ')).rejects.toThrow(/sessionId must be a non-empty/);
  });
});

describe('sessions.waitUntilDone', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
  });

  function states(list: RealCallSession['state'][], headers: Record<string, string> = {}) {
    const reads: number[] = [];
    server.use(
      http.get(SESSION_URL, () => {
        reads.push(Date.now());
        const state = list[Math.min(reads.length - 1, list.length - 1)]!;
        return HttpResponse.json(sessionFixture(state), { status: 201, headers });
      }),
    );
    return reads;
  }

  it('polls until DONE, reporting every state read, DONE included, and resolves with the DONE session', async () => {
    const reads = states(['PENDING', 'PROCESSING', 'PROCESSING', 'DONE']);
    const progress: string[] = [];
    const pending = client().sessions.waitUntilDone(SESSION_ID, {
      timeoutMs: 60_000,
      onProgress: (s) => progress.push(s.state),
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE', completed: true });
    expect(progress).toEqual(['PENDING', 'PROCESSING', 'PROCESSING', 'DONE']);
    expect(reads).toHaveLength(4);
  });

  it('a session already DONE at the first read is reported once, as DONE', async () => {
    states(['DONE']);
    const progress: string[] = [];
    const pending = client().sessions.waitUntilDone(SESSION_ID, {
      timeoutMs: 60_000,
      onProgress: (s) => progress.push(s.state),
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE' });
    expect(progress).toEqual(['DONE']);
  });

  it('backs off exponentially (×1.5) under maxIntervalMs', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1 - 1e-9);
    const reads = states(['PENDING', 'PENDING', 'PENDING', 'PENDING', 'PENDING', 'DONE']);
    const pending = client().sessions.waitUntilDone(SESSION_ID, {
      timeoutMs: 60_000,
      initialIntervalMs: 1_000,
      maxIntervalMs: 2_000,
    });
    await vi.advanceTimersByTimeAsync(60_000);
    await pending;
    const gaps = reads.slice(1).map((t, i) => t - reads[i]!);
    // Steps 1000, 1500, 2000 (capped), 2000, 2000; with random ≈ 1 each pause is ≈ the step.
    expect(gaps).toEqual([1_000, 1_500, 2_000, 2_000, 2_000]);
  });

  it('never pauses less than half a step (equal jitter), even when random() is 0', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const reads = states(['PENDING', 'PENDING', 'DONE']);
    const pending = client().sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 1_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    await pending;
    expect(reads[1]! - reads[0]!).toBe(500);
    expect(reads[2]! - reads[1]!).toBe(750);
  });

  it('honours a Retry-After sent with a session that is not DONE', async () => {
    const reads = states(['PROCESSING', 'DONE'], { 'retry-after': '9' });
    const pending = client().sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 100 });
    await vi.advanceTimersByTimeAsync(20_000);
    await pending;
    expect(reads[1]! - reads[0]!).toBe(9_000);
  });

  it('keeps waiting through a rate limit that outlasted the retries, at its Retry-After', async () => {
    let n = 0;
    const reads: number[] = [];
    server.use(
      http.get(SESSION_URL, () => {
        reads.push(Date.now());
        n++;
        if (n <= 3) {
          return HttpResponse.json(problem(429, 'rate_limited', 'Too Many', 'slow'), {
            status: 429,
            headers: { 'retry-after': '2' },
          });
        }
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const pending = client().sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 100 });
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE' });
    expect(reads).toHaveLength(4);
  });

  it('keeps waiting through a 5xx that outlasted the retries, at its Retry-After', async () => {
    const reads: number[] = [];
    server.use(
      http.get(SESSION_URL, () => {
        reads.push(Date.now());
        // One read = the first attempt and its 2 retries (each 7 s apart, Retry-After).
        if (reads.length <= 3) {
          return HttpResponse.json(
            { detail: 'maintenance' },
            {
              status: 503,
              headers: { 'retry-after': '7' },
            },
          );
        }
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const pending = client().sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 100 });
    await vi.advanceTimersByTimeAsync(30_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE' });
    expect(reads).toHaveLength(4);
    // The transport's retries waited 7 s each; so does the poll after the failed read.
    expect(reads.slice(1).map((t, i) => t - reads[i]!)).toEqual([7_000, 7_000, 7_000]);
  });

  it('a Retry-After on a failed read is capped by maxRetryAfterMs', async () => {
    const reads: number[] = [];
    server.use(
      http.get(SESSION_URL, () => {
        reads.push(Date.now());
        if (reads.length === 1) {
          return HttpResponse.json(
            { detail: 'down' },
            {
              status: 500,
              headers: { 'retry-after': '3600' },
            },
          );
        }
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const c = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, maxRetryAfterMs: 5_000 });
    const pending = c.sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 100 });
    await vi.advanceTimersByTimeAsync(10_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE' });
    // The transport does not wait an hour (past its cap); the poll waits the cap, not an hour.
    expect(reads[1]! - reads[0]!).toBe(5_000);
  });

  it('rejects with WaitTimeoutError carrying the session id and last state', async () => {
    states(['PROCESSING']);
    const pending = client().sessions.waitUntilDone(SESSION_ID, { timeoutMs: 10_000 });
    const outcome = expect(pending).rejects.toSatisfy(
      (e) =>
        e instanceof WaitTimeoutError &&
        e.sessionId === SESSION_ID &&
        e.lastState === 'PROCESSING' &&
        e.message.includes(SESSION_ID),
    );
    await vi.advanceTimersByTimeAsync(9_999);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
  });

  it('rides out a service that fails for a while (5xx, dropped connection) and still resolves', async () => {
    let n = 0;
    server.use(
      http.get(SESSION_URL, () => {
        n++;
        if (n <= 3) return HttpResponse.json({ detail: 'down' }, { status: 503 });
        if (n <= 6) return HttpResponse.error();
        return HttpResponse.json(sessionFixture('DONE'), { status: 201 });
      }),
    );
    const pending = client().sessions.waitUntilDone(SESSION_ID, { timeoutMs: 60_000 });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(pending).resolves.toMatchObject({ state: 'DONE' });
    expect(n).toBe(7);
  });

  it('when the service fails until the deadline, the WaitTimeoutError says why', async () => {
    server.use(
      http.get(SESSION_URL, () => HttpResponse.json({ detail: 'db down' }, { status: 500 })),
    );
    const pending = client().sessions.waitUntilDone(SESSION_ID, { timeoutMs: 20_000 });
    const outcome = expect(pending).rejects.toSatisfy(
      (e) =>
        e instanceof WaitTimeoutError &&
        e.sessionId === SESSION_ID &&
        e.cause instanceof ServerError &&
        e.message.includes('db down'),
    );
    await vi.advanceTimersByTimeAsync(20_000);
    await outcome;
  });

  it('an error other than a transient one ends the wait at once (404)', async () => {
    server.use(
      http.get(SESSION_URL, () =>
        HttpResponse.json(problem(404, 'not_found', 'Not Found', 'x'), { status: 404 }),
      ),
    );
    const pending = client().sessions.waitUntilDone(SESSION_ID);
    await expect(pending).rejects.toBeInstanceOf(NotFoundError);
  });

  it("the caller's signal aborts the wait (not reported as a timeout)", async () => {
    states(['PENDING']);
    const controller = new AbortController();
    const pending = client().sessions.waitUntilDone(SESSION_ID, { signal: controller.signal });
    const outcome = expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(3_000);
    controller.abort();
    await outcome;
  });

  it('rejects bad options by name', async () => {
    await expect(
      client().sessions.waitUntilDone(SESSION_ID, { timeoutMs: Number.NaN }),
    ).rejects.toThrow(/timeoutMs must be a number ≥ 0, got NaN/);
    await expect(
      client().sessions.waitUntilDone(SESSION_ID, { initialIntervalMs: 0 }),
    ).rejects.toThrow(/initialIntervalMs must be a number ≥ 1, got 0/);
  });
});
