/**
 * Data pages (D27): a page closes at the first row boundary at or past the page size (about
 * 1 MiB by default), so a page never splits a row (data page v2 needs whole rows) and a reader
 * that skips pages by the offset index lands on the row it asked for. Each row group's offset
 * index is read back here with hyparquet.
 */
import { type FileMetaData, parquetMetadata, readOffsetIndex } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import {
  type ParquetOptions,
  parquetEncoder,
  recordRows,
} from '../../src/formats/parquet-encoder.js';
import type { FieldShape, RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

/** A file of one column `v`, read back equal to the records. */
async function written(shape: FieldShape, values: unknown[], options: ParquetOptions) {
  const table: RecordShape = { type: 'struct', nullable: false, fields: [{ name: 'v', shape }] };
  const records: ApiRecord[] = values.map((v, i) => ({ id: `r${i}`, v }));
  const encoder = parquetEncoder(table, recordRows, 'test', options);
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += 100)
    chunks.push(encoder.encode(records.slice(i, i + 100)));
  chunks.push(encoder.end!());
  const bytes = Buffer.concat(chunks);
  expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
    records.map((r) => expectedRow(r, table)),
  );
  return bytes;
}

/** The first row of each page of the one leaf, in each row group (its offset index). */
function pageStarts(bytes: Buffer): number[][] {
  const file = new Uint8Array(bytes).buffer;
  const footer: FileMetaData = parquetMetadata(file);
  return footer.row_groups.map((g) => {
    const chunk = g.columns[0]!;
    const view = new DataView(file, Number(chunk.offset_index_offset), chunk.offset_index_length);
    return readOffsetIndex({ view, offset: 0 }).page_locations.map((p) =>
      Number(p.first_row_index),
    );
  });
}

const range = (n: number, step: number) => Array.from({ length: n }, (_, i) => i * step);

describe('pages close at row boundaries, at about the page size', () => {
  it('8 bytes a double, pages of 800 bytes: 100 rows a page', async () => {
    const values = Array.from({ length: 450 }, (_, i) => i / 3);
    const bytes = await written({ type: 'double', nullable: false }, values, { pageSize: 800 });
    expect(pageStarts(bytes)).toEqual([range(5, 100)]);
  });

  it('a null takes a byte: a column of nulls closes pages too', async () => {
    const values = Array.from({ length: 700 }, () => null);
    const bytes = await written({ type: 'string', nullable: true }, values, { pageSize: 300 });
    expect(pageStarts(bytes)).toEqual([range(3, 300)]);
  });

  it('dictionary indices count 4 bytes while the page fills', async () => {
    const values = Array.from({ length: 250 }, (_, i) => `v${i % 3}`);
    const bytes = await written({ type: 'string', nullable: false }, values, { pageSize: 400 });
    expect(pageStarts(bytes)).toEqual([range(3, 100)]);
  });

  it('text counts its UTF-8 bytes and length in PLAIN pages', async () => {
    // 1,200 distinct values give up the dictionary; then each is 4 + 6 bytes.
    const values = Array.from({ length: 1_300 }, (_, i) => `é${String(i).padStart(4, '0')}`);
    const bytes = await written({ type: 'string', nullable: false }, values, { pageSize: 1_000 });
    const [starts] = pageStarts(bytes);
    const plain = starts!.filter((row) => row > 1_024);
    expect(plain.slice(1).map((row, i) => row - plain[i]!)).toEqual(
      Array(plain.length - 1).fill(100),
    );
  });

  it('a row of a list is never split: the page holds all of it, and counts one row', async () => {
    const list: FieldShape = {
      type: 'list',
      nullable: false,
      element: { type: 'double', nullable: false },
    };
    // 5 values a row (40 bytes): pages of 3 rows at 100 bytes; row 7, 800 bytes, ends the page
    // row 6 began.
    const values = Array.from({ length: 14 }, (_, i) =>
      Array.from({ length: i === 7 ? 100 : 5 }, (_, j) => i + j / 10),
    );
    const bytes = await written(list, values, { pageSize: 100 });
    expect(pageStarts(bytes)).toEqual([[0, 3, 6, 8, 11]]);
  });

  it('each row group starts its pages at row 0', async () => {
    const values = Array.from({ length: 500 }, (_, i) => i / 7);
    const bytes = await written({ type: 'double', nullable: false }, values, {
      pageSize: 800,
      rowGroupRows: 250,
    });
    expect(pageStarts(bytes)).toEqual([
      [0, 100, 200],
      [0, 100, 200],
    ]);
  });
});
