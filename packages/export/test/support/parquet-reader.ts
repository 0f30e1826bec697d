/**
 * Independent Parquet readers for tests: DuckDB (a C++ implementation) and hyparquet (the
 * JavaScript reader, by hyparquet-writer's authors; the writer is our own streaming writer):
 * rows as JavaScript values, the column types and repetitions as DuckDB and the file's schema
 * report them.
 */
import { readFile } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  type FileMetaData,
  parquetMetadata as hyparquetMetadata,
  parquetReadObjects,
} from 'hyparquet';
import type { FieldShape, RecordShape } from '../../src/shape.js';

export interface ParquetTable {
  rows: Record<string, unknown>[];
  /** `name: DUCKDB TYPE`, in file order. */
  types: string[];
  /** Leaf and group repetitions from the file's schema, by name path (`analysis.score`). */
  repetitions: Record<string, string>;
  rowGroups: number;
  /** Rows of each row group, in file order (`parquet_metadata`). */
  groupRows: number[];
}

const quote = (path: string) => `'${path.replaceAll("'", "''")}'`;

export async function readParquet(path: string): Promise<ParquetTable> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const file = quote(path);
    const rows = (
      await c.runAndReadAll(
        `SELECT * FROM read_parquet(${file}, file_row_number = true) ORDER BY file_row_number`,
      )
    ).getRowObjectsJS() as Record<string, unknown>[];
    const types = (await c.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${file})`))
      .getRowObjectsJS()
      .map((r) => `${String(r.column_name)}: ${String(r.column_type)}`);
    const schema = (
      await c.runAndReadAll(`SELECT name, repetition_type FROM parquet_schema(${file})`)
    ).getRowObjectsJS();
    const repetitions: Record<string, string> = {};
    for (const r of schema) repetitions[String(r.name)] = String(r.repetition_type);
    const groupRows = (
      await c.runAndReadAll(
        `SELECT row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata(${file}) GROUP BY 1 ORDER BY 1`,
      )
    )
      .getRowObjectsJS()
      .map((r) => Number(r.n));
    return { rows, types, repetitions, rowGroups: groupRows.length, groupRows };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/**
 * What a JSONL record becomes in Parquet, as the reader gives it back (D27): date-times as
 * milliseconds, integers as bigint, absent optional properties as null, undeclared ones gone.
 */
function expectedValue(
  value: unknown,
  shape: FieldShape,
  timestamp: (ms: number) => unknown = (ms) => ms,
): unknown {
  if (value === null || value === undefined) return null;
  switch (shape.type) {
    case 'timestamp':
      return timestamp(Date.parse(value as string));
    case 'int64':
      return BigInt(value as number);
    case 'double':
      // One rule in every format: -0 is written as 0 (FORMATS.md, numbers).
      return (value as number) + 0;
    case 'list':
      return (value as unknown[]).map((v) => expectedValue(v, shape.element, timestamp));
    case 'struct': {
      const object = value as Record<string, unknown>;
      return Object.fromEntries(
        shape.fields.map((f) => [f.name, expectedValue(object[f.name], f.shape, timestamp)]),
      );
    }
    default:
      return value;
  }
}

export function expectedRow(record: Record<string, unknown>, shape: RecordShape) {
  return expectedValue(record, shape) as Record<string, unknown>;
}

/** The reader's row with Dates as milliseconds, to compare with expectedRow. */
export function actualRow(row: unknown): unknown {
  if (row instanceof Date) return row.getTime();
  if (Array.isArray(row)) return row.map(actualRow);
  if (row && typeof row === 'object') {
    return Object.fromEntries(
      Object.entries(row)
        .filter(([k]) => k !== 'file_row_number')
        .map(([k, v]) => [k, actualRow(v)]),
    );
  }
  return row;
}

/** `parquet_metadata()`: one row per column chunk (row group, column, codec, statistics). */
export async function parquetMetadata(path: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    return (
      await c.runAndReadAll(`SELECT * FROM parquet_metadata(${quote(path)})`)
    ).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/**
 * The file's rows as hyparquet reads them (Dates for timestamps, bigints for INT64), with a
 * null list as null (hyparquet gives it as undefined, DuckDB as null).
 */
export async function readWithHyparquet(path: string): Promise<Record<string, unknown>[]> {
  return readWithHyparquetBytes(await readFile(path));
}

/** readWithHyparquet, of a file's bytes. */
export async function readWithHyparquetBytes(
  bytes: Uint8Array,
): Promise<Record<string, unknown>[]> {
  const file = new Uint8Array(bytes).buffer;
  return ((await parquetReadObjects({ file })) as unknown[]).map(
    (row) => nullNotUndefined(row) as Record<string, unknown>,
  );
}

function nullNotUndefined(value: unknown): unknown {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(nullNotUndefined);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullNotUndefined(v)]));
  }
  return value;
}

/** The file's footer as hyparquet reads it (encodings, page counts, statistics). */
export async function footerOf(path: string): Promise<FileMetaData> {
  const bytes = await readFile(path);
  return hyparquetMetadata(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
}
