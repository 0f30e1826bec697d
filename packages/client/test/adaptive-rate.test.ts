import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRatePacer } from '../src/adaptive-rate.js';
import { expectCutFrom, paced } from './helpers.js';

// The pacer's edges: what the measure counts, the once-per-second rule of a
// cut at exactly one second, a wall clock that steps back, the spacing of requests, a pause that
// grows while a request waits, and when the second measure takes effect.

describe('createRatePacer at its edges', () => {
  it('a 429 exactly one second after the last cut cuts again', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 10; i++) {
      at(i);
      pacer.onAnswer(200, undefined);
    }
    at(100);
    pacer.onAnswer(429, undefined);
    expectCutFrom(pacer.rate, 10);
    for (let i = 0; i < 6; i++) {
      at(500 + i);
      pacer.onAnswer(200, undefined);
    }
    at(1_100);
    pacer.onAnswer(429, undefined);
    expectCutFrom(pacer.rate, 6);
  });

  it('a clock that steps back does not lower the rate', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 10; i++) {
      at(500 + i);
      pacer.onAnswer(200, undefined);
    }
    at(1_000);
    pacer.onAnswer(429, undefined);
    const cut = expectCutFrom(pacer.rate, 10);
    at(500);
    pacer.onAnswer(200, undefined);
    expect(pacer.rate).toBe(cut);
  });

  it('counts only the requests sent up to the refused one, not those sent after it', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 5; i++) {
      at(1_050 + i);
      pacer.onAnswer(200, undefined, 500 + i * 100);
    }
    for (let i = 0; i < 10; i++) {
      at(1_060 + i);
      pacer.onAnswer(200, undefined, 1_001 + i);
    }
    at(1_100);
    pacer.onAnswer(429, undefined, 1_000);
    expectCutFrom(pacer.rate, 5);
  });

  it('the second it measures excludes its first instant: one sent exactly 1 s before does not count', () => {
    const { pacer, at } = paced();
    at(1_050);
    for (let i = 0; i < 5; i++) pacer.onAnswer(200, undefined, 0);
    for (let i = 0; i < 4; i++) pacer.onAnswer(200, undefined, 500);
    at(1_100);
    pacer.onAnswer(429, undefined, 1_000);
    expectCutFrom(pacer.rate, 4);
  });

  it('a 429 for a request sent four seconds ago or more measures nothing: those answers are forgotten', () => {
    const { pacer, at } = paced();
    at(1_000);
    for (let i = 0; i < 10; i++) pacer.onAnswer(200, undefined, 1_000);
    at(5_000);
    pacer.onAnswer(429, undefined, 1_000);
    expect(pacer.rate).toBeUndefined();
  });

  it('the second measure also comes with the first answer after the pause', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 12; i++) {
      at(1_100 + i);
      pacer.onAnswer(200, undefined, 1_000 + i * 40);
    }
    at(1_900);
    pacer.onAnswer(429, 500, 1_800);
    const first = expectCutFrom(pacer.rate, 12);
    for (let i = 0; i < 8; i++) {
      at(2_000 + i);
      pacer.onAnswer(200, undefined, 1_500 + i * 30);
    }
    at(2_500);
    pacer.onAnswer(200, undefined, 2_450);
    // 20 accepted in the measured second: the rate now comes from those, above the first cut
    // and above the 12 it was cut from (a second of growth adds far less than one request/s).
    expect(expectCutFrom(pacer.rate, 20)).toBeGreaterThan(12);
    expect(first).toBeLessThan(12);
  });
});

describe('createRatePacer: waiting (on the timer clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a request let go at once was held 0 ms, however far the clock moves between readings', async () => {
    // A loaded machine may not run the process for milliseconds between two statements.
    let clock = 0;
    const pacer = createRatePacer(() => (clock += 7));
    for (let i = 0; i < 5; i++) expect((await pacer.acquire()).heldMs).toBe(0);
    // A real hold is the pacer's wait: the pause a 429 asked for.
    vi.useFakeTimers({ now: 10_000 });
    const paused = createRatePacer();
    paused.onAnswer(429, 2_000);
    const waiting = paused.acquire();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await waiting).toEqual({ sentAt: 12_000, heldMs: 2_000 });
  });

  /** A pacer cut at time 0 from 10 accepted requests/s, with no pause. */
  function cutFrom10() {
    vi.useFakeTimers({ now: 0 });
    const pacer = createRatePacer();
    for (let i = 0; i < 10; i++) pacer.onAnswer(200, undefined);
    pacer.onAnswer(429, undefined);
    expectCutFrom(pacer.rate, 10);
    return pacer;
  }

  /** Starts acquire() and records when it let the request go. */
  function track(p: Promise<{ sentAt: number }>) {
    const r: { at?: number } = {};
    void p.then((t) => {
      r.at = t.sentAt;
    });
    return r;
  }

  it('spaces requests 1000 / rate ms apart', async () => {
    const pacer = cutFrom10();
    const gap = Math.floor(1000 / (pacer.rate as number)); // whole milliseconds
    const a = track(pacer.acquire());
    const b = track(pacer.acquire());
    const c = track(pacer.acquire());
    await vi.advanceTimersByTimeAsync(gap - 5);
    expect([a.at, b.at, c.at]).toEqual([0, undefined, undefined]);
    await vi.advanceTimersByTimeAsync(10);
    expect(b.at).toBeGreaterThanOrEqual(gap);
    expect(c.at).toBeUndefined();
    await vi.advanceTimersByTimeAsync(gap);
    expect(c.at).toBeGreaterThanOrEqual(2 * gap);
  });

  it('a 429 while a request waits for its slot holds it until the new pause is over', async () => {
    const pacer = cutFrom10();
    await pacer.acquire();
    const b = track(pacer.acquire());
    await vi.advanceTimersByTimeAsync(50);
    pacer.onAnswer(429, 1_000);
    await vi.advanceTimersByTimeAsync(950);
    expect(b.at).toBeUndefined();
    await vi.advanceTimersByTimeAsync(60);
    expect(b.at).toBe(1_050);
  });

  it('a request that waited out the pause sees the second measure at once', async () => {
    vi.useFakeTimers({ now: 1_900 });
    const pacer = createRatePacer();
    for (let i = 0; i < 12; i++) pacer.onAnswer(200, undefined, 1_000 + i * 40);
    pacer.onAnswer(429, 500, 1_800);
    const first = expectCutFrom(pacer.rate, 12);
    const waiting = pacer.acquire();
    await vi.advanceTimersByTimeAsync(100);
    for (let i = 0; i < 8; i++) pacer.onAnswer(200, undefined, 1_500 + i * 30);
    await vi.advanceTimersByTimeAsync(400);
    expect((await waiting).sentAt).toBe(2_400);
    expect(expectCutFrom(pacer.rate, 20)).toBeGreaterThan(first);
  });
});
