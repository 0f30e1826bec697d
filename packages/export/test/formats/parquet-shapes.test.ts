/**
 * Rows of every export's shape, generated with nulls, missing properties, empty and nested
 * lists, non-ASCII text and offsets: what the streaming encoder writes,
 * DuckDB (an independent reader) reads back equal to the records, value for value.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRecord } from '../../src/formats/encoders.js';
import {
  parquetEncoder,
  type RowSource,
  recordRows,
  sessionItemRows,
} from '../../src/formats/parquet-encoder.js';
import { SESSION_ITEM_SHAPE } from '../../src/formats/parquet-schema.js';
import { ParquetValueError } from '../../src/formats/parquet-shred.js';
import { RECORD_SHAPES } from '../../src/generated/record-shapes.js';
import type { FieldShape, RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readParquet } from '../support/parquet-reader.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-parquet-values-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
function rowObjects(rows: RowSource, records: ApiRecord[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  rows(records, (row, record, index) => {
    out.push(index < 0 ? row : { ...row, sessionId: record.id, itemIndex: index });
  });
  return out;
}

async function encodedFile(
  name: string,
  shape: RecordShape,
  rows: RowSource,
  records: ApiRecord[],
  rowGroupRows: number,
): Promise<string> {
  const encoder = parquetEncoder(shape, rows, 'test', { rowGroupRows });
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += 100) {
    chunks.push(encoder.encode(records.slice(i, i + 100)));
  }
  chunks.push(encoder.end!());
  const path = join(dir, `${name}.parquet`);
  await writeFile(path, Buffer.concat(chunks));
  return path;
}

describe('every export shape reads back equal, value for value', () => {
  it.each(Object.keys(RECORD_SHAPES))('%s', async (name) => {
    const shape = (RECORD_SHAPES as Record<string, RecordShape>)[name]!;
    const records = recordsOf(shape, 700, name.length);
    const table = await readParquet(await encodedFile(name, shape, recordRows, records, 250));
    expect(table.groupRows).toEqual([250, 250, 200]);
    expect(table.rows.map(actualRow)).toEqual(records.map((r) => expectedRow(r, shape)));
  });

  it('the items child table (sessionId and itemIndex from the record and position)', async () => {
    const shape = RECORD_SHAPES.RealCallSessionExportRecord as RecordShape;
    const records = recordsOf(shape, 400, 3);
    const path = await encodedFile('items', SESSION_ITEM_SHAPE, sessionItemRows, records, 300);
    const expected = rowObjects(sessionItemRows, records);
    expect(expected.length).toBeGreaterThan(300);
    const table = await readParquet(path);
    expect(table.rows.map(actualRow)).toEqual(
      expected.map((r) => expectedRow(r, SESSION_ITEM_SHAPE)),
    );
  });

  it('no rows: a valid file with the schema and no row group', async () => {
    const shape = RECORD_SHAPES.UserExportRecord as RecordShape;
    const table = await readParquet(await encodedFile('none', shape, recordRows, [], 10));
    expect(table.rows).toEqual([]);
    expect(table.groupRows).toEqual([]);
  });
});

describe('a refused row fails the encoder, naming record, full path and value', () => {
  const shape = RECORD_SHAPES.RealCallSessionExportRecord as RecordShape;

  it('inside a struct inside a list inside a struct: analysis.items[1].solved', () => {
    const encoder = parquetEncoder(shape, recordRows, 'test');
    // A generated session with an analysis item: the item's other properties are valid.
    const session = recordsOf(shape, 50, 3).find(
      (r) => ((r.analysis as { items?: unknown[] } | null)?.items?.length ?? 0) > 0,
    )!;
    const analysis = session.analysis as { items: Record<string, unknown>[] };
    const item = analysis.items[0]!;
    const row = {
      ...session,
      id: 's-1',
      analysis: { ...analysis, items: [item, { ...item, solved: 7 }] },
    };
    const message = /^record "s-1": analysis\.items\[1\]\.solved must be a string \(UTF8\), got 7$/;
    expect(() => encoder.encode([row])).toThrow(message);
    // The leaves may hold part of that row: the encoder writes nothing more.
    expect(() => encoder.encode([session])).toThrow(message);
    expect(() => encoder.end!()).toThrow(ParquetValueError);
  });

  it('a null where the schema requires an object', () => {
    const encoder = parquetEncoder(shape, recordRows, 'test');
    const [session] = recordsOf(shape, 1, 5);
    expect(() => encoder.encode([{ ...session!, id: 'r', analysis: null }])).toThrow(
      /^record "r": analysis is null, but openapi\.yaml requires an object \(STRUCT\)$/,
    );
  });

  it('properties the schema does not declare are not written', async () => {
    const users = RECORD_SHAPES.UserExportRecord as RecordShape;
    const records = recordsOf(users, 3, 2).map((r) => ({ ...r, secret: 'not in openapi.yaml' }));
    const table = await readParquet(
      await encodedFile('undeclared', users, recordRows, records, 10),
    );
    expect(table.types.map((t) => t.split(':')[0])).toEqual(users.fields.map((f) => f.name));
    expect(table.rows.map(actualRow)).toEqual(records.map((r) => expectedRow(r, users)));
  });
});
