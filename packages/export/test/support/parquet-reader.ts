/**
 * An independent Parquet reader for tests (DuckDB, a C++ implementation; the writer is
 * hyparquet-writer): rows as JavaScript values, the column types and repetitions as DuckDB and
 * the file's schema report them.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { FieldShape, RecordShape } from '../../src/shape.js';

export interface ParquetTable {
  rows: Record<string, unknown>[];
  /** `name: DUCKDB TYPE`, in file order. */
  types: string[];
  /** Leaf and group repetitions from the file's schema, by name path (`analysis.score`). */
  repetitions: Record<string, string>;
  rowGroups: number;
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
    const meta = await c.runAndReadAll(
      `SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata(${file})`,
    );
    return { rows, types, repetitions, rowGroups: Number(meta.getRowObjectsJS()[0]!.n) };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

/**
 * What a JSONL record becomes in Parquet, as the reader gives it back (D27): date-times as
 * milliseconds, integers as bigint, absent optional properties as null, undeclared ones gone.
 */
export function expectedValue(
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
