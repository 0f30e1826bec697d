/**
 * D27: a value the schema's type cannot hold is never coerced or dropped. The export fails with
 * a ParquetValueError that names the record, the property's path and the value, shortened when
 * long; date-times must be RFC 3339 (`format: date-time`), offset included.
 */
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import { ParquetValueError } from '../../src/formats/parquet-shred.js';
import type { RecordShape } from '../../src/shape.js';
import { readWithHyparquetBytes } from '../support/parquet-reader.js';

/** One column of each scalar type, and an object. */
const TABLE: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    { name: 'n', shape: { type: 'int64', nullable: true } },
    { name: 'x', shape: { type: 'double', nullable: true } },
    { name: 'on', shape: { type: 'boolean', nullable: true } },
    { name: 'at', shape: { type: 'timestamp', nullable: true } },
    {
      name: 'tags',
      shape: { type: 'list', nullable: true, element: { type: 'string', nullable: true } },
    },
    {
      name: 'meta',
      shape: {
        type: 'struct',
        nullable: true,
        fields: [{ name: 'a', shape: { type: 'string', nullable: true } }],
      },
    },
  ],
};

function refusal(row: Partial<ApiRecord>): string {
  const encoder = parquetEncoder(TABLE, recordRows, 'test');
  try {
    encoder.encode([{ id: 'r1', ...row }]);
  } catch (error) {
    expect(error).toBeInstanceOf(ParquetValueError);
    // What a caller without the class (another copy of the package) tells it by.
    expect((error as Error).name).toBe('ParquetValueError');
    return (error as Error).message;
  }
  throw new Error('the row was written');
}

async function written(rows: ApiRecord[]): Promise<Record<string, unknown>[]> {
  const encoder = parquetEncoder(TABLE, recordRows, 'test');
  const bytes = Buffer.concat([encoder.preamble, encoder.encode(rows), encoder.end!()]);
  return readWithHyparquetBytes(bytes);
}

describe('a value of the wrong type is refused, naming where and what', () => {
  it.each([
    [{ n: '5' }, 'record "r1": n must be an integer (INT64), got "5"'],
    [{ n: 2 ** 53 }, 'record "r1": n must be an integer (INT64), got 9007199254740992'],
    [{ x: '1.5' }, 'record "r1": x must be a number (DOUBLE), got "1.5"'],
    [{ on: 1 }, 'record "r1": on must be a boolean (BOOLEAN), got 1'],
    [{ meta: 'a' }, 'record "r1": meta must be an object (STRUCT), got "a"'],
    [{ meta: ['a'] }, 'record "r1": meta must be an object (STRUCT), got ["a"]'],
    [{ meta: { a: false } }, 'record "r1": meta.a must be a string (UTF8), got false'],
    [{ at: 1767261600000 }, 'record "r1": at must be a date-time (TIMESTAMP), got 1767261600000'],
    [
      { at: '2026-01-01T10:00:00.0001Z' },
      'record "r1": at must be a date-time (TIMESTAMP), got "2026-01-01T10:00:00.0001Z": the column holds milliseconds and this value is finer; the jsonl or csv format keeps it as text',
    ],
    [
      { at: '2026-01-01T10:00:00.1239+02:00' },
      'record "r1": at must be a date-time (TIMESTAMP), got "2026-01-01T10:00:00.1239+02:00": the column holds milliseconds and this value is finer; the jsonl or csv format keeps it as text',
    ],
    [
      { at: ['2026-01-01T10:00:00Z'] },
      'record "r1": at must be a date-time (TIMESTAMP), got ["2026-01-01T10:00:00Z"]',
    ],
  ])('%j', (row, message) => {
    expect(refusal(row)).toBe(message);
  });

  it('a long value is shown by its first 57 characters', () => {
    const long = 'y'.repeat(100);
    expect(refusal({ on: long })).toBe(
      `record "r1": on must be a boolean (BOOLEAN), got "${'y'.repeat(56)}...`,
    );
    // 60 characters, quotes included, are shown whole.
    const sixty = 'z'.repeat(58);
    expect(refusal({ on: sixty })).toBe(
      `record "r1": on must be a boolean (BOOLEAN), got "${sixty}"`,
    );
  });
});

describe("a library caller's own error passes through unchanged", () => {
  const boom = () => {
    throw new RangeError('boom');
  };
  it.each([
    ['in an object', { meta: Object.defineProperty({}, 'a', { get: boom, enumerable: true }) }],
    ['in a list', { tags: Object.defineProperty(['x', 'y'], 1, { get: boom }) }],
  ])('%s', (_, row) => {
    const encoder = parquetEncoder(TABLE, recordRows, 'test');
    expect(() => encoder.encode([{ id: 'r1', ...row }])).toThrow(new RangeError('boom'));
    // The leaves may hold part of that row: the encoder writes nothing more.
    expect(() => encoder.end!()).toThrow(new RangeError('boom'));
  });
});

describe('date-times are RFC 3339, with their offset', () => {
  it.each([
    '2026-01-01T10:00:00', // no offset: a local time, which D27 cannot place
    '2026-01-01', // a date
    '2026-01-01T10:00Z', // no seconds
    '2026-01-01T10:00:00+0200', // offset without its colon
    'Thu 2026-01-01 10:00:00Z', // text before
    '2026-01-01 10:00:00Z GMT', // text after
    'Sat, 01 Jan 2026 10:00:00 GMT', // RFC 2822
  ])('%s is refused', (at) => {
    expect(refusal({ at })).toBe(
      `record "r1": at must be a date-time (TIMESTAMP), got ${JSON.stringify(at)}`,
    );
  });

  it('lower-case t and z, a space, a fraction to the millisecond and any offset are read as UTC milliseconds', async () => {
    const at = [
      '2026-01-01t10:00:00z',
      '2026-01-01 10:00:00.1Z',
      '2026-01-01T10:00:00.123000+02:00',
      '2026-01-01T10:00:00-05:30',
    ];
    const rows = await written(at.map((a, i) => ({ id: `r${i}`, at: a })));
    expect(rows.map((r) => (r.at as Date).toISOString())).toEqual([
      '2026-01-01T10:00:00.000Z',
      '2026-01-01T10:00:00.100Z',
      '2026-01-01T08:00:00.123Z',
      '2026-01-01T15:30:00.000Z',
    ]);
  });
});
