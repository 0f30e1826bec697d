/**
 * The writer's bounds (D27) as a library caller sets them: a row group closes at the row that
 * reaches `rowGroupRows` rows or `rowGroupBytes` bytes of values, whichever comes first; bounds
 * that are not whole numbers of at least 1 are refused by name. And the sessions' items child
 * table: a refused item is named by its session and position, the first (0) included.
 */
import { type FileMetaData, parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import {
  type ParquetOptions,
  parquetEncoder,
  recordRows,
  sessionItemRows,
} from '../../src/formats/parquet-encoder.js';
import { SESSION_ITEM_SHAPE } from '../../src/formats/parquet-schema.js';
import type { RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

/** One double a row: 8 bytes of values. */
const DOUBLES: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [{ name: 'x', shape: { type: 'double', nullable: false } }],
};

async function groupRows(count: number, options: ParquetOptions): Promise<number[]> {
  const records: ApiRecord[] = Array.from({ length: count }, (_, i) => ({ id: `r${i}`, x: i }));
  const encoder = parquetEncoder(DOUBLES, recordRows, 'test', options);
  const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
  expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
    records.map((r) => expectedRow(r, DOUBLES)),
  );
  const footer: FileMetaData = parquetMetadata(new Uint8Array(bytes).buffer);
  const rows = footer.row_groups.map((g) => Number(g.num_rows));
  expect(encoder.parquetShape().rowGroups).toEqual({ count: rows.length, rows });
  return rows;
}

describe('row-group bounds', () => {
  it('a group closes at the row that reaches the byte bound', async () => {
    expect(await groupRows(25, { rowGroupBytes: 80 })).toEqual([10, 10, 5]);
    expect(await groupRows(25, { rowGroupBytes: 81 })).toEqual([11, 11, 3]);
  });

  it('whichever bound comes first', async () => {
    expect(await groupRows(25, { rowGroupBytes: 80, rowGroupRows: 4 })).toEqual([
      4, 4, 4, 4, 4, 4, 1,
    ]);
    expect(await groupRows(25, { rowGroupBytes: 32, rowGroupRows: 10 })).toEqual([
      4, 4, 4, 4, 4, 4, 1,
    ]);
  });

  it('a boolean counts a byte', async () => {
    const flags: RecordShape = {
      type: 'struct',
      nullable: false,
      fields: [{ name: 'on', shape: { type: 'boolean', nullable: false } }],
    };
    const records = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, on: i % 3 === 0 }));
    const encoder = parquetEncoder(flags, recordRows, 'test', { rowGroupBytes: 4 });
    const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
    expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
      records.map((r) => expectedRow(r, flags)),
    );
    expect(encoder.parquetShape().rowGroups.rows).toEqual([4, 4, 2]);
  });

  it('text counts its PLAIN bytes, in the dictionary and after it was given up', async () => {
    const text: RecordShape = {
      type: 'struct',
      nullable: false,
      fields: [{ name: 'v', shape: { type: 'string', nullable: false } }],
    };
    // 10 bytes a row (4 of length, 6 of text), all distinct: PLAIN after the first 1,024.
    const records = Array.from({ length: 4_000 }, (_, i) => ({
      id: `r${i}`,
      v: `d${String(i).padStart(5, '0')}`,
    }));
    const encoder = parquetEncoder(text, recordRows, 'test', { rowGroupBytes: 15_000 });
    const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
    expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
      records.map((r) => expectedRow(r, text)),
    );
    expect(encoder.parquetShape().rowGroups.rows).toEqual([1_500, 1_500, 1_000]);
  });

  it('1 is a bound: a group, or a page, a row', async () => {
    expect(await groupRows(3, { rowGroupRows: 1 })).toEqual([1, 1, 1]);
    expect(await groupRows(3, { rowGroupBytes: 1 })).toEqual([1, 1, 1]);
    expect(await groupRows(3, { pageSize: 1 })).toEqual([3]);
  });

  it.each(['rowGroupRows', 'rowGroupBytes', 'pageSize'] as const)(
    '%s must be a whole number of at least 1',
    (name) => {
      for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => parquetEncoder(DOUBLES, recordRows, 'test', { [name]: bad })).toThrow(
          `${name} must be a whole number of at least 1, got ${String(bad)}`,
        );
      }
    },
  );
});

describe('the items child table names a refused item by session and position', () => {
  const item = { name: 'n', solved: 'solved', itemScore: 1 };

  it.each([
    ['the first', [{ ...item, solved: 3 }], 'item 0: solved must be a string (UTF8), got 3'],
    ['the second', [item, { ...item, itemScore: 'high' }], 'item 1: itemScore must be'],
    // An item that is not an object has none of its properties.
    ['one that is null', [null], 'item 0: solved is missing, but openapi.yaml requires a string'],
    ['one that is text', ['x'], 'item 0: solved is missing, but openapi.yaml requires a string'],
  ])('%s', (_, items, message) => {
    const encoder = parquetEncoder(SESSION_ITEM_SHAPE, sessionItemRows, 'test');
    expect(() => encoder.encode([{ id: 's1', analysis: { score: 1, items } }])).toThrow(
      `record "s1" ${message}`,
    );
  });

  it('a session without items, or whose items are not a list, has no rows', async () => {
    const encoder = parquetEncoder(SESSION_ITEM_SHAPE, sessionItemRows, 'test');
    const bytes = Buffer.concat([
      encoder.preamble,
      encoder.encode([
        { id: 's1', analysis: { score: 1 } },
        { id: 's2', analysis: { score: 1, items: 'none' } },
        { id: 's3' },
        { id: 's4', analysis: { score: 1, items: [item] } },
      ]),
      encoder.end!(),
    ]);
    const rows = await readWithHyparquetBytes(bytes);
    expect(rows.map((r) => [r.sessionId, r.itemIndex, r.solved])).toEqual([['s4', 0n, 'solved']]);
  });
});
