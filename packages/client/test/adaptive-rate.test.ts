import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRatePacer } from '../src/adaptive-rate.js';
import { paced } from './helpers.js';

// The pacer's edges (issue 11, issue 16): what the measure counts, the once-per-second rule of a
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
    expect(pacer.rate).toBeCloseTo(9.5, 5);
    for (let i = 0; i < 6; i++) {
      at(500 + i);
      pacer.onAnswer(200, undefined);
    }
    at(1_100);
    pacer.onAnswer(429, undefined);
    expect(pacer.rate).toBeCloseTo(0.95 * 6, 5);
  });

  it('a clock that steps back does not lower the rate', () => {
    const { pacer, at } = paced();
    for (let i = 0; i < 10; i++) {
      at(500 + i);
      pacer.onAnswer(200, undefined);
    }
    at(1_000);
    pacer.onAnswer(429, undefined);
    const cut = pacer.rate;
    expect(cut).toBeCloseTo(9.5, 5);
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
    expect(pacer.rate).toBeCloseTo(0.95 * 5, 5);
  });

  it('the second it measures excludes its first instant: one sent exactly 1 s before does not count', () => {
    const { pacer, at } = paced();
    at(1_050);
    for (let i = 0; i < 5; i++) pacer.onAnswer(200, undefined, 0);
    for (let i = 0; i < 4; i++) pacer.onAnswer(200, undefined, 500);
    at(1_100);
    pacer.onAnswer(429, undefined, 1_000);
    expect(pacer.rate).toBeCloseTo(0.95 * 4, 5);
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
    expect(pacer.rate).toBeCloseTo(0.95 * 12, 5);
    for (let i = 0; i < 8; i++) {
      at(2_000 + i);
      pacer.onAnswer(200, undefined, 1_500 + i * 30);
    }
    at(2_500);
    pacer.onAnswer(200, undefined, 2_450);
    expect(pacer.rate).toBeCloseTo(0.95 * 20, 1);
  });
});

describe('createRatePacer: waiting (on the timer clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A pacer cut to 9.5 requests/s at time 0, with no pause. */
  function cutTo9_5() {
    vi.useFakeTimers({ now: 0 });
    const pacer = createRatePacer();
    for (let i = 0; i < 10; i++) pacer.onAnswer(200, undefined);
    pacer.onAnswer(429, undefined);
    expect(pacer.rate).toBeCloseTo(9.5, 5);
    return pacer;
  }

  /** Starts acquire() and records when it let the request go. */
  function track(p: Promise<number>) {
    const r: { at?: number } = {};
    void p.then((t) => {
      r.at = t;
    });
    return r;
  }

  it('spaces requests 1000 / rate ms apart (about 105 ms at 9.5 requests/s)', async () => {
    const pacer = cutTo9_5();
    const a = track(pacer.acquire());
    const b = track(pacer.acquire());
    const c = track(pacer.acquire());
    await vi.advanceTimersByTimeAsync(100);
    expect([a.at, b.at, c.at]).toEqual([0, undefined, undefined]);
    await vi.advanceTimersByTimeAsync(10);
    expect(b.at).toBeGreaterThanOrEqual(105);
    expect(c.at).toBeUndefined();
    await vi.advanceTimersByTimeAsync(110);
    expect(c.at).toBeGreaterThanOrEqual(210);
  });

  it('a 429 while a request waits for its slot holds it until the new pause is over', async () => {
    const pacer = cutTo9_5();
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
    expect(pacer.rate).toBeCloseTo(0.95 * 12, 5);
    const waiting = pacer.acquire();
    await vi.advanceTimersByTimeAsync(100);
    for (let i = 0; i < 8; i++) pacer.onAnswer(200, undefined, 1_500 + i * 30);
    await vi.advanceTimersByTimeAsync(400);
    expect(await waiting).toBe(2_400);
    expect(pacer.rate).toBeCloseTo(0.95 * 20, 1);
  });
});
