/**
 * Dictionary encoding and its fallback (D27, as parquet-java and arrow-rs do it): a string or
 * integer leaf starts with a dictionary; it writes PLAIN pages from the next page on when the
 * dictionary passes 1 MiB, or when its first 1,024 values are mostly distinct (the dictionary
 * and its indices would not be smaller than the values). The check is made once a row group.
 */
import { type ColumnChunk, type FileMetaData, parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import type { RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

const TEXT: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [{ name: 'v', shape: { type: 'string', nullable: false } }],
};

const INTEGERS: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [{ name: 'v', shape: { type: 'int64', nullable: false } }],
};

async function written(
  values: unknown[],
  table = TEXT,
): Promise<{ file: ArrayBuffer; chunk: ColumnChunk }> {
  const records: ApiRecord[] = values.map((v, i) => ({ id: `r${i}`, v }));
  const encoder = parquetEncoder(table, recordRows, 'test', { compression: 'none' });
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += 100) {
    chunks.push(encoder.encode(records.slice(i, i + 100)));
  }
  chunks.push(encoder.end!());
  const bytes = Buffer.concat(chunks);
  expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
    records.map((r) => expectedRow(r, table)),
  );
  const file = new Uint8Array(bytes).buffer;
  const footer: FileMetaData = parquetMetadata(file);
  return { file, chunk: footer.row_groups[0]!.columns[0]! };
}

/** The encodings of the data pages, in order (each page counted once). */
function dataEncodings(chunk: ColumnChunk): string[] {
  return chunk
    .meta_data!.encoding_stats!.filter((s) => s.page_type === 'DATA_PAGE_V2')
    .map((s) => s.encoding);
}

/** Values in the dictionary page. */
function dictionarySize(file: ArrayBuffer, chunk: ColumnChunk): number {
  const offset = Number(chunk.meta_data!.dictionary_page_offset);
  return parquetHeader({ view: new DataView(file), offset }).dictionary_page_header!.num_values;
}

const distinct = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `distinct ${from + i}`);

describe('the dictionary gives way to PLAIN pages', () => {
  it('when it passes 1 MiB: it holds the value that passed it, and none after', async () => {
    // Values of 1,024 PLAIN bytes, each twice: 1,024 of them make exactly 1 MiB.
    const value = (i: number) => String(i).padEnd(1_020, '.');
    const values = Array.from({ length: 2_200 }, (_, i) => value(Math.floor(i / 2)));
    const { file, chunk } = await written(values);
    expect(dataEncodings(chunk)).toEqual(['RLE_DICTIONARY', 'PLAIN']);
    expect(dictionarySize(file, chunk)).toBe(1_025);
  });

  it('when its first 1,024 values are all distinct, whatever follows', async () => {
    // The first value is long: had the check waited for value 1,025 (the long one again), the
    // dictionary would have paid for itself.
    const long = 'x'.repeat(2_000);
    const values = [long, ...distinct(1_023), ...Array(500).fill(long)];
    const { chunk } = await written(values);
    expect(dataEncodings(chunk)).toEqual(['RLE_DICTIONARY', 'PLAIN']);
  });

  it('when, at the first 1,024 values, the dictionary and its indices are not smaller', async () => {
    // 992 distinct values, then 32 repeats of one of them: indices of 10 bits for 1,024 values
    // take 1,280 bytes, what 32 repeats of 40 bytes save. As large: given up; smaller: kept.
    const small = Array.from({ length: 991 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    const repeats = (value: string) => [...small, ...Array(33 + 200).fill(value)];
    const asLarge = await written(repeats('r'.repeat(36)));
    expect(dataEncodings(asLarge.chunk)).toEqual(['RLE_DICTIONARY', 'PLAIN']);
    const smaller = await written(repeats('r'.repeat(37)));
    expect(dataEncodings(smaller.chunk)).toEqual(['RLE_DICTIONARY']);
  });

  it('not when the first 1,024 values repeat, though distinct values follow', async () => {
    const values = [...Array(1_024).fill('same'), ...distinct(3_000)];
    const { file, chunk } = await written(values);
    expect(dataEncodings(chunk)).toEqual(['RLE_DICTIONARY']);
    expect(dictionarySize(file, chunk)).toBe(3_001);
  });

  it('each row group starts with a dictionary again', async () => {
    // The first group's values are all distinct; the second's repeat, over several pages.
    const values = [...distinct(1_500), ...Array.from({ length: 1_500 }, (_, i) => `v${i % 9}`)];
    const records: ApiRecord[] = values.map((v, i) => ({ id: `r${i}`, v }));
    const encoder = parquetEncoder(TEXT, recordRows, 'test', {
      rowGroupRows: 1_500,
      pageSize: 400,
    });
    const bytes = Buffer.concat([encoder.preamble, encoder.encode(records), encoder.end!()]);
    const footer: FileMetaData = parquetMetadata(new Uint8Array(bytes).buffer);
    const [first, second] = footer.row_groups.map((g) => dataEncodings(g.columns[0]!));
    expect(first).toContain('PLAIN');
    expect(second).toEqual(['RLE_DICTIONARY']);
  });

  it('a column that stays under both keeps one dictionary for the group, each value once', async () => {
    const values = Array.from({ length: 3_000 }, (_, i) => `v${i % 40}`);
    const { file, chunk } = await written(values);
    expect(dataEncodings(chunk)).toEqual(['RLE_DICTIONARY']);
    expect(dictionarySize(file, chunk)).toBe(40);
    const numbers = await written(
      Array.from({ length: 3_000 }, (_, i) => (i % 40) * 1_000_000_007),
      INTEGERS,
    );
    expect(dataEncodings(numbers.chunk)).toEqual(['RLE_DICTIONARY']);
    expect(dictionarySize(numbers.file, numbers.chunk)).toBe(40);
  });
});
