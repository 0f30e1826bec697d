/**
 * What the manifest says of a Parquet file (D27): its compression, its row groups and each
 * top-level column's Parquet type, nested types spelled out and nullable ones marked `?`, as a
 * user reads them before opening the file.
 */
import { EXPORT_RESOURCES, type ExportResource } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { parquetEncoder, recordRows } from '../../src/formats/parquet-encoder.js';
import { recordShapeOf, SESSION_ITEM_SHAPE } from '../../src/formats/parquet-schema.js';
import type { RecordShape } from '../../src/shape.js';

/** A table with every type of column, nullable and not, nested both ways. */
const EVERY_TYPE: RecordShape = {
  type: 'struct',
  nullable: false,
  fields: [
    { name: 'id', shape: { type: 'string', nullable: false } },
    { name: 'n', shape: { type: 'int64', nullable: true } },
    { name: 'x', shape: { type: 'double', nullable: false } },
    { name: 'on', shape: { type: 'boolean', nullable: true } },
    { name: 'at', shape: { type: 'timestamp', nullable: false } },
    {
      name: 'tags',
      shape: { type: 'list', nullable: true, element: { type: 'string', nullable: true } },
    },
    {
      name: 'items',
      shape: {
        type: 'list',
        nullable: false,
        element: {
          type: 'struct',
          nullable: false,
          fields: [
            { name: 'name', shape: { type: 'string', nullable: false } },
            { name: 'score', shape: { type: 'int64', nullable: true } },
          ],
        },
      },
    },
    {
      name: 'meta',
      shape: {
        type: 'struct',
        nullable: true,
        fields: [{ name: 'a', shape: { type: 'boolean', nullable: false } }],
      },
    },
  ],
};

describe('the manifest describes the Parquet file', () => {
  it("names each column's type, nested types in full, nullable ones marked", () => {
    const encoder = parquetEncoder(EVERY_TYPE, recordRows, 'test', { compression: 'zstd' });
    encoder.encode([
      { id: 'a', x: 1.5, at: '2026-01-01T00:00:00Z', items: [{ name: 'i' }], meta: { a: true } },
    ]);
    encoder.end!();
    expect(encoder.parquetShape()).toEqual({
      compression: 'zstd',
      rowGroups: { count: 1, rows: [1] },
      schema: [
        { name: 'id', type: 'STRING', nullable: false },
        { name: 'n', type: 'INT64', nullable: true },
        { name: 'x', type: 'DOUBLE', nullable: false },
        { name: 'on', type: 'BOOLEAN', nullable: true },
        { name: 'at', type: 'TIMESTAMP(MILLIS, UTC)', nullable: false },
        { name: 'tags', type: 'LIST<STRING?>', nullable: true },
        { name: 'items', type: 'LIST<STRUCT<name: STRING, score: INT64?>>', nullable: false },
        { name: 'meta', type: 'STRUCT<a: BOOLEAN>', nullable: true },
      ],
    });
  });

  it("the items child table: each item's session and position, never null, first", () => {
    const encoder = parquetEncoder(SESSION_ITEM_SHAPE, recordRows, 'test');
    encoder.end!();
    expect(encoder.parquetShape().schema.slice(0, 2)).toEqual([
      { name: 'sessionId', type: 'STRING', nullable: false },
      { name: 'itemIndex', type: 'INT64', nullable: false },
    ]);
  });

  it('snappy when no compression is asked for', () => {
    const encoder = parquetEncoder(EVERY_TYPE, recordRows, 'test');
    encoder.end!();
    expect(encoder.parquetShape()).toMatchObject({
      compression: 'snappy',
      rowGroups: { count: 0, rows: [] },
    });
  });
});

describe('record shapes', () => {
  it('every export has one', () => {
    for (const resource of EXPORT_RESOURCES) {
      expect(recordShapeOf(resource).type, resource).toBe('struct');
    }
  });

  it('an export the table does not name is refused by name', () => {
    expect(() => recordShapeOf('invoices' as ExportResource)).toThrow('no export named "invoices"');
  });
});
