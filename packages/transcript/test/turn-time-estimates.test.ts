import { describe, expect, it } from 'vitest';
import { codes, fireflies, times } from './support/imports.js';

// Turns whose export gives no start or end time get one estimated from their words, so that the
// SRT has timing and the KPIs (D21) can be computed; the user is told they are approximate.

describe('importTranscript time estimates (150 words per minute, at least 1 s)', () => {
  it('caps an estimated end at the next start when that is later, not when it is equal or earlier', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'w').join(' ');
    const r = fireflies([
      { start_time: 1, text: words(10) }, // 4 s, capped at 3 s
      { start_time: 3, text: words(10) }, // 4 s: next starts at the same time, not capped
      { start_time: 3, text: words(10) }, // next starts earlier: not capped
      { start_time: 2, text: words(1) }, // 1 s at least
    ]);
    expect(times(r)).toEqual([
      [1000, 3000, null],
      [3000, 7000, null],
      [3000, 7000, null],
      [2000, 3000, null],
    ]);
  });

  it('estimates a missing start after the latest end, and says so even when the end is known', () => {
    const r = fireflies([
      { start_time: 0, end_time: 5, text: 'a' },
      { end_time: 9, text: 'b' },
    ]);
    expect(times(r)).toEqual([
      [0, 5000, null],
      [5000, 9000, null],
    ]);
    expect(codes(r)).toEqual(['timing_estimated']);
    expect(codes(fireflies([{ start_time: 0, end_time: 5, text: 'a' }]))).toEqual([]);
  });
});
