/**
 * Issue 13: the encoder shreds rows into leaf columns itself (parquet-columns.ts) instead of
 * handing row objects to ParquetWriter.write. Its files must be the ones the row-object path
 * writes, byte for byte: here the previous path (row objects converted value by value, then
 * ParquetWriter.write, kept below as the reference) and the encoder write the same generated
 * rows of every export's shape.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import { ColumnBuffers, ParquetValueError } from '../../src/formats/parquet-columns.js';
import {
  parquetEncoder,
  type RowSource,
  recordRows,
  sessionItemRows,
} from '../../src/formats/parquet-encoder.js';
import { parquetSchemaOf, SESSION_ITEM_SHAPE } from '../../src/formats/parquet-schema.js';
import { RECORD_SHAPES } from '../../src/generated/record-shapes.js';
import type { FieldShape, RecordShape } from '../../src/shape.js';
import { expectedValue } from '../support/parquet-reader.js';

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['a', 'Zoë', 'Łukasiewicz', '😀 emoji', '', 'same', 'same', 'same', 'x'.repeat(300)];

/** A value of the shape; nullable ones are sometimes null, sometimes missing. */
function generated(shape: FieldShape, next: () => number, depth = 0): unknown {
  if (shape.nullable && next() < 0.2) return next() < 0.5 ? null : undefined;
  switch (shape.type) {
    case 'string':
      return WORDS[Math.floor(next() * WORDS.length)]! + (next() < 0.5 ? '' : String(depth));
    case 'int64':
      return next() < 0.3 ? 7 : Math.floor((next() - 0.5) * 2 ** 40);
    case 'double':
      return next() < 0.3 ? 0.5 : (next() - 0.5) * 1e6;
    case 'boolean':
      return next() < 0.5;
    case 'timestamp':
      return next() < 0.5
        ? `2026-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}T10:00:00.${String(Math.floor(next() * 1000)).padStart(3, '0')}Z`
        : '2026-03-01T12:30:00+02:00';
    case 'list':
      return Array.from({ length: Math.floor(next() * 4) }, () =>
        generated(shape.element, next, depth + 1),
      );
    case 'struct': {
      const out: Record<string, unknown> = {};
      for (const f of shape.fields) {
        const v = generated(f.shape, next, depth + 1);
        if (v !== undefined) out[f.name] = v;
      }
      return out;
    }
  }
}

function recordsOf(shape: RecordShape, n: number, seed: number): ApiRecord[] {
  const next = random(seed);
  return Array.from({ length: n }, (_, i) => ({
    ...(generated(shape, next) as Record<string, unknown>),
    id: `id-${i}`,
  }));
}

/** The row a RowSource gives, as an object (a child table's row names its session and index). */
function rowObject(
  row: Record<string, unknown>,
  record: ApiRecord,
  index: number,
): Record<string, unknown> {
  return index < 0 ? row : { ...row, sessionId: record.id, itemIndex: index };
}

/** The previous encoder: row objects converted, then ParquetWriter.write per group. */
function reference(
  shape: RecordShape,
  rows: RowSource,
  records: ApiRecord[],
  groupRows: number,
): Uint8Array {
  const writer = new ByteWriter();
  const parquet = new ParquetWriter({
    writer,
    schema: parquetSchemaOf(shape.fields) as ConstructorParameters<
      typeof ParquetWriter
    >[0]['schema'],
    codec: 'SNAPPY',
    createdBy: 'test',
  });
  const all: unknown[][] = [];
  rows(records, (row, record, index) => {
    const object = rowObject(row, record, index);
    // As written before: INT64 and TIMESTAMP values as BigInt.
    all.push(shape.fields.map((f) => expectedValue(object[f.name], f.shape, BigInt)));
  });
  for (let start = 0; start < all.length; start += groupRows) {
    const group = all.slice(start, start + groupRows);
    parquet.write({
      columnData: shape.fields.map((f, i) => ({ name: f.name, data: group.map((r) => r[i]) })),
      rowGroupSize: group.length,
    });
  }
  parquet.finish();
  return new Uint8Array(writer.buffer, 0, writer.index).slice();
}

function encoded(
  shape: RecordShape,
  rows: RowSource,
  records: ApiRecord[],
  groupRows: number,
  pageSize: number,
): Uint8Array {
  const encoder = parquetEncoder(shape, rows, 'test', { rows: groupRows, bytes: 2 ** 40 });
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += pageSize) {
    chunks.push(encoder.encode(records.slice(i, i + pageSize)));
  }
  chunks.push(encoder.end!());
  return new Uint8Array(Buffer.concat(chunks));
}

describe('column-wise rows write the same bytes as row objects through ParquetWriter', () => {
  it.each(Object.keys(RECORD_SHAPES))('%s', (name) => {
    const shape = (RECORD_SHAPES as Record<string, RecordShape>)[name]!;
    const records = recordsOf(shape, 700, name.length);
    const expected = reference(shape, recordRows, records, 250);
    expect(Buffer.from(encoded(shape, recordRows, records, 250, 100)).equals(expected)).toBe(true);
  });

  // The footer is written as the groups come (parquet-footer.ts): with no group at all, and with
  // more than 14 (the Thrift list header's long form), it is still the library's.
  it.each([
    [0, 250],
    [700, 7],
  ])('%i records in groups of %i rows', (count, groupRows) => {
    const shape = RECORD_SHAPES.UserExportRecord as RecordShape;
    const records = recordsOf(shape, count, 5);
    const expected = reference(shape, recordRows, records, groupRows);
    const actual = encoded(shape, recordRows, records, groupRows, 100);
    expect(Buffer.from(actual).equals(expected)).toBe(true);
  });

  it('the items child table (sessionId and itemIndex from the record and position)', () => {
    const shape = RECORD_SHAPES.RealCallSessionExportRecord as RecordShape;
    const records = recordsOf(shape, 400, 3);
    const expected = reference(SESSION_ITEM_SHAPE, sessionItemRows, records, 300);
    const actual = encoded(SESSION_ITEM_SHAPE, sessionItemRows, records, 300, 100);
    expect(Buffer.from(actual).equals(expected)).toBe(true);
  });
});

describe('column buffers', () => {
  const shape = RECORD_SHAPES.UserExportRecord as RecordShape;

  it('a refused row leaves nothing behind, and later rows are unaffected', () => {
    const buffers = new ColumnBuffers(shape.fields);
    const size = { bytes: 0 };
    const [good, other] = recordsOf(shape, 2, 9) as Record<string, unknown>[];
    const add = (row: Record<string, unknown>) =>
      buffers.addRow(
        (c) => row[shape.fields[c]!.name],
        size,
        () => 'row 2',
      );
    add(good!);
    const lengths = buffers.leaves.map((l) => l.values.length);
    const bytes = size.bytes;
    // A bad value in the last column: every earlier column already took this row's values.
    const last = shape.fields.at(-1)!.name;
    expect(() => add({ ...other, [last]: { not: 'this' } })).toThrow(ParquetValueError);
    expect(() => add({ ...other, [last]: { not: 'this' } })).toThrow(
      new RegExp(`^row 2: ${last} must be .* \\(D27\\), got \\{"not":"this"\\}$`),
    );
    expect(buffers.leaves.map((l) => l.values.length)).toEqual(lengths);
    expect(size.bytes).toBe(bytes);
    expect(buffers.rows).toBe(1);
  });

  it('level storage is kept from one row group to the next', () => {
    const buffers = new ColumnBuffers(shape.fields);
    const size = { bytes: 0 };
    for (const row of recordsOf(shape, 2000, 4) as Record<string, unknown>[]) {
      buffers.addRow(
        (c) => row[shape.fields[c]!.name],
        size,
        () => 'row',
      );
    }
    const nested = buffers.leaves.find((l) => !l.flat)!;
    const storage = nested.definitionLevels.bytes;
    buffers.clear();
    expect(buffers.rows).toBe(0);
    expect(nested.values).toEqual([]);
    expect(nested.definitionLevels.length).toBe(0);
    expect(nested.definitionLevels.bytes).toBe(storage);
  });
});

describe('a refused value is named by its full path', () => {
  const shape = RECORD_SHAPES.RealCallSessionExportRecord as RecordShape;

  it('inside a struct inside a list inside a struct: analysis.items[1].solved', () => {
    const buffers = new ColumnBuffers(shape.fields);
    // A generated session with an analysis item: the item's other properties are valid.
    const session = (recordsOf(shape, 50, 3) as Record<string, unknown>[]).find(
      (r) => ((r.analysis as { items?: unknown[] } | null)?.items?.length ?? 0) > 0,
    )!;
    const analysis = session.analysis as { items: Record<string, unknown>[] };
    const item = analysis.items[0]!;
    const row = {
      ...session,
      analysis: { ...analysis, items: [item, { ...item, solved: 7 }] },
    } as Record<string, unknown>;
    expect(() =>
      buffers.addRow(
        (c) => row[shape.fields[c]!.name],
        { bytes: 0 },
        () => 'record "s-1"',
      ),
    ).toThrow(
      /^record "s-1": analysis\.items\[1\]\.solved must be a string \(UTF8\) \(D27\), got 7$/,
    );
    expect(buffers.rows).toBe(0);
  });

  it('a null where the schema requires an object', () => {
    const buffers = new ColumnBuffers(shape.fields);
    const [session] = recordsOf(shape, 1, 5) as Record<string, unknown>[];
    const row = { ...session, analysis: null } as Record<string, unknown>;
    expect(() =>
      buffers.addRow(
        (c) => row[shape.fields[c]!.name],
        { bytes: 0 },
        () => 'r',
      ),
    ).toThrow(/^r: analysis is null, but openapi\.yaml requires an object \(STRUCT\)$/);
  });
});
