import { formatSrtTime, parseTimingLine } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// The timing line reader (D11) at each edge of the shapes it tolerates, and the flags that tell
// the parser what to warn about; formatSrtTime's padding and clamping.

// The flag bits (timing.ts): which departure from D11 a line shows.
const NO_HOURS = 1;
const SHORT_FIELD = 2;
const FRACTION = 4;
const NEGATIVE = 8;
const OUT_OF_RANGE = 16;
const SETTINGS = 32;
const ARROW_SPACING = 64;

const read = (line: string) => {
  const t = parseTimingLine(line);
  return t === null ? null : [t.startMs, t.endMs, t.flags];
};

describe('parseTimingLine', () => {
  it('reads the strict shape with no flag, hours of any width, "," or "."', () => {
    expect(read('00:00:01,000 --> 00:00:02,500')).toEqual([1000, 2500, 0]);
    expect(read('1:02:03.004 --> 123:00:00,000')).toEqual([3_723_004, 442_800_000, 0]);
    expect(read(' \t00:00:01,000 --> 00:00:02,000 \t')).toEqual([1000, 2000, 0]);
  });

  it('flags a missing hours field; a leading field of 3 digits or a 1-digit second is short', () => {
    expect(read('01:02,000 --> 01:03,000')).toEqual([62_000, 63_000, NO_HOURS]);
    expect(read('1:02,000 --> 1:03,000')).toEqual([62_000, 63_000, NO_HOURS]);
    // (100 minutes are also 60 or more.)
    expect(read('100:02,000 --> 01:03,000')).toEqual([
      6_002_000,
      63_000,
      NO_HOURS | SHORT_FIELD | OUT_OF_RANGE,
    ]);
    expect(read('01:2,000 --> 01:03,000')).toEqual([62_000, 63_000, NO_HOURS | SHORT_FIELD]);
  });

  it('flags minutes or seconds that are not two digits when hours are there', () => {
    expect(read('00:1:00,000 --> 00:01:00,000')).toEqual([60_000, 60_000, SHORT_FIELD]);
    expect(read('00:01:0,000 --> 00:01:00,000')).toEqual([60_000, 60_000, SHORT_FIELD]);
    expect(read('00:001:00,000 --> 00:01:00,000')).toEqual([60_000, 60_000, SHORT_FIELD]);
  });

  it('reads milliseconds as a decimal fraction, cut after three digits', () => {
    expect(read('00:00:01,5 --> 00:00:01,04')).toEqual([1500, 1040, FRACTION]);
    expect(read('00:00:01,1239 --> 00:00:02,000')).toEqual([1123, 2000, FRACTION]);
    expect(read('00:00:01 --> 00:00:02,000')).toEqual([1000, 2000, FRACTION]);
    expect(read('00:00:01, --> 00:00:02,000')).toBeNull();
  });

  it('flags 60 or more minutes or seconds, and adds them up as written', () => {
    expect(read('00:00:59,000 --> 00:59:00,000')).toEqual([59_000, 3_540_000, 0]);
    expect(read('00:00:60,000 --> 00:00:61,000')).toEqual([60_000, 61_000, OUT_OF_RANGE]);
    expect(read('00:00:59,000 --> 00:00:60,000')).toEqual([59_000, 60_000, OUT_OF_RANGE]);
    expect(read('00:60:00,000 --> 01:00:00,000')).toEqual([3_600_000, 3_600_000, OUT_OF_RANGE]);
  });

  it('keeps a negative sign anywhere in a timestamp as a negative timestamp', () => {
    expect(read('-00:00:01,000 --> 00:00:02,000')).toEqual([-1000, 2000, NEGATIVE]);
    expect(read('00:00:-05,000 --> 00:00:02,000')).toEqual([-5000, 2000, NEGATIVE]);
  });

  it('flags missing spaces around the arrow, on either side', () => {
    expect(read('00:00:01,000-->00:00:02,000')).toEqual([1000, 2000, ARROW_SPACING]);
    expect(read('00:00:01,000 -->00:00:02,000')).toEqual([1000, 2000, ARROW_SPACING]);
    expect(read('00:00:01,000--> 00:00:02,000')).toEqual([1000, 2000, ARROW_SPACING]);
    expect(read('00:00:01,000   -->   00:00:02,000')).toEqual([1000, 2000, 0]);
    expect(read('00:00:01,000 -> 00:00:02,000')).toBeNull();
    expect(read('00:00:01,000 --- 00:00:02,000')).toBeNull();
    expect(read('00:00:01,000 -- 00:00:02,000')).toBeNull();
  });

  it('ignores settings after whitespace, refuses text glued to the end time', () => {
    expect(read('00:00:01,000 --> 00:00:02,000 X1:40 Y1:20')).toEqual([1000, 2000, SETTINGS]);
    expect(read('00:00:01,000 --> 00:00:02,000\talign:start')).toEqual([1000, 2000, SETTINGS]);
    expect(read('00:00:01,000 --> 00:00:02,000x')).toBeNull();
  });

  it('needs two or three fields of 1–12 digits', () => {
    expect(read('5,000 --> 6,000')).toBeNull();
    expect(read('00:00:00:01,000 --> 00:00:02,000')).toBeNull();
    expect(read('00:00:999999999999,000 --> 00:00:02,000')?.[0]).toBe(999_999_999_999_000);
    expect(read('00:00:9999999999999,000 --> 00:00:02,000')).toBeNull();
    expect(read('00::01,000 --> 00:00:02,000')).toBeNull();
    expect(read('00:00:01,000 --> 00')).toBeNull();
    expect(read('00:00:01,000 --> 00:00')).toEqual([1000, 0, NO_HOURS | FRACTION]);
    expect(read('a0:00:01,000 --> 00:00:02,000')).toBeNull();
    expect(read('')).toBeNull();
  });
});

describe('formatSrtTime', () => {
  it('pads every field', () => {
    expect(formatSrtTime(0)).toBe('00:00:00,000');
    expect(formatSrtTime(9)).toBe('00:00:00,009');
    expect(formatSrtTime(10)).toBe('00:00:00,010');
    expect(formatSrtTime(99)).toBe('00:00:00,099');
    expect(formatSrtTime(100)).toBe('00:00:00,100');
    expect(formatSrtTime(9_999)).toBe('00:00:09,999');
    expect(formatSrtTime(10_000)).toBe('00:00:10,000');
    expect(formatSrtTime(599_000)).toBe('00:09:59,000');
    expect(formatSrtTime(600_000)).toBe('00:10:00,000');
    expect(formatSrtTime(-1500)).toBe('00:00:00,000');
    expect(formatSrtTime(3_723_004)).toBe('01:02:03,004');
    expect(formatSrtTime(35_999_999)).toBe('09:59:59,999');
    expect(formatSrtTime(36_000_000)).toBe('10:00:00,000');
    expect(formatSrtTime(360_000_000)).toBe('100:00:00,000');
  });

  it('drops fractions of a millisecond, and writes nothing it cannot as 0', () => {
    expect(formatSrtTime(1.9)).toBe('00:00:00,001');
    expect(formatSrtTime(-1)).toBe('00:00:00,000');
    expect(formatSrtTime(null)).toBe('00:00:00,000');
    expect(formatSrtTime(Number.NaN)).toBe('00:00:00,000');
    expect(formatSrtTime(Number.POSITIVE_INFINITY)).toBe('00:00:00,000');
  });
});
