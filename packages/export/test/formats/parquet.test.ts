import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import {
  type ParquetOptions,
  parquetEncoder,
  recordRows,
  sessionItemRows,
} from '../../src/formats/parquet-encoder.js';
import {
  parquetSchemaOf,
  recordShapeOf,
  SESSION_ITEM_SHAPE,
} from '../../src/formats/parquet-schema.js';
import { ParquetValueError } from '../../src/formats/parquet-shred.js';
import type { RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, parquetMetadata, readParquet } from '../support/parquet-reader.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-parquet-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const user = (i: number): ApiRecord => ({
  id: `9421f0da-b071-44fb-8020-${String(i).padStart(12, '0')}`,
  email: i % 5 === 0 ? null : `u${i}@acme.example`,
  firstName: `Zoë ${i}`,
  lastName: i % 3 === 0 ? null : 'Łukasiewicz',
  teamIds: Array.from({ length: i % 3 }, (_, j) => `team-${j}`),
  createdAt: `2026-01-0${(i % 9) + 1}T10:00:00.${String(i % 1000).padStart(3, '0')}Z`,
});

async function encodeToFile(
  name: string,
  records: ApiRecord[],
  pageSize: number,
  options?: ParquetOptions,
) {
  const encoder = parquetEncoder(recordShapeOf('users'), recordRows, 'test', options);
  const chunks: Uint8Array[] = [encoder.preamble];
  for (let i = 0; i < records.length; i += pageSize) {
    chunks.push(encoder.encode(records.slice(i, i + pageSize)));
  }
  chunks.push(encoder.end!());
  const path = join(dir, name);
  await writeFile(path, Buffer.concat(chunks));
  return { path, chunks };
}

describe('parquet encoder', () => {
  it('writes row groups as pages arrive; the file reads back equal', async () => {
    const records = Array.from({ length: 2_500 }, (_, i) => user(i));
    const { path, chunks } = await encodeToFile('users.parquet', records, 100, {
      rowGroupRows: 1000,
    });
    // Bytes leave the encoder as each row group fills, not all at the end.
    const nonEmpty = chunks.filter((c) => c.byteLength > 0).length;
    expect(nonEmpty).toBeGreaterThanOrEqual(4);
    const table = await readParquet(path);
    expect(table.groupRows).toEqual([1000, 1000, 500]);
    expect(table.rows.map(actualRow)).toEqual(
      records.map((r) => expectedRow(r, recordShapeOf('users'))),
    );
  });

  it('a row group is also closed by size, so big records keep memory flat', async () => {
    const records = Array.from({ length: 300 }, (_, i) => ({
      ...user(i),
      firstName: 'x'.repeat(10_000),
    }));
    const { path } = await encodeToFile('big.parquet', records, 100, { rowGroupBytes: 1_000_000 });
    // 10,000 characters a row: a group closes at the row that reaches 1,000,000 bytes.
    expect((await readParquet(path)).groupRows).toEqual([100, 100, 100]);
  });

  it('the size bound counts text as its UTF-8 bytes, as the file stores it', async () => {
    // 5,000 characters of two bytes each: 10,000 bytes a row, as in the ASCII case above.
    const records = Array.from({ length: 300 }, (_, i) => ({
      ...user(i),
      firstName: 'é'.repeat(5_000),
    }));
    const { path } = await encodeToFile('wide.parquet', records, 100, { rowGroupBytes: 1_000_000 });
    const table = await readParquet(path);
    expect(table.groupRows).toEqual([100, 100, 100]);
    expect(table.rows.map(actualRow)).toEqual(
      records.map((r) => expectedRow(r, recordShapeOf('users'))),
    );
  });

  it('statistics on every column chunk; snappy by default, zstd on request', async () => {
    const records = Array.from({ length: 300 }, (_, i) => user(i));
    const shape = recordShapeOf('users');
    for (const compression of ['snappy', 'zstd'] as const) {
      const { path } = await encodeToFile(`${compression}.parquet`, records, 100, {
        compression,
      });
      const meta = await parquetMetadata(path);
      expect(new Set(meta.map((m) => m.compression))).toEqual(new Set([compression.toUpperCase()]));
      const createdAt = meta.find((m) => m.path_in_schema === 'createdAt')!;
      expect([createdAt.stats_min_value, createdAt.stats_max_value]).toEqual([
        '2026-01-01 10:00:00+00',
        '2026-01-09 10:00:00.296+00',
      ]);
      const email = meta.find((m) => m.path_in_schema === 'email')!;
      expect(email.stats_null_count).toBe(60n);
      const table = await readParquet(path);
      expect(table.rows.map(actualRow)).toEqual(records.map((r) => expectedRow(r, shape)));
    }
  });

  it('row-group bounds that are not whole positive numbers are refused', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        parquetEncoder(recordShapeOf('users'), recordRows, 'test', { rowGroupRows: bad }),
      ).toThrow(/rowGroupRows must be a whole number of at least 1/);
      expect(() =>
        parquetEncoder(recordShapeOf('users'), recordRows, 'test', { rowGroupBytes: bad }),
      ).toThrow(/rowGroupBytes must be a whole number of at least 1/);
    }
  });

  it('by default a row group holds 100,000 rows, the last one the rest', async () => {
    // One small column: the bound is in rows, whatever the rows hold.
    const flags: RecordShape = {
      type: 'struct',
      nullable: false,
      fields: [{ name: 'on', shape: { type: 'boolean', nullable: false } }],
    };
    const encoder = parquetEncoder(flags, recordRows, 'test');
    const chunks: Uint8Array[] = [encoder.preamble];
    const page = Array.from({ length: 1_000 }, (_, j) => ({ id: `r${j}`, on: j % 2 === 0 }));
    for (let i = 0; i < 101; i++) chunks.push(encoder.encode(page));
    chunks.push(encoder.end!());
    const path = join(dir, 'default-groups.parquet');
    await writeFile(path, Buffer.concat(chunks));
    const groups = new Map<unknown, unknown>();
    for (const m of await parquetMetadata(path)) groups.set(m.row_group_id, m.row_group_num_rows);
    expect([...groups.values()]).toEqual([100_000n, 1_000n]);
    expect(encoder.parquetShape!().rowGroups).toEqual({ count: 2, rows: [100_000, 1_000] });
  });

  it('an empty export is a valid file with the schema and no rows', async () => {
    const { path } = await encodeToFile('empty.parquet', [], 100);
    const table = await readParquet(path);
    expect(table.rows).toEqual([]);
    expect(table.types[0]).toBe('id: VARCHAR');
  });

  it('milliseconds are kept, offsets converted to UTC', async () => {
    const record = { ...user(1), createdAt: '2026-03-01T12:30:00.123+02:00' };
    const { path } = await encodeToFile('tz.parquet', [record], 100);
    const [row] = (await readParquet(path)).rows;
    expect((row!.createdAt as Date).toISOString()).toBe('2026-03-01T10:30:00.123Z');
  });

  it('the items child table: one row per item, keyed by session and position', async () => {
    const encoder = parquetEncoder(SESSION_ITEM_SHAPE, sessionItemRows, 'test');
    expect(encoder.preamble.byteLength).toBe(4);
    const item = (name: string) => ({ name, solved: 'solved', itemScore: 1 });
    const path = join(dir, 'items.parquet');
    await writeFile(
      path,
      Buffer.concat([
        encoder.preamble,
        encoder.encode([
          { id: 's1', analysis: { score: 1, items: [item('a'), item('b')] } },
          { id: 's2', analysis: null },
          { id: 's3', analysis: { score: 1, items: [item('c')] } },
        ]),
        encoder.end!(),
      ]),
    );
    const { rows } = await readParquet(path);
    expect(rows.map((r) => [r.sessionId, r.itemIndex, r.name])).toEqual([
      ['s1', 0n, 'a'],
      ['s1', 1n, 'b'],
      ['s3', 0n, 'c'],
    ]);
  });
});

describe('values the schema cannot hold fail the export, naming record, property and value', () => {
  const cases: [Partial<ApiRecord>, RegExp][] = [
    [{ createdAt: 'yesterday' }, /createdAt must be a date-time \(TIMESTAMP\), got "yesterday"/],
    [{ createdAt: null }, /createdAt is null, but openapi\.yaml requires a date-time/],
    [{ firstName: 42 }, /firstName must be a string \(UTF8\), got 42/],
    [{ teamIds: 'team-1' }, /teamIds must be an array \(LIST\), got "team-1"/],
    [{ teamIds: ['ok', 7] }, /teamIds\[1\] must be a string/],
    [{ teamIds: ['ok', null] }, /teamIds\[1\] is null, but openapi\.yaml requires a string/],
  ];
  it.each(cases)('%o', (change, message) => {
    const encoder = parquetEncoder(recordShapeOf('users'), recordRows, 'test');
    const record = { ...user(1), ...change } as ApiRecord;
    const error = (() => {
      try {
        encoder.encode([record]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ParquetValueError);
    expect((error as Error).message).toMatch(/^record "9421f0da-b071-44fb-8020-000000000001": /);
    expect((error as Error).message).toMatch(message);
  });

  it('a required property that is missing', () => {
    const encoder = parquetEncoder(recordShapeOf('tracks'), recordRows, 'test');
    expect(() =>
      encoder.encode([
        { id: '64b7f0c2a1b2c3d4e5f60718', title: 't', description: 'd', missionIds: [] },
      ]),
    ).toThrow(/archived is missing, but openapi\.yaml requires a boolean/);
  });

  it('integers must be whole numbers (INT64)', () => {
    const encoder = parquetEncoder(SESSION_ITEM_SHAPE, recordRows, 'test');
    expect(() =>
      encoder.encode([{ id: 'x', sessionId: 'x', itemIndex: 1.5, solved: 'solved', itemScore: 1 }]),
    ).toThrow(/itemIndex must be an integer \(INT64\)/);
  });
});

describe('parquet schema', () => {
  it('lists use the three-level LIST form; timestamps are UTC milliseconds', () => {
    const schema = parquetSchemaOf(recordShapeOf('users').fields);
    expect(schema.find((e) => e.name === 'teamIds')).toMatchObject({
      converted_type: 'LIST',
      repetition_type: 'REQUIRED',
      num_children: 1,
    });
    expect(schema.find((e) => e.name === 'list')).toMatchObject({ repetition_type: 'REPEATED' });
    expect(schema.find((e) => e.name === 'createdAt')).toMatchObject({
      type: 'INT64',
      logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
    });
    expect(schema.find((e) => e.name === 'email')).toMatchObject({ repetition_type: 'OPTIONAL' });
  });
});

describe('what the encoder refuses before writing a byte', () => {
  it.each(['rowGroupRows', 'rowGroupBytes', 'pageSize'] as const)(
    '%s below 1: a RangeError naming the option (a caller bypassing planExport)',
    (option) => {
      expect(() =>
        parquetEncoder(recordShapeOf('users'), recordRows, 'test', { [option]: 0 }),
      ).toThrow(new RangeError(`${option} must be a whole number of at least 1, got 0`));
    },
  );

  it('an export that does not exist, naming the nine that do', () => {
    expect(() => recordShapeOf('userz' as 'users')).toThrow(
      'no export named "userz"; the exports are: real-call-sessions, track-assignments, mission-assignments, sprints, users, tracks, scorecards, missions, teams',
    );
  });
});
