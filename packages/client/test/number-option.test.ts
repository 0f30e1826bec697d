import { describe, expect, it } from 'vitest';
import { RcsError } from '../src/errors.js';
import { checkNumber } from '../src/number-option.js';

describe('checkNumber: the one check of a number option', () => {
  it('returns a number in range', () => {
    expect(checkNumber('limit', 100, { min: 1, max: 100 })).toBe(100);
    expect(checkNumber('faultRate', 0.5, { min: 0, max: 1, fraction: true })).toBe(0.5);
    expect(checkNumber('dedupeWindow', Infinity, { min: 0, max: Infinity })).toBe(Infinity);
  });

  it.each([
    ['limit', 0, { min: 1, max: 100 }, 'limit must be a whole number from 1 to 100, got 0'],
    ['limit', 2.5, { min: 1, max: 100 }, 'limit must be a whole number from 1 to 100, got 2.5'],
    [
      'page',
      2 ** 53,
      { min: 1 },
      'page must be a whole number of at least 1, got 9007199254740992',
    ],
    ['page', Infinity, { min: 1 }, 'page must be a whole number of at least 1, got Infinity'],
    [
      'rate',
      Number.NaN,
      { min: 0, fraction: true },
      'rate must be a number of at least 0, got NaN',
    ],
    ['rate', '5', { min: 0, fraction: true }, 'rate must be a number of at least 0, got "5"'],
    [
      'w',
      -1,
      { min: 0, max: Infinity },
      'w must be a whole number of at least 0, or Infinity, got -1',
    ],
  ])('%s = %s is refused, naming the option and the range', (name, value, range, message) => {
    expect(() => checkNumber(name, value, range)).toThrow(new RcsError(message));
  });

  it('throws what the caller makes of the message', () => {
    expect(() => checkNumber('n', 0, { min: 1 }, (m) => new RangeError(m))).toThrow(RangeError);
  });
});
