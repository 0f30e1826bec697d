/**
 * The footer and the page headers say what the pages hold (D27), as readers that plan their
 * reads by them (DuckDB, Spark, pyarrow) rely on: each chunk's pages, walked header by header,
 * add up to the chunk's sizes, value and page counts and encodings; a page's header counts its
 * values, nulls and rows; the offset index points at each data page; a row group's sizes are
 * its chunks'. Read with hyparquet's own footer and page header readers.
 */
import { type ColumnChunk, type FileMetaData, parquetMetadata, readOffsetIndex } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import type { ParquetCompression } from '../../src/formats/parquet-compression.js';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import type { RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

const TABLE: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    { name: 'team', shape: { type: 'string', nullable: true } },
    { name: 'n', shape: { type: 'int64', nullable: true } },
    { name: 'x', shape: { type: 'double', nullable: false } },
    { name: 'on', shape: { type: 'boolean', nullable: true } },
    {
      name: 'tags',
      shape: { type: 'list', nullable: true, element: { type: 'string', nullable: true } },
    },
  ],
};

/** 3,000 rows: ids all distinct (the dictionary is given up), teams repeating, nulls here and there. */
const RECORDS: ApiRecord[] = Array.from({ length: 3_000 }, (_, i) => ({
  id: `row-${String(i).padStart(6, '0')}`,
  team: i % 7 === 0 ? null : `team ${i % 5}`,
  n: i % 11 === 0 ? null : i % 13,
  x: i / 4,
  on: i % 3 === 0 ? null : i % 2 === 0,
  tags: i % 4 === 0 ? null : Array.from({ length: i % 3 }, (_, j) => (j === 1 ? null : `t${j}`)),
}));

async function written(compression: ParquetCompression): Promise<ArrayBuffer> {
  const encoder = parquetEncoder(TABLE, recordRows, 'test', {
    compression,
    rowGroupRows: 2_000,
    pageSize: 4_096,
  });
  const chunks = [encoder.preamble];
  for (let i = 0; i < RECORDS.length; i += 100) {
    chunks.push(encoder.encode(RECORDS.slice(i, i + 100)));
  }
  chunks.push(encoder.end!());
  const bytes = Buffer.concat(chunks);
  expect((await readWithHyparquetBytes(bytes)).map(actualRow)).toEqual(
    RECORDS.map((r) => expectedRow(r, TABLE)),
  );
  return new Uint8Array(bytes).buffer;
}

/** Each page of a chunk, header by header from its first byte to its end. */
function pageHeadersOf(file: ArrayBuffer, chunk: ColumnChunk) {
  const meta = chunk.meta_data!;
  const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset);
  const end = start + Number(meta.total_compressed_size);
  const view = new DataView(file);
  const pages = [];
  for (let offset = start; offset < end; ) {
    const reader = { view, offset };
    const header = parquetHeader(reader);
    const headerBytes = reader.offset - offset;
    pages.push({ offset, header, headerBytes, size: headerBytes + header.compressed_page_size });
    offset += headerBytes + header.compressed_page_size;
  }
  return pages;
}

describe.each(['none', 'snappy'] as const)('compression %s', (compression) => {
  // Each test writes the file itself (no state shared between tests: a mutation run runs only
  // the tests that run the code it changed).
  const writtenFile = async (): Promise<{ file: ArrayBuffer; footer: FileMetaData }> => {
    const file = await written(compression);
    const footer = parquetMetadata(file);
    expect(footer.row_groups.map((g) => g.num_rows)).toEqual([2_000n, 1_000n]);
    return { file, footer };
  };

  it("each chunk's pages add up to its sizes and counts, and its encodings name them", async () => {
    const { file, footer } = await writtenFile();
    for (const group of footer.row_groups) {
      for (const chunk of group.columns) {
        const meta = chunk.meta_data!;
        const where = `${meta.path_in_schema.join('.')} in a group of ${group.num_rows}`;
        const pages = pageHeadersOf(file, chunk);
        const dictionary = pages.filter((p) => p.header.type === 'DICTIONARY_PAGE');
        const data = pages.filter((p) => p.header.type === 'DATA_PAGE_V2');
        expect(dictionary.length + data.length, where).toBe(pages.length);
        // The dictionary page comes first, where the footer says; the data pages after it.
        expect(dictionary.length > 0, where).toBe(meta.dictionary_page_offset !== undefined);
        if (dictionary.length > 0) {
          expect(pages[0]!.offset, where).toBe(Number(meta.dictionary_page_offset));
          expect(dictionary.length, where).toBe(1);
        }
        expect(data[0]!.offset, where).toBe(Number(meta.data_page_offset));
        expect(
          pages.reduce((n, p) => n + p.size, 0),
          where,
        ).toBe(Number(meta.total_compressed_size));
        expect(
          pages.reduce((n, p) => n + p.headerBytes + p.header.uncompressed_page_size, 0),
          where,
        ).toBe(Number(meta.total_uncompressed_size));
        if (compression === 'none') {
          expect(meta.total_uncompressed_size, where).toBe(meta.total_compressed_size);
        }
        expect(meta.codec, where).toBe(compression === 'none' ? 'UNCOMPRESSED' : 'SNAPPY');
        expect(
          data.reduce((n, p) => n + p.header.data_page_header_v2!.num_values, 0),
          where,
        ).toBe(Number(meta.num_values));
        // Encodings: PLAIN always (the dictionary page's), RLE_DICTIONARY when pages use it.
        const used = new Set(data.map((p) => p.header.data_page_header_v2!.encoding));
        expect(meta.encodings, where).toEqual(
          used.has('RLE_DICTIONARY') ? ['PLAIN', 'RLE_DICTIONARY'] : ['PLAIN'],
        );
        const count = (encoding: string) =>
          data.filter((p) => p.header.data_page_header_v2!.encoding === encoding).length;
        const expectedStats = [
          ...(dictionary.length > 0
            ? [
                { page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 },
                {
                  page_type: 'DATA_PAGE_V2',
                  encoding: 'RLE_DICTIONARY',
                  count: count('RLE_DICTIONARY'),
                },
              ]
            : []),
          ...(count('PLAIN') > 0
            ? [{ page_type: 'DATA_PAGE_V2', encoding: 'PLAIN', count: count('PLAIN') }]
            : []),
        ];
        expect(meta.encoding_stats, where).toEqual(expectedStats);
        if (dictionary.length > 0) {
          expect(dictionary[0]!.header.dictionary_page_header!.encoding, where).toBe('PLAIN');
        }
        // Levels are written only where the schema has them: none for a required column, no
        // repetition levels outside a list.
        const path = meta.path_in_schema[0];
        for (const page of data) {
          const v2 = page.header.data_page_header_v2!;
          expect(v2.is_compressed, where).toBe(compression !== 'none');
          expect(v2.definition_levels_byte_length > 0, where).toBe(path !== 'id' && path !== 'x');
          expect(v2.repetition_levels_byte_length > 0, where).toBe(path === 'tags');
        }
      }
    }
  });

  it("a data page's header counts its rows and nulls; the offset index points at it", async () => {
    const { file, footer } = await writtenFile();
    for (const group of footer.row_groups) {
      for (const chunk of group.columns) {
        const where = chunk.meta_data!.path_in_schema.join('.');
        const data = pageHeadersOf(file, chunk).filter((p) => p.header.type === 'DATA_PAGE_V2');
        const rows = data.map((p) => p.header.data_page_header_v2!.num_rows);
        // hyparquet-writer writes an offset index for chunks of more than one page only.
        if (data.length > 1) {
          const index = readOffsetIndex({
            view: new DataView(file, Number(chunk.offset_index_offset), chunk.offset_index_length),
            offset: 0,
          });
          expect(
            index.page_locations.map((l) => [Number(l.offset), l.compressed_page_size]),
            where,
          ).toEqual(data.map((p) => [p.offset, p.size]));
          const firstRows = index.page_locations.map((l) => Number(l.first_row_index));
          expect(firstRows, where).toEqual(
            rows.map((_, i) => rows.slice(0, i).reduce((a, b) => a + b, 0)),
          );
        } else {
          expect(chunk.offset_index_offset, where).toBeUndefined();
        }
        expect(
          rows.reduce((a, b) => a + b, 0),
          where,
        ).toBe(Number(group.num_rows));
        const nulls = data.reduce((n, p) => n + p.header.data_page_header_v2!.num_nulls, 0);
        expect(BigInt(nulls), where).toBe(chunk.meta_data!.statistics!.null_count);
      }
    }
  });

  it("a row group's sizes are its chunks'", async () => {
    const { footer } = await writtenFile();
    for (const group of footer.row_groups) {
      const sum = (f: (c: ColumnChunk) => bigint) => group.columns.reduce((n, c) => n + f(c), 0n);
      expect(group.total_byte_size).toBe(sum((c) => c.meta_data!.total_uncompressed_size));
      expect(group.total_compressed_size).toBe(sum((c) => c.meta_data!.total_compressed_size));
    }
    expect(footer.num_rows).toBe(3_000n);
    expect(footer.created_by).toBe('test');
  });

  it('the null counts are those of the records', async () => {
    const { footer } = await writtenFile();
    const [first] = footer.row_groups;
    const nulls = Object.fromEntries(
      first!.columns.map((c) => [
        c.meta_data!.path_in_schema.join('.'),
        c.meta_data!.statistics!.null_count,
      ]),
    );
    const rows = RECORDS.slice(0, 2_000);
    const count = (f: (r: ApiRecord) => number) => BigInt(rows.reduce((n, r) => n + f(r), 0));
    expect(nulls).toEqual({
      id: 0n,
      team: count((r) => (r.team === null ? 1 : 0)),
      n: count((r) => (r.n === null ? 1 : 0)),
      x: 0n,
      on: count((r) => (r.on === null ? 1 : 0)),
      // A null list and an empty list are one null entry each; a null element is one too.
      'tags.list.element': count((r) => {
        const tags = r.tags as (string | null)[] | null;
        return tags === null || tags.length === 0 ? 1 : tags.filter((t) => t === null).length;
      }),
    });
  });
});
