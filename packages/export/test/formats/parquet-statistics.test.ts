/**
 * Each column chunk's statistics (D27), as a reader that skips row groups by them sees them: min
 * and max in the order Parquet defines for the type (strings by code point, signed zeros as the
 * format asks), the null count, and each row group's own, whether the values went into the
 * dictionary or, after it was given up, into PLAIN pages.
 */
import { type FileMetaData, parquetMetadata } from 'hyparquet';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import {
  type ParquetOptions,
  parquetEncoder,
  recordRows,
} from '../../src/formats/parquet-encoder.js';
import type { FieldShape, RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

const tableOf = (shape: FieldShape): RecordShape => ({
  type: 'struct',
  nullable: false,
  fields: [{ name: 'v', shape }],
});

/** The file's footer, once its rows have been read back equal to the records. */
async function written(
  shape: FieldShape,
  values: unknown[],
  options?: ParquetOptions,
): Promise<FileMetaData> {
  const table = tableOf(shape);
  const records: ApiRecord[] = values.map((v, i) => ({ id: `r${i}`, v }));
  const encoder = parquetEncoder(table, recordRows, 'test', options);
  const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
  const rows = await readWithHyparquetBytes(bytes);
  expect(rows.map(actualRow)).toEqual(records.map((r) => expectedRow(r, table)));
  return parquetMetadata(new Uint8Array(bytes).buffer);
}

/** min, max and null count of the one leaf, in each row group. */
function statisticsOf(footer: FileMetaData) {
  return footer.row_groups.map((g) => {
    const s = g.columns[0]!.meta_data!.statistics!;
    return { min: s.min_value, max: s.max_value, nulls: s.null_count };
  });
}

/** The encodings of the one leaf's data pages, in each row group. */
function dataPagesOf(footer: FileMetaData): string[][] {
  return footer.row_groups.map((g) =>
    g.columns[0]!.meta_data!.encoding_stats!.filter((s) => s.page_type === 'DATA_PAGE_V2').map(
      (s) => s.encoding,
    ),
  );
}

const text: FieldShape = { type: 'string', nullable: true };

describe('string statistics are in code point order', () => {
  it('a prefix orders before the longer string', async () => {
    const footer = await written(text, ['abc', 'ab', 'abd', 'a', 'abcd']);
    expect(statisticsOf(footer)).toEqual([{ min: 'a', max: 'abd', nulls: 0n }]);
  });

  it('a character past U+FFFF orders after U+E000..U+FFFF, and before nothing of the BMP', async () => {
    const footer = await written(text, ['\uE000', '\u{10000}', '\uFFFF', '\uD7FF']);
    expect(statisticsOf(footer)).toEqual([{ min: '\uD7FF', max: '\u{10000}', nulls: 0n }]);
    const other = await written(text, ['\u{10000}', '\uE000', '\u{10FFFF}']);
    expect(statisticsOf(other)).toEqual([{ min: '\uE000', max: '\u{10FFFF}', nulls: 0n }]);
  });

  it('the same in PLAIN pages, once mostly distinct values gave up the dictionary', async () => {
    const values = Array.from({ length: 1_100 }, (_, i) => `v${String(i).padStart(5, '0')}`);
    values.push('v', 'w\u{10000}', 'w\uFFFF', 'u');
    const footer = await written(text, values);
    expect(dataPagesOf(footer)).toEqual([['RLE_DICTIONARY', 'PLAIN']]);
    expect(statisticsOf(footer)).toEqual([{ min: 'u', max: 'w\u{10000}', nulls: 0n }]);
  });
});

describe('numbers, date-times and booleans', () => {
  it('integers: the least and the greatest, nulls counted', async () => {
    const footer = await written({ type: 'int64', nullable: true }, [5, null, -3, 10, 7, null]);
    expect(statisticsOf(footer)).toEqual([{ min: -3n, max: 10n, nulls: 2n }]);
  });

  it('integers in PLAIN pages, once mostly distinct', async () => {
    const values = Array.from({ length: 1_100 }, (_, i) => i * 7 - 3_000);
    values.push(2 ** 53 - 1, -(2 ** 53 - 1), 12);
    const footer = await written({ type: 'int64', nullable: false }, values);
    expect(dataPagesOf(footer)).toEqual([['RLE_DICTIONARY', 'PLAIN']]);
    expect(statisticsOf(footer)).toEqual([
      { min: -(2n ** 53n - 1n), max: 2n ** 53n - 1n, nulls: 0n },
    ]);
  });

  it('doubles: a minimum of zero is -0, a maximum of zero is +0', async () => {
    const double: FieldShape = { type: 'double', nullable: false };
    const [zeros] = statisticsOf(await written(double, [-0, -0]));
    expect(Object.is(zeros!.min, -0) && Object.is(zeros!.max, 0)).toBe(true);
    const [positive] = statisticsOf(await written(double, [0, 2.5, 1]));
    expect([Object.is(positive!.min, -0), positive!.max]).toEqual([true, 2.5]);
    const [negative] = statisticsOf(await written(double, [-1.5, 0, -0.5]));
    expect([negative!.min, Object.is(negative!.max, 0)]).toEqual([-1.5, true]);
  });

  it('doubles: NaN is neither the least nor the greatest', async () => {
    const footer = await written({ type: 'double', nullable: false }, [
      Number.NaN,
      2,
      Number.NaN,
      1,
    ]);
    expect(statisticsOf(footer)).toEqual([{ min: 1, max: 2, nulls: 0n }]);
  });

  it('doubles count their NaNs; other types write no NaN count', async () => {
    // hyparquet's footer reader skips the field: read from the footer's Thrift itself.
    const nanCounts = async (shape: FieldShape, values: unknown[], options?: ParquetOptions) => {
      const table = tableOf(shape);
      const encoder = parquetEncoder(table, recordRows, 'test', options);
      const records = values.map((v, i) => ({ id: `r${i}`, v }));
      const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
      const view = new DataView(new Uint8Array(bytes).buffer);
      const length = view.getUint32(bytes.length - 8, true);
      const footer = deserializeTCompactProtocol({ view, offset: bytes.length - 8 - length });
      // row_groups (4) > columns (1) > meta_data (3) > statistics (12) > nan_count (9)
      return footer.field_4.map(
        (g: { field_1: { field_3: { field_12: { field_9?: bigint } } }[] }) =>
          g.field_1.map((c) => c.field_3.field_12.field_9),
      );
    };
    const double: FieldShape = { type: 'double', nullable: false };
    expect(await nanCounts(double, [Number.NaN, 1, Number.NaN])).toEqual([[2n]]);
    expect(await nanCounts(double, [1])).toEqual([[0n]]);
    expect(await nanCounts(double, [Number.NaN, 1, 2], { rowGroupRows: 2 })).toEqual([[1n], [0n]]);
    expect(await nanCounts({ type: 'int64', nullable: false }, [1])).toEqual([[undefined]]);
  });

  it('date-times: the earliest and the latest instant', async () => {
    const footer = await written({ type: 'timestamp', nullable: false }, [
      '2026-01-02T00:00:00Z',
      '2026-01-02T01:00:00+02:00',
      '2026-01-03T00:00:00Z',
    ]);
    expect(statisticsOf(footer)).toEqual([
      { min: new Date('2026-01-01T23:00:00Z'), max: new Date('2026-01-03T00:00:00Z'), nulls: 0n },
    ]);
  });

  it.each([
    [[true, true], true, true],
    [[false, false], false, false],
    [[true, false, true], false, true],
    [[false, true, false], false, true],
  ])('booleans %j: min %s, max %s', async (values, min, max) => {
    const footer = await written({ type: 'boolean', nullable: false }, values);
    expect(statisticsOf(footer)).toEqual([{ min, max, nulls: 0n }]);
  });
});

describe('each row group has its own statistics', () => {
  it('min, max and nulls start again with each group', async () => {
    const footer = await written(text, ['m', null, 'k', 'z', 'b', null, null, 'c'], {
      rowGroupRows: 4,
    });
    expect(statisticsOf(footer)).toEqual([
      { min: 'k', max: 'z', nulls: 1n },
      { min: 'b', max: 'c', nulls: 2n },
    ]);
    const numbers = await written({ type: 'int64', nullable: false }, [9, 8, 1, 2], {
      rowGroupRows: 2,
    });
    expect(statisticsOf(numbers)).toEqual([
      { min: 8n, max: 9n, nulls: 0n },
      { min: 1n, max: 2n, nulls: 0n },
    ]);
  });

  it('a null list and an empty list count as nulls of the leaf, their elements too', async () => {
    const list: FieldShape = {
      type: 'list',
      nullable: true,
      element: { type: 'int64', nullable: true },
    };
    const footer = await written(list, [[1, null, 3], [], null, [null]]);
    expect(statisticsOf(footer)).toEqual([{ min: 1n, max: 3n, nulls: 4n }]);
  });
});
