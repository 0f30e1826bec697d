/**
 * D27: the Parquet schema of each export, from the record shapes generated from openapi.yaml
 * (generated/record-shapes.ts), never from the first record.
 *
 * - int64 INT64, double DOUBLE, boolean BOOLEAN, string UTF8;
 * - timestamp: INT64 TIMESTAMP(MILLIS, UTC);
 * - struct: a group; list: the standard three-level LIST (`name` / repeated `list` / `element`),
 *   which DuckDB, Spark, BigQuery, Snowflake and pyarrow all read as a list;
 * - OPTIONAL where the schema allows null or does not require the property, else REQUIRED.
 */
import type { ExportResource } from '@rcs/client';
import { EXPORT_TABLE } from '@rcs/client';
import { usageError } from '../errors.js';
import { RECORD_SHAPES } from '../generated/record-shapes.js';
import type { FieldShape, NamedShape, RecordShape } from '../shape.js';

/** The subset of hyparquet's SchemaElement this writer uses (kept here: types stay local). */
export interface ParquetSchemaElement {
  name: string;
  type?: 'BOOLEAN' | 'INT64' | 'DOUBLE' | 'BYTE_ARRAY';
  repetition_type?: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
  num_children?: number;
  converted_type?: 'UTF8' | 'LIST' | 'TIMESTAMP_MILLIS';
  logical_type?:
    | { type: 'STRING' }
    | { type: 'LIST' }
    | { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' };
}

type Repetition = NonNullable<ParquetSchemaElement['repetition_type']>;

function elementsOf(
  name: string,
  shape: FieldShape,
  repetition: Repetition,
): ParquetSchemaElement[] {
  const base = { name, repetition_type: repetition };
  switch (shape.type) {
    case 'int64':
      return [{ ...base, type: 'INT64' }];
    case 'double':
      return [{ ...base, type: 'DOUBLE' }];
    case 'boolean':
      return [{ ...base, type: 'BOOLEAN' }];
    case 'string':
      return [
        { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
      ];
    case 'timestamp':
      return [
        {
          ...base,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
        },
      ];
    case 'struct':
      return [
        { ...base, num_children: shape.fields.length },
        ...shape.fields.flatMap((f) => elementsOf(f.name, f.shape, repetitionOf(f.shape))),
      ];
    case 'list':
      return [
        { ...base, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        ...elementsOf('element', shape.element, repetitionOf(shape.element)),
      ];
  }
}

function repetitionOf(shape: FieldShape): Repetition {
  return shape.nullable ? 'OPTIONAL' : 'REQUIRED';
}

/** The flattened schema of a table whose rows have the given columns (root element first). */
export function parquetSchemaOf(columns: readonly NamedShape[]): ParquetSchemaElement[] {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.flatMap((c) => elementsOf(c.name, c.shape, repetitionOf(c.shape))),
  ];
}

/** A column's Parquet type as the manifest names it: `LIST<STRUCT<name: STRING, score: INT64?>>`. */
function typeText(shape: FieldShape): string {
  switch (shape.type) {
    case 'int64':
      return 'INT64';
    case 'double':
      return 'DOUBLE';
    case 'boolean':
      return 'BOOLEAN';
    case 'string':
      return 'STRING';
    case 'timestamp':
      return 'TIMESTAMP(MILLIS, UTC)';
    case 'list':
      return `LIST<${typeText(shape.element)}${shape.element.nullable ? '?' : ''}>`;
    case 'struct':
      return `STRUCT<${shape.fields.map((f) => `${f.name}: ${typeText(f.shape)}${f.shape.nullable ? '?' : ''}`).join(', ')}>`;
  }
}

/** The top-level columns of a table, for the manifest. */
export function parquetColumnsOf(
  columns: readonly NamedShape[],
): { name: string; type: string; nullable: boolean }[] {
  return columns.map((c) => ({
    name: c.name,
    type: typeText(c.shape),
    nullable: c.shape.nullable,
  }));
}

/** The record shape of one export, by the schema name its row in EXPORT_TABLE names. */
export function recordShapeOf(resource: ExportResource): RecordShape {
  const entry = EXPORT_TABLE.find((e) => e.resource === resource);
  const shape = entry && (RECORD_SHAPES as Record<string, RecordShape>)[entry.schema];
  if (!shape)
    throw usageError(
      `no export named "${resource}"; the exports are: ${EXPORT_TABLE.map((e) => e.resource).join(', ')}`,
    );
  return shape;
}

/**
 * The child table of real-call sessions (`real-call-session-items.parquet`): the session's id,
 * the item's 0-based position, then the item's own properties (as in the CSV child table).
 */
export const SESSION_ITEM_SHAPE: RecordShape = {
  type: 'struct',
  // Stryker disable next-line BooleanLiteral: a table's own nullability is never read, its columns' are.
  nullable: false,
  fields: [
    { name: 'sessionId', shape: { type: 'string', nullable: false } },
    { name: 'itemIndex', shape: { type: 'int64', nullable: false } },
    ...RECORD_SHAPES.RealCallSessionExportItem.fields,
  ],
};
