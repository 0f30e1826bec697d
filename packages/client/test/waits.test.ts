/**
 * Every wait under the deadline, over real sockets. A `Retry-After` past `maxRetryAfterMs` is the
 * caller's to decide on: the shared rate pacer pauses at most that long, and inside the next
 * request's timeout, deadline and signal. `retryForMs` waits for a service that is down, and says
 * so on every attempt.
 */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import {
  ConnectionError,
  createRcsClient,
  RateLimitError,
  type RcsClientOptions,
  RequestNotSentError,
  ServerError,
  TimeoutError,
} from '@rcs/client';
import { sleep } from '@rcs/client/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, SESSION_ID, sessionFixture } from './helpers.js';

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback HTTP server (on `port`, or one the system picks) that counts its requests. */
async function serve(handler: RequestListener, port = 0) {
  const seen = { requests: 0 };
  const server = createServer((req, res) => {
    seen.requests++;
    req.resume();
    handler(req, res);
  });
  servers.push(server);
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

/** A port nothing listens on (taken from the system, then given back). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const rateLimited =
  (retryAfter: string): RequestListener =>
  (_req, res) => {
    res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': retryAfter });
    res.end(JSON.stringify({ status: 429, code: 'rate_limited', title: 'Too Many Requests' }));
  };

const session: RequestListener = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(sessionFixture('DONE')));
};

const client = (baseUrl: string, extra: Partial<RcsClientOptions> = {}) =>
  createRcsClient({ baseUrl, apiKey: API_KEY, ...extra });

/** Node's warnings while `work` runs (they are emitted on a later tick). */
async function warningsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const names: string[] = [];
  const onWarning = (w: Error) => names.push(w.name);
  process.on('warning', onWarning);
  try {
    await work();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', onWarning);
  }
  return names;
}

describe('a Retry-After past the cap', () => {
  it.each([
    ['an hour', '3600'],
    ['a date in year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
  ])(
    '(%s) is returned; the next request ends at its timeout, never sent, with no timer overflow',
    async (_, retryAfter) => {
      const { url, seen } = await serve(rateLimited(retryAfter));
      const rcs = client(url, { maxRetries: 0 });
      const warnings = await warningsDuring(async () => {
        const first = await rcs.sessions.get(SESSION_ID).catch((e: unknown) => e);
        expect(first).toBeInstanceOf(RateLimitError);
        expect((first as RateLimitError).retryAfterMs).toBeGreaterThan(3_000_000);
        // The shared pause holds the next request, within its own timeout.
        const next = await rcs.sessions
          .get(SESSION_ID, { timeoutMs: 200 })
          .catch((e: unknown) => e);
        expect(next).toBeInstanceOf(TimeoutError);
        expect(next).toMatchObject({ timeoutMs: 200, mayHaveBeenCreated: false });
      });
      expect(seen.requests).toBe(1);
      expect(warnings).not.toContain('TimeoutOverflowWarning');
    },
  );

  it("holds a create no longer than the client's deadline, and says nothing was sent", async () => {
    const { url, seen } = await serve(rateLimited('3600'));
    const rcs = client(url, { deadlineMs: 300, maxRetries: 5 });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(RateLimitError);
    const body = {
      transcript: 'rep@acme.com: hello there, budget?',
      meetingName: 'm',
      email: 'rep@acme.com',
    };
    const next = await rcs.sessions.create(body).catch((e: unknown) => e);
    expect(next).toBeInstanceOf(TimeoutError);
    expect(next).toMatchObject({ timeoutMs: 300, mayHaveBeenCreated: false });
    expect(seen.requests).toBe(1);
  });
});

describe('sleep', () => {
  it('waits past the longest timer without a TimeoutOverflowWarning, and stops on its signal', async () => {
    const stop = new AbortController();
    const warnings = await warningsDuring(async () => {
      const pending = sleep(2 ** 32, stop.signal);
      stop.abort(new Error('stopped'));
      await expect(pending).rejects.toThrow('stopped');
    });
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});

describe('retryForMs', () => {
  it('rides out a service that comes up within the window: one call, answered, each attempt said', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const rcs = client(`http://127.0.0.1:${port}`, {
      retryForMs: 60_000,
      logger: {
        warn: (line) => {
          lines.push(line);
          // The service starts once the client has said it is waiting for it.
          if (lines.length === 1) void serve(session, port);
        },
      },
    });
    await expect(rcs.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    expect(lines[0]).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/real-call-sessions\/\S+: refused \(ECONNREFUSED\); trying again in [\d.]+ s, for up to [\d.]+ s more$/,
    );
  });

  it('ends with the last failure when the window ends, never silently (console.warn without a logger)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const rcs = client(`http://127.0.0.1:${await freePort()}`, {
      retryForMs: 500,
      initialDelayMs: 20,
      maxDelayMs: 40,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(warn.mock.calls.length).toBeGreaterThan(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/refused \(ECONNREFUSED\); trying again/);
  });

  it("takes a gateway's 502/503/504 as the service being down: past maxRetries until it answers", async () => {
    let n = 0;
    const { url, seen } = await serve((req, res) => {
      n++;
      if (n <= 3) res.writeHead([502, 503, 504][n - 1] as number).end();
      else session(req, res);
    });
    const lines: string[] = [];
    const rcs = client(url, {
      maxRetries: 0,
      retryForMs: 60_000,
      initialDelayMs: 10,
      logger: { warn: (line) => lines.push(line) },
    });
    await expect(rcs.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    expect(seen.requests).toBe(4);
    expect(lines.map((l) => /answered (\d+)/.exec(l)?.[1])).toEqual(['502', '503', '504']);
  });

  it('a slow service is not a service that is down: a timeout is retried maxRetries times, not for the window', async () => {
    const { url, seen } = await serve(() => {});
    const rcs = client(url, { maxRetries: 1, timeoutMs: 50, retryForMs: 2_000, initialDelayMs: 1 });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(TimeoutError);
    expect(seen.requests).toBe(2);
  });

  it('nor is a 500: an answer other than 502/503/504 is retried maxRetries times, silently', async () => {
    const { url, seen } = await serve((_req, res) => res.writeHead(500).end());
    const lines: string[] = [];
    const rcs = client(url, {
      maxRetries: 1,
      retryForMs: 60_000,
      initialDelayMs: 1,
      logger: { warn: (line) => lines.push(line) },
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ServerError);
    expect(seen.requests).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^retrying GET \S+ in \d+ ms \(retry 1 of 1\)$/)]);
  });

  it('a fetch that says the request never left (no code to show) is waited for, said as such', async () => {
    const { url } = await serve(session);
    const lines: string[] = [];
    let attempts = 0;
    const rcs = client(url, {
      retryForMs: 60_000,
      initialDelayMs: 1,
      logger: { warn: (line) => lines.push(line) },
      fetch: (async (request: Request) => {
        if (++attempts === 1) throw new RequestNotSentError('the proxy did not open its tunnel');
        return fetch(request);
      }) as typeof globalThis.fetch,
    });
    await expect(rcs.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    expect(lines).toEqual([
      expect.stringMatching(
        /: not-sent \(no answer\); trying again in [\d.]+ s, for up to 60 s more$/,
      ),
    ]);
  });

  describe('on a clock the test sets (the wall clock only: waits run on real timers)', () => {
    /** A fetch that answers in turn, each answer at its time on the clock: [ms, status]. */
    function answering(...answers: [number, number, Record<string, string>?][]) {
      let n = 0;
      const fetch = (async () => {
        const [at, status, headers] = answers[Math.min(n++, answers.length - 1)]!;
        vi.setSystemTime(at);
        return status === 200
          ? new Response(JSON.stringify(sessionFixture('DONE')), {
              headers: { 'content-type': 'application/json' },
            })
          : new Response(null, { status, headers });
      }) as typeof globalThis.fetch;
      return { fetch, attempts: () => n };
    }

    it('each line says the wait and what is left of the window in seconds, rounded up to the tenth, and gives both in ms', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: 0 });
      const { fetch } = answering([0, 503, { 'retry-after': '1' }], [0, 200]);
      const logged: [string, unknown][] = [];
      const rcs = client('http://127.0.0.1:9', {
        fetch,
        adaptiveRate: false,
        retryForMs: 150,
        logger: { warn: (line, meta) => logged.push([line, meta]) },
      });
      await expect(rcs.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
      // The service asked for 1 s; the window had 150 ms left, so that is the wait.
      expect(logged).toEqual([
        [
          expect.stringMatching(/: answered 503; trying again in 0\.2 s, for up to 0\.2 s more$/),
          { waitMs: 150, retryForLeftMs: 150 },
        ],
      ]);
    });

    it('the window ends at its last instant: an answer that comes exactly then is the outcome', async () => {
      vi.useFakeTimers({ toFake: ['Date'], now: 0 });
      const { fetch, attempts } = answering([0, 503], [1_000, 503], [2_000, 503]);
      const warn = vi.fn();
      const rcs = client('http://127.0.0.1:9', {
        fetch,
        adaptiveRate: false,
        maxRetries: 0,
        retryForMs: 1_000,
        initialDelayMs: 1,
        logger: { warn },
      });
      await expect(rcs.sessions.get(SESSION_ID)).rejects.toMatchObject({ status: 503 });
      expect(attempts()).toBe(2);
      expect(warn).toHaveBeenCalledTimes(1);
    });
  });

  it('is not the default: an unreachable service fails after one retry, as in rcs', async () => {
    const rcs = client(`http://127.0.0.1:${await freePort()}`, { maxRetries: 5 });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(rcs.stats.requests).toBe(2);
    expect(warn).not.toHaveBeenCalled();
  });
});
