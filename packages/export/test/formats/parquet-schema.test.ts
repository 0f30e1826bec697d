/**
 * The file's schema as a reader finds it in the footer (D27): "PAR1" at both ends; logical types
 * alongside the converted ones (strings as STRING, date-times as UTC milliseconds, lists as the
 * three-level LIST), OPTIONAL where null is allowed.
 */
import { parquetMetadata } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import type { RecordShape } from '../../src/shape.js';

const TABLE: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    { name: 'at', shape: { type: 'timestamp', nullable: true } },
    {
      name: 'tags',
      shape: { type: 'list', nullable: true, element: { type: 'string', nullable: true } },
    },
  ],
};

describe("the file's schema", () => {
  it('names each type both ways, as old and new readers look for it', () => {
    const encoder = parquetEncoder(TABLE, recordRows, 'test');
    const bytes = Buffer.concat([encoder.preamble, encoder.end!()]);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(bytes.subarray(-4).toString()).toBe('PAR1');
    const string = { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
    expect(parquetMetadata(new Uint8Array(bytes).buffer).schema).toEqual([
      { name: 'root', num_children: 3 },
      { name: 'id', repetition_type: 'REQUIRED', ...string },
      {
        name: 'at',
        type: 'INT64',
        repetition_type: 'OPTIONAL',
        converted_type: 'TIMESTAMP_MILLIS',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
      },
      {
        name: 'tags',
        repetition_type: 'OPTIONAL',
        num_children: 1,
        converted_type: 'LIST',
        logical_type: { type: 'LIST' },
      },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'OPTIONAL', ...string },
    ]);
  });
});
