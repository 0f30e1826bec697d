/**
 * Property: random records of each export's shape (and of the sessions' items child table),
 * written by the streaming writer with random row-group and page bounds, read back by hyparquet
 * equal to the JSONL export of the same records, value for value. Records go through JSON first,
 * as the export receives them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ApiRecord, jsonlEncoder } from '../../src/formats/encoders.js';
import {
  parquetEncoder,
  type RowSource,
  recordRows,
  sessionItemRows,
} from '../../src/formats/parquet-encoder.js';
import { SESSION_ITEM_SHAPE } from '../../src/formats/parquet-schema.js';
import { RECORD_SHAPES } from '../../src/generated/record-shapes.js';
import type { FieldShape, RecordShape } from '../../src/shape.js';
import { actualRow, expectedRow, readWithHyparquetBytes } from '../support/parquet-reader.js';

/** A few values repeat (dictionaries), most are anything of the type. */
const text = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('', 'same', 'Zoë', '😀', '\uFFFD', 'x'.repeat(200)) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
);
const timestamp = fc
  .date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2100-01-01T00:00:00Z'),
    noInvalidDate: true,
  })
  .chain((d) => fc.constantFrom(d.toISOString(), `${d.toISOString().slice(0, 19)}+02:00`));

function arbitraryOf(shape: FieldShape, depth: number): fc.Arbitrary<unknown> {
  const value = ((): fc.Arbitrary<unknown> => {
    switch (shape.type) {
      case 'string':
        return text;
      case 'int64':
        return fc.oneof(fc.integer({ min: -3, max: 3 }), fc.maxSafeInteger(), fc.maxSafeNat());
      case 'double':
        return fc.double({ noNaN: true, noDefaultInfinity: true });
      case 'boolean':
        return fc.boolean();
      case 'timestamp':
        return timestamp;
      case 'list':
        return fc.array(arbitraryOf(shape.element, depth + 1), { maxLength: depth > 1 ? 3 : 6 });
      case 'struct':
        return fc.record(
          Object.fromEntries(shape.fields.map((f) => [f.name, arbitraryOf(f.shape, depth + 1)])),
          { requiredKeys: shape.fields.filter((f) => !f.shape.nullable).map((f) => f.name) },
        );
    }
  })();
  return shape.nullable ? fc.option(value, { nil: null, freq: 5 }) : value;
}

/** Records of a shape, given their ids (ids are unique in an export). */
function recordsOf(shape: RecordShape): fc.Arbitrary<ApiRecord[]> {
  return fc
    .array(arbitraryOf(shape, 0), { maxLength: 60 })
    .map((values) =>
      values.map((v, i) => JSON.parse(JSON.stringify({ ...(v as object), id: `id-${i}` }))),
    );
}

function rowObjects(rows: RowSource, records: ApiRecord[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  rows(records, (row, record, index) => {
    out.push(index < 0 ? row : { ...row, sessionId: record.id, itemIndex: index });
  });
  return out;
}

async function readsBackEqual(
  shape: RecordShape,
  rows: RowSource,
  records: ApiRecord[],
  bounds: { rowGroupRows: number; pageSize: number; pageRecords: number },
): Promise<void> {
  const { pageRecords, ...options } = bounds;
  const encoder = parquetEncoder(shape, rows, 'test', options);
  const chunks = [encoder.preamble];
  for (let i = 0; i < records.length; i += pageRecords) {
    chunks.push(encoder.encode(records.slice(i, i + pageRecords)));
  }
  chunks.push(encoder.end!());
  const jsonl = jsonlEncoder().encode(records);
  const fromJsonl =
    jsonl === ''
      ? []
      : jsonl
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l));
  const expected = rowObjects(rows, fromJsonl).map((r) => expectedRow(r, shape));
  const actual = (await readWithHyparquetBytes(Buffer.concat(chunks))).map(actualRow);
  expect(actual).toEqual(expected);
}

const bounds = fc.record({
  rowGroupRows: fc.integer({ min: 1, max: 80 }),
  pageSize: fc.integer({ min: 1, max: 4_096 }),
  pageRecords: fc.integer({ min: 1, max: 50 }),
});

describe('random records of every export shape read back equal to JSONL', () => {
  it.each(Object.keys(RECORD_SHAPES).filter((n) => n.endsWith('ExportRecord')))(
    '%s',
    async (name) => {
      const shape = (RECORD_SHAPES as Record<string, RecordShape>)[name]!;
      await fc.assert(
        fc.asyncProperty(recordsOf(shape), bounds, (records, b) =>
          readsBackEqual(shape, recordRows, records, b),
        ),
        { numRuns: 25 },
      );
    },
  );

  it('the items child table', async () => {
    const shape = RECORD_SHAPES.RealCallSessionExportRecord as RecordShape;
    await fc.assert(
      fc.asyncProperty(recordsOf(shape), bounds, (records, b) =>
        readsBackEqual(SESSION_ITEM_SHAPE, sessionItemRows, records, b),
      ),
      { numRuns: 25 },
    );
  });
});
