import { ConnectionError, createRcsClient, RcsError } from '@rcs/client';
import { makeRedactor } from '@rcs/client/internal';
import { describe, expect, it, vi } from 'vitest';
import { createRatePacer } from '../src/adaptive-rate.js';
import { API_KEY, expectCutFrom, paced, SESSION_ID, sessionFixture } from './helpers.js';

// Unattended runs, the client's part: adaptive pacing under 429 (AIMD), a small retry budget for a
// wrong base URL, a cap on what one answer may cost in memory, no credentials in the base URL.

const BASE = 'https://rcs.test';

function refused(): Error {
  return new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
  });
}

describe('createRatePacer: AIMD on the request rate', () => {
  it('paces nothing until the first 429', async () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 1000; i++) {
      at(i);
      await pacer.acquire();
      pacer.onAnswer(200, undefined);
    }
    expect(pacer.rate).toBeUndefined();
  });

  it('a 429 cuts the rate below what the service accepted in the last second, once per second', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 20; i++) {
      at(2_000 + i * 10);
      pacer.onAnswer(200, undefined);
    }
    at(2_300);
    pacer.onAnswer(429, 1_000);
    const first = expectCutFrom(pacer.rate, 20);
    // The other requests already in flight come back 429 too: they count once.
    at(2_310);
    pacer.onAnswer(429, 1_000);
    expect(pacer.rate).toBe(first);
    // A second later, with 12 good answers in the last second: cut from those.
    for (let i = 0; i < 12; i++) {
      at(2_400 + i * 50);
      pacer.onAnswer(200, undefined);
    }
    at(3_350);
    pacer.onAnswer(429, 1_000);
    const before = expectCutFrom(pacer.rate, 12);
    // None in the last second (everything waited): the current rate is what is cut.
    at(5_000);
    pacer.onAnswer(429, 1_000);
    expectCutFrom(pacer.rate, before);
  });

  it('counts good answers by send time, and measures again once the pause let in-flight answers in', async () => {
    const { pacer, at } = paced();
    // 12 requests sent in the second before the refused one came back at once; 8 more sent in
    // that second are slow pages, still in flight when the 429 arrives.
    for (let i = 0; i < 12; i++) {
      at(1_100 + i * 10);
      pacer.onAnswer(200, undefined, 1_000 + i * 40);
    }
    at(1_900);
    pacer.onAnswer(429, 500, 1_800);
    const first = expectCutFrom(pacer.rate, 12);
    for (let i = 0; i < 8; i++) {
      at(2_000 + i * 10);
      pacer.onAnswer(200, undefined, 1_500 + i * 30);
    }
    // Still inside the pause: the first measure stands (the slow growth aside).
    expect(pacer.rate).toBeLessThan(first + 0.1);
    // The pause is over: the second measure (20 accepted in that second) replaces it, once.
    at(2_400);
    await pacer.acquire();
    const second = expectCutFrom(pacer.rate, 20);
    expect(second).toBeGreaterThan(first + 1);
    // Measured once: a later answer for that window changes nothing but the slow growth.
    at(2_500);
    pacer.onAnswer(200, undefined, 1_700);
    expect(pacer.rate).toBeLessThan(second + 0.1);
  });

  it('the second measure never raises the rate above where it was before the cut', async () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 10; i++) {
      at(100 + i);
      pacer.onAnswer(200, undefined, 50 + i);
    }
    at(200);
    pacer.onAnswer(429, 100, 150);
    expectCutFrom(pacer.rate, 10);
    // A second cut later, measuring 5 in its window...
    for (let i = 0; i < 5; i++) {
      at(2_100 + i);
      pacer.onAnswer(200, undefined, 1_500 + i);
    }
    const ceiling = pacer.rate as number;
    at(2_300);
    pacer.onAnswer(429, 100, 2_000);
    expectCutFrom(pacer.rate, 5);
    // ...then 40 late answers for that window: raised, but not past the rate before the cut.
    for (let i = 0; i < 40; i++) {
      at(2_310 + i);
      pacer.onAnswer(200, undefined, 1_600 + i);
    }
    at(2_500);
    await pacer.acquire();
    expect(pacer.rate).toBeGreaterThan(9);
    expect(pacer.rate).toBeLessThanOrEqual(ceiling + 0.01);
  });

  it('a 429 before any good answer only pauses: there is no rate to measure yet', () => {
    const { pacer, at } = paced();
    at(100);
    pacer.onAnswer(429, 1_000);
    expect(pacer.rate).toBeUndefined();
  });

  it('grows back by 0.05 request/s per second of good answers', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 10; i++) {
      at(i * 50);
      pacer.onAnswer(200, undefined);
    }
    at(600);
    pacer.onAnswer(429, undefined);
    const cut = expectCutFrom(pacer.rate, 10);
    at(10_600);
    pacer.onAnswer(200, undefined);
    expect(pacer.rate).toBeCloseTo(cut + 0.5, 5);
  });

  it('never goes below half a request per second', () => {
    const { pacer, at } = paced();
    at(0);
    pacer.onAnswer(200, undefined);
    for (let t = 10; t < 100_000; t += 1_000) {
      at(t);
      pacer.onAnswer(429, undefined);
    }
    expect(pacer.rate).toBe(0.5);
  });

  it('waits out Retry-After, then spaces requests evenly at the rate', async () => {
    vi.useFakeTimers();
    try {
      const pacer = createRatePacer();
      for (let i = 0; i < 10; i++) pacer.onAnswer(200, undefined);
      pacer.onAnswer(429, 300);
      expectCutFrom(pacer.rate, 10);
      const started = Date.now();
      const times: number[] = [];
      const all = Promise.all(
        [0, 1, 2].map(async () => {
          await pacer.acquire();
          times.push(Date.now() - started);
        }),
      );
      await vi.runAllTimersAsync();
      await all;
      times.sort((a, b) => a - b);
      expect(times[0]).toBeGreaterThanOrEqual(300);
      // Under 10 requests/s: at least 100 ms apart.
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(100);
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(100);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a wait is cut short by the caller’s signal', async () => {
    const pacer = createRatePacer();
    pacer.onAnswer(200, undefined);
    pacer.onAnswer(429, 60_000);
    const ac = new AbortController();
    const waiting = pacer.acquire(ac.signal);
    ac.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});

describe('the client under a rate limit', () => {
  it('after a 429 the next requests are paced, and the 429 is retried after its Retry-After', async () => {
    const sent: number[] = [];
    let calls = 0;
    const fetch = (async () => {
      sent.push(Date.now());
      calls++;
      if (calls === 3) {
        return new Response(JSON.stringify({ error: { code: 'rate_limited' } }), {
          status: 429,
          headers: { 'retry-after': '0' },
        });
      }
      return Response.json(sessionFixture('DONE'));
    }) as typeof globalThis.fetch;
    const rcs = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, fetch });
    for (let i = 0; i < 6; i++) await rcs.sessions.get(SESSION_ID);
    expect(calls).toBe(7);
    // Before the 429: back to back. After it: spaced by the service's accepted rate (≈ 2/s).
    expect(sent[1]! - sent[0]!).toBeLessThan(100);
    expect(sent[6]! - sent[5]!).toBeGreaterThanOrEqual(300);
  });

  it('adaptiveRate: false leaves every request unpaced', async () => {
    let calls = 0;
    const fetch = (async () => {
      calls++;
      if (calls === 1) return new Response('{}', { status: 429, headers: { 'retry-after': '0' } });
      return Response.json(sessionFixture('DONE'));
    }) as typeof globalThis.fetch;
    const rcs = createRcsClient({ baseUrl: BASE, apiKey: API_KEY, fetch, adaptiveRate: false });
    const started = Date.now();
    for (let i = 0; i < 5; i++) await rcs.sessions.get(SESSION_ID);
    expect(Date.now() - started).toBeLessThan(250);
  });
});

describe('unreachableRetries: a wrong base URL fails fast', () => {
  it('a refused connection before any answer is retried only that often', async () => {
    let calls = 0;
    const fetch = (async () => {
      calls++;
      throw refused();
    }) as typeof globalThis.fetch;
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch,
      maxRetries: 8,
      unreachableRetries: 1,
      initialDelayMs: 1,
      maxDelayMs: 1,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(2);
  });

  it('once the service answered, a refused connection is an outage: the full retry budget', async () => {
    let calls = 0;
    const fetch = (async () => {
      calls++;
      if (calls === 1) return Response.json(sessionFixture('DONE'));
      throw refused();
    }) as typeof globalThis.fetch;
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch,
      maxRetries: 4,
      unreachableRetries: 0,
      initialDelayMs: 1,
      maxDelayMs: 1,
    });
    await rcs.sessions.get(SESSION_ID);
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(1 + 5);
  });

  it('without the option, one retry too: the default rcs shares (a wrong base URL fails fast)', async () => {
    let calls = 0;
    const fetch = (async () => {
      calls++;
      throw refused();
    }) as typeof globalThis.fetch;
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch,
      maxRetries: 3,
      initialDelayMs: 1,
      maxDelayMs: 1,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(2);
  });
});

describe('maxResponseBytes: one answer cannot exhaust memory', () => {
  const big = (bytes: number, declare: boolean) =>
    (async () => {
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      let left = bytes;
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          if (left <= 0) return controller.close();
          const n = Math.min(left, chunk.byteLength);
          left -= n;
          controller.enqueue(chunk.subarray(0, n));
        },
      });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (declare) headers['content-length'] = String(bytes);
      const res = new Response(body, { status: 200, headers });
      Object.defineProperty(res, 'pulled', { get: () => pulled });
      return res;
    }) as typeof globalThis.fetch;

  it('a body over the cap fails the request, naming the cap, without reading it all', async () => {
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: big(5 * 1024 * 1024, false),
      maxResponseBytes: 1024 * 1024,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toThrow(
      /larger than 1 MiB; it was not read \(maxResponseBytes\)/,
    );
  });

  it('a declared Content-Length over the cap is refused before reading', async () => {
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: big(2 * 1024 * 1024, true),
      maxResponseBytes: 1024 * 1024,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(RcsError);
  });

  it('a body of exactly the cap is read', async () => {
    const body = JSON.stringify(sessionFixture('DONE'));
    const size = Buffer.byteLength(body);
    const rcs = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: (async () => Response.json(sessionFixture('DONE'))) as typeof globalThis.fetch,
      maxResponseBytes: size,
    });
    await expect(rcs.sessions.get(SESSION_ID)).resolves.toMatchObject({ id: SESSION_ID });
    const tight = createRcsClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      fetch: (async () => Response.json(sessionFixture('DONE'))) as typeof globalThis.fetch,
      maxResponseBytes: size - 1,
    });
    await expect(tight.sessions.get(SESSION_ID)).rejects.toThrow(/larger than/);
  });

  it('the default is 32 MiB; the option must be a whole number of at least 1', () => {
    expect(() => createRcsClient({ baseUrl: BASE, maxResponseBytes: 0 })).toThrow(
      /maxResponseBytes must be a whole number of at least 1/,
    );
  });
});

describe('credentials in the base URL', () => {
  it('are refused at construction, and the message does not carry them', () => {
    const attempt = () =>
      createRcsClient({ baseUrl: 'https://user:sk_secret_in_url@api.example.com', apiKey: 'k' });
    expect(attempt).toThrow(/must not contain credentials/);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain('sk_secret_in_url');
      expect((error as Error).message).toContain('https://api.example.com');
    }
  });
});

describe('makeRedactor', () => {
  it('removes each credential and the user:password@ of any URL, keeping the rest', () => {
    const redact = makeRedactor(['sk_live_1234', undefined, 'ab']);
    expect(
      redact(
        'GET https://u:pw@api.example/x?k=sk_live_1234 via http://proxyuser:s3cret@proxy:3128',
      ),
    ).toBe('GET https://[REDACTED]@api.example/x?k=[REDACTED] via http://[REDACTED]@proxy:3128');
    // Too short to be a credential: left alone.
    expect(redact('ab cd')).toBe('ab cd');
    expect(makeRedactor([])('http://a:b@h/ and mailto:x@y')).toBe(
      'http://[REDACTED]@h/ and mailto:x@y',
    );
  });
});
