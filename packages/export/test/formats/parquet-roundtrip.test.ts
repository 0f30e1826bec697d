/**
 * The streaming writer's edges, each read back by two independent readers (DuckDB and hyparquet)
 * equal, value for value, to what the JSONL export of the same records holds: an empty export,
 * one row, a column null in every row, dictionaries given up mid-group, empty, null and long
 * lists, text beyond the BMP, groups cut by bytes, a group that ends where a page closes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiRecord, jsonlEncoder } from '../../src/formats/encoders.js';
import {
  type ParquetOptions,
  parquetEncoder,
  recordRows,
} from '../../src/formats/parquet-encoder.js';
import { recordShapeOf } from '../../src/formats/parquet-schema.js';
import type { RecordShape } from '../../src/shape.js';
import {
  actualRow,
  expectedRow,
  footerOf,
  parquetMetadata,
  readParquet,
  readWithHyparquet,
} from '../support/parquet-reader.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-parquet-roundtrip-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const USERS = recordShapeOf('users');

/** A table of the shapes the exports have: nullable lists of nullable text, lists of structs. */
const LISTS: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    {
      name: 'tags',
      shape: { type: 'list', nullable: true, element: { type: 'string', nullable: true } },
    },
    {
      name: 'scores',
      shape: { type: 'list', nullable: false, element: { type: 'int64', nullable: false } },
    },
    {
      name: 'items',
      shape: {
        type: 'list',
        nullable: true,
        element: {
          type: 'struct',
          nullable: false,
          fields: [
            { name: 'at', shape: { type: 'timestamp', nullable: true } },
            {
              name: 'words',
              shape: {
                type: 'list',
                nullable: false,
                element: { type: 'string', nullable: false },
              },
            },
          ],
        },
      },
    },
  ],
};

/** A table of one double (PLAIN, 8 bytes a value: pages close at a known row). */
const DOUBLES: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    { name: 'x', shape: { type: 'double', nullable: false } },
  ],
};

const user = (i: number): ApiRecord => ({
  id: `9421f0da-b071-44fb-8020-${String(i).padStart(12, '0')}`,
  email: i % 5 === 0 ? null : `u${i}@acme.example`,
  firstName: `Zoë ${i % 7}`,
  lastName: i % 3 === 0 ? null : 'Łukasiewicz',
  teamIds: Array.from({ length: i % 3 }, (_, j) => `team-${j}`),
  createdAt: `2026-01-0${(i % 9) + 1}T10:00:00.${String(i % 1000).padStart(3, '0')}Z`,
});

/**
 * Writes the records as Parquet (pages of 100 records, as the export hands them over) and reads
 * the file back with both readers; each must equal the JSONL export's records, as D27 maps them.
 */
async function roundTrip(
  name: string,
  shape: RecordShape,
  records: ApiRecord[],
  options?: ParquetOptions,
): Promise<string> {
  const encoder = parquetEncoder(shape, recordRows, 'test', options);
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += 100) {
    chunks.push(encoder.encode(records.slice(i, i + 100)));
  }
  chunks.push(encoder.end!());
  const path = join(dir, `${name}.parquet`);
  await writeFile(path, Buffer.concat(chunks));

  const jsonl = jsonlEncoder().encode(records);
  const fromJsonl =
    jsonl === ''
      ? []
      : jsonl
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l));
  const expected = fromJsonl.map((r) => expectedRow(r, shape));
  expect((await readParquet(path)).rows.map(actualRow), 'DuckDB').toEqual(expected);
  expect((await readWithHyparquet(path)).map(actualRow), 'hyparquet').toEqual(expected);
  return path;
}

/** Each leaf's data pages by encoding in each row group, from the file's footer. */
async function pageEncodingsOf(path: string, leaf: string): Promise<Record<string, number>[]> {
  const footer = await footerOf(path);
  return footer.row_groups.map((group) => {
    const chunk = group.columns.find((c) => c.meta_data?.path_in_schema.join('.') === leaf)!;
    const pages: Record<string, number> = {};
    for (const s of chunk.meta_data!.encoding_stats!)
      pages[`${s.page_type} ${s.encoding}`] = s.count;
    return pages;
  });
}

describe('the streaming writer reads back equal to JSONL', () => {
  it('an empty export: a valid file with the schema and no row group', async () => {
    const path = await roundTrip('empty', USERS, []);
    expect((await footerOf(path)).row_groups).toEqual([]);
    expect((await readParquet(path)).types).toContain('createdAt: TIMESTAMP WITH TIME ZONE');
  });

  it('one row', async () => {
    const path = await roundTrip('one', USERS, [user(4)]);
    expect((await readParquet(path)).groupRows).toEqual([1]);
  });

  it('a column that is null in every row: no statistics but its null count', async () => {
    const records = Array.from({ length: 250 }, (_, i) => ({ ...user(i), email: null }));
    const path = await roundTrip('all-null', USERS, records);
    const email = (await parquetMetadata(path)).find((m) => m.path_in_schema === 'email')!;
    expect(email.stats_null_count).toBe(250n);
    expect([email.stats_min_value, email.stats_max_value]).toEqual([null, null]);
  });

  it('all-distinct strings give up the dictionary mid-group, and go on as PLAIN pages', async () => {
    const records = Array.from({ length: 3_000 }, (_, i) => ({
      ...user(i),
      firstName: `distinct ${i} ${'·'.repeat(i % 50)}`,
    }));
    const path = await roundTrip('distinct', USERS, records, { rowGroupRows: 1_500 });
    // The first values went into the dictionary; past the check, the rest are PLAIN.
    expect(await pageEncodingsOf(path, 'firstName')).toEqual([
      { 'DICTIONARY_PAGE PLAIN': 1, 'DATA_PAGE_V2 RLE_DICTIONARY': 1, 'DATA_PAGE_V2 PLAIN': 1 },
      { 'DICTIONARY_PAGE PLAIN': 1, 'DATA_PAGE_V2 RLE_DICTIONARY': 1, 'DATA_PAGE_V2 PLAIN': 1 },
    ]);
    // A column that repeats keeps its dictionary for the whole group.
    expect(await pageEncodingsOf(path, 'lastName')).toEqual([
      { 'DICTIONARY_PAGE PLAIN': 1, 'DATA_PAGE_V2 RLE_DICTIONARY': 1 },
      { 'DICTIONARY_PAGE PLAIN': 1, 'DATA_PAGE_V2 RLE_DICTIONARY': 1 },
    ]);
  });

  it('a dictionary that passes 1 MiB is given up, though its values repeat', async () => {
    // Each 1,000-character value twice: the dictionary halves the text, until it holds 1 MiB.
    const records = Array.from({ length: 3_000 }, (_, i) => ({
      ...user(i),
      firstName: `${Math.floor(i / 2)}`.padEnd(1_000, 'x'),
    }));
    const path = await roundTrip('big-dictionary', USERS, records);
    const [pages] = await pageEncodingsOf(path, 'firstName');
    expect(pages).toEqual({
      'DICTIONARY_PAGE PLAIN': 1,
      'DATA_PAGE_V2 RLE_DICTIONARY': 1,
      'DATA_PAGE_V2 PLAIN': 1,
    });
    const chunk = (await footerOf(path)).row_groups[0]!.columns.find(
      (c) => c.meta_data?.path_in_schema[0] === 'firstName',
    )!;
    // The dictionary page holds about 1 MiB of values (1,004 bytes each), not all 1,500.
    const dictionaryBytes =
      Number(chunk.meta_data!.data_page_offset) - Number(chunk.meta_data!.dictionary_page_offset);
    expect(dictionaryBytes).toBeLessThan(1_100_000);
  });

  it('empty, null and long lists, lists of structs with lists inside', async () => {
    const records: ApiRecord[] = [
      { id: 'empty', tags: [], scores: [], items: [] },
      { id: 'null', tags: null, scores: [1], items: null },
      { id: 'missing', scores: [-(2 ** 53 - 1), 2 ** 53 - 1] },
      {
        id: 'null-element',
        tags: [null, 'a', null],
        scores: [0],
        items: [{ at: null, words: [] }],
      },
      {
        id: 'long',
        tags: Array.from({ length: 20_000 }, (_, i) => `tag ${i % 300}`),
        scores: Array.from({ length: 20_000 }, (_, i) => i * 3 - 7),
        items: Array.from({ length: 500 }, (_, i) => ({
          at: '2026-03-01T12:30:00.250+02:00',
          words: Array.from({ length: i % 4 }, (_, j) => `w${j}`),
        })),
      },
      { id: 'after', tags: ['z'], scores: [5], items: [{ words: ['last'] }] },
    ];
    // Small pages: the long row's values fill many pages' worth, but a row never splits.
    await roundTrip('lists', LISTS, [...records, ...records], { pageSize: 4_096 });
  });

  it('text beyond the BMP: kept as UTF-8, and ordered by code point in the statistics', async () => {
    const names = ['😀 grin', '\uFFFD replacement', '\uE000 private', 'Zoë', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢'];
    const records = names.map((firstName, i) => ({ ...user(i), firstName }));
    const path = await roundTrip('non-bmp', USERS, records);
    const firstName = (await parquetMetadata(path)).find((m) => m.path_in_schema === 'firstName')!;
    // UTF-16 order would put the surrogate pairs (😀, 𝔘) before U+E000 and U+FFFD.
    expect([firstName.stats_min_value, firstName.stats_max_value]).toEqual(['Zoë', '😀 grin']);
  });

  it('a group cut by bytes before 100,000 rows', async () => {
    const records = Array.from({ length: 450 }, (_, i) => ({
      ...user(i),
      lastName: `${i} ${'y'.repeat(5_000)}`,
    }));
    const path = await roundTrip('bytes', USERS, records, { rowGroupBytes: 1_000_000 });
    // ~5,080 bytes a row: a group closes at the row that reaches 1,000,000.
    expect((await readParquet(path)).groupRows).toEqual([197, 197, 56]);
  });

  it('a group that closes exactly where a page closes', async () => {
    const records = Array.from({ length: 500 }, (_, i) => ({ id: `r${i}`, x: i / 3 }));
    // 8 bytes a value: a page closes after 100 rows, and a group after 300, on that same row.
    const path = await roundTrip('page-edge', DOUBLES, records, {
      pageSize: 800,
      rowGroupRows: 300,
    });
    expect(await pageEncodingsOf(path, 'x')).toEqual([
      { 'DATA_PAGE_V2 PLAIN': 3 },
      { 'DATA_PAGE_V2 PLAIN': 2 },
    ]);
    const footer = await footerOf(path);
    expect(footer.row_groups.map((g) => g.num_rows)).toEqual([300n, 200n]);
  });
});

describe('pages close for columns of nulls too', () => {
  it('a column null in every row still writes pages of about the page size', async () => {
    const records = Array.from({ length: 900 }, (_, i) => ({ ...user(i), email: null }));
    const path = await roundTrip('null-pages', USERS, records, { pageSize: 300 });
    // A byte of levels a null: a page every 300 rows.
    expect(await pageEncodingsOf(path, 'email')).toEqual([{ 'DATA_PAGE_V2 PLAIN': 3 }]);
  });
});
