import { createRcsClient } from '@rcs/client';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_KEY, BASE, SESSION_ID, sessionFixture } from './helpers.js';

// The retry waits a user can rely on (README "Retries"): full-jitter exponential backoff. Each
// wait is random, under a ceiling that doubles from initialDelayMs with every retry and never
// passes maxDelayMs. Observed as the time between the requests the service receives.

afterEach(() => {
  vi.useRealTimers();
});

/** The pauses between the requests of one GET that fails `failures` times with 503. */
async function waitsOf(failures: number, initialDelayMs: number, maxDelayMs: number) {
  const sent: number[] = [];
  const fetch = (async () => {
    sent.push(Date.now());
    if (sent.length <= failures) return new Response('{}', { status: 503 });
    return Response.json(sessionFixture('DONE'));
  }) as typeof globalThis.fetch;
  const rcs = createRcsClient({
    baseUrl: BASE,
    apiKey: API_KEY,
    fetch,
    maxRetries: failures,
    initialDelayMs,
    maxDelayMs,
    adaptiveRate: false,
  });
  const pending = rcs.sessions.get(SESSION_ID);
  await vi.advanceTimersByTimeAsync(maxDelayMs * (failures + 1));
  await pending;
  return sent.slice(1).map((t, i) => t - sent[i]!);
}

describe('retry waits (full-jitter exponential backoff)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });

  it('stay under a ceiling that doubles with each retry and never passes maxDelayMs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        async (failures, initialDelayMs, extra) => {
          const maxDelayMs = initialDelayMs + extra;
          const waits = await waitsOf(failures, initialDelayMs, maxDelayMs);
          expect(waits).toHaveLength(failures);
          waits.forEach((wait, retry) => {
            expect(wait).toBeGreaterThanOrEqual(0);
            expect(wait).toBeLessThanOrEqual(Math.min(maxDelayMs, initialDelayMs * 2 ** retry));
          });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('grow: the later retries wait longer on average, and waits are spread, not all alike', async () => {
    const runs = 150;
    const first: number[] = [];
    const fourth: number[] = [];
    for (let i = 0; i < runs; i++) {
      const waits = await waitsOf(4, 100, 100_000);
      first.push(waits[0]!);
      fourth.push(waits[3]!);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Ceilings 100 and 800 ms: means near 50 and 400. Far apart for any random draw of 150 runs.
    expect(mean(fourth)).toBeGreaterThan(2 * mean(first));
    expect(Math.max(...fourth)).toBeGreaterThan(100);
    expect(new Set(first).size).toBeGreaterThan(10);
  });
});
