import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/iso-time.js';

const MAX_MS = Date.UTC(10_000, 0, 1);

describe('isoTime', () => {
  it('is toISOString for every integer time of years 1970-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MS - 1 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('is toISOString at the edges of days, years and its own range', () => {
    const edges = [
      0,
      1,
      999,
      1000,
      59_999,
      3_599_999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2025, 0, 6, 8, 0, 0),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves other values to Date: before 1970, year 10000 on, fractions', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -8.64e15, max: -1 }),
          fc.integer({ min: MAX_MS, max: 8.64e15 }),
          fc.double({ min: 0, max: MAX_MS, noNaN: true }),
        ),
        (ms) => {
          expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        },
      ),
    );
  });

  it('throws as Date does for a time that is not one', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('stays right after its day cache is cleared (times spread over decades)', () => {
    const DAY = 86_400_000;
    for (let day = 0; day < 5000; day++) {
      const ms = day * 7 * DAY + day;
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
