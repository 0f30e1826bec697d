/**
 * From an API record to the values of a Parquet row (D27), checked against the record's shape
 * (from openapi.yaml). A value that the schema's type cannot hold is never coerced or dropped:
 * the export fails naming the record, the property and the value, and nothing is replaced.
 */
import type { FieldShape, RecordShape } from './shape.js';

export class ParquetValueError extends Error {
  override name = 'ParquetValueError';
}

/** RFC 3339 date-time (what `format: date-time` means); D27 stores milliseconds, UTC. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

const WHAT: Record<FieldShape['type'], string> = {
  int64: 'an integer (INT64)',
  double: 'a number (DOUBLE)',
  boolean: 'a boolean (BOOLEAN)',
  timestamp: 'a date-time (TIMESTAMP)',
  string: 'a string (UTF8)',
  struct: 'an object (STRUCT)',
  list: 'an array (LIST)',
};

function shown(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Rough bytes a converted value holds, for sizing row groups. */
export interface SizeCounter {
  bytes: number;
}

function convert(value: unknown, shape: FieldShape, path: string, size: SizeCounter): unknown {
  if (value === null || value === undefined) {
    if (shape.nullable) return null;
    throw new ParquetValueError(
      `${path} is ${value === null ? 'null' : 'missing'}, but openapi.yaml requires ${WHAT[shape.type]}`,
    );
  }
  const wrong = () =>
    new ParquetValueError(`${path} must be ${WHAT[shape.type]} (D27), got ${shown(value)}`);
  switch (shape.type) {
    case 'string':
      if (typeof value !== 'string') throw wrong();
      size.bytes += value.length + 4;
      return value;
    case 'int64':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw wrong();
      size.bytes += 8;
      return BigInt(value);
    case 'double':
      if (typeof value !== 'number') throw wrong();
      size.bytes += 8;
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong();
      size.bytes += 1;
      return value;
    case 'timestamp': {
      const ms =
        typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) throw wrong();
      size.bytes += 8;
      // The INT64 itself (milliseconds since the epoch, UTC): a BigInt is a quarter of a Date's
      // heap (bench/export README), and the column is INT64 either way.
      return BigInt(ms);
    }
    case 'list': {
      if (!Array.isArray(value)) throw wrong();
      size.bytes += 4;
      return value.map((element, i) => convert(element, shape.element, `${path}[${i}]`, size));
    }
    case 'struct': {
      if (typeof value !== 'object' || Array.isArray(value)) throw wrong();
      const object = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of shape.fields) {
        out[field.name] = convert(object[field.name], field.shape, `${path}.${field.name}`, size);
      }
      return out;
    }
  }
}

/**
 * The column values of one row, in the shape's field order. Properties the schema does not
 * declare are not columns (as in CSV). `label` names the record in an error.
 */
export function rowValues(
  record: Record<string, unknown>,
  shape: RecordShape,
  label: string,
  size: SizeCounter,
): unknown[] {
  return shape.fields.map((field) => {
    try {
      return convert(record[field.name], field.shape, field.name, size);
    } catch (error) {
      if (error instanceof ParquetValueError) {
        throw new ParquetValueError(`${label}: ${error.message}`);
      }
      throw error;
    }
  });
}
