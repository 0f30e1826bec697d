/**
 * The rows of a Parquet row group while it fills, one array per top-level column, each value
 * already in the form hyparquet-writer's public `ParquetWriter.write({ columnData })` takes
 * (issue 26: the library's public API only; it does the Dremel shredding and the encoding):
 *
 * - string, double, boolean: as in the record;
 * - int64: a BigInt (the library writes INT64 from BigInts only);
 * - timestamp: milliseconds since the epoch, UTC (the library makes them INT64);
 * - struct and list: a new object with the schema's properties only (a property the schema does
 *   not declare is not written, D27), or a new array of converted elements, when an integer or a
 *   date-time lies inside; otherwise the record's own object or array, checked and not copied
 *   (most of a group's objects: `analysis` and its items, lists of ids), which keeps the garbage
 *   collector's work down while a group fills;
 * - null or a missing property: null.
 *
 * A value the schema cannot hold is never coerced or dropped (D27): the row is refused with a
 * ParquetValueError naming the property (its path, built only on that error's way out) and the
 * value, the caller puts the record's name in front, and the rows already taken are unchanged.
 */
import type { FieldShape, NamedShape } from '../shape.js';

/** A value the schema's type cannot hold (D27); the export fails and nothing is replaced. */
export class ParquetValueError extends Error {
  override name = 'ParquetValueError';
}

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

/**
 * Thrown where a value does not fit; each level it passes on the way out puts its part of the
 * path in front (`.field`, `[i]`, then the column's name), so the common case builds no path.
 */
class Misfit {
  path = '';
  constructor(
    readonly type: FieldShape['type'],
    readonly value: unknown,
  ) {}

  within(segment: string): Misfit {
    this.path = segment + this.path;
    return this;
  }

  message(): string {
    if (this.value === null || this.value === undefined) {
      const what = this.value === null ? 'null' : 'missing';
      return `${this.path} is ${what}, but openapi.yaml requires ${WHAT[this.type]}`;
    }
    return `${this.path} must be ${WHAT[this.type]}, got ${shown(this.value)}`;
  }
}

/** RFC 3339 date-time (what `format: date-time` means); D27 stores milliseconds, UTC. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** Uncompressed bytes a value adds to its column (PLAIN encoding), for sizing row groups. */
export interface SizeCounter {
  bytes: number;
}

/** Whether a value of the shape is written as the record has it (no integer or date-time inside). */
const asIs = new WeakMap<FieldShape, boolean>();
function writtenAsIs(shape: FieldShape): boolean {
  let known = asIs.get(shape);
  if (known === undefined) {
    switch (shape.type) {
      case 'int64':
      case 'timestamp':
        known = false;
        break;
      case 'struct':
        known = shape.fields.every((f) => writtenAsIs(f.shape));
        break;
      case 'list':
        known = writtenAsIs(shape.element);
        break;
      default:
        known = true;
    }
    asIs.set(shape, known);
  }
  return known;
}

/** The value in the form the writer takes, counting its uncompressed bytes into `size`. */
function converted(shape: FieldShape, value: unknown, size: SizeCounter): unknown {
  if (value === null || value === undefined) {
    if (!shape.nullable) throw new Misfit(shape.type, value);
    return null;
  }
  switch (shape.type) {
    case 'string':
      if (typeof value !== 'string') throw new Misfit(shape.type, value);
      // As the file stores it (D27's 64 MiB are uncompressed bytes): its UTF-8 length, and the
      // 4-byte length prefix of PLAIN encoding.
      size.bytes += Buffer.byteLength(value, 'utf8') + 4;
      return value;
    case 'int64':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new Misfit(shape.type, value);
      }
      size.bytes += 8;
      return BigInt(value);
    case 'double':
      if (typeof value !== 'number') throw new Misfit(shape.type, value);
      size.bytes += 8;
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw new Misfit(shape.type, value);
      size.bytes += 1;
      return value;
    case 'timestamp': {
      const ms =
        typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) throw new Misfit(shape.type, value);
      size.bytes += 8;
      return ms;
    }
    case 'struct': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new Misfit('struct', value);
      const object = value as Record<string, unknown>;
      const same = writtenAsIs(shape);
      const out: Record<string, unknown> = same ? object : {};
      for (const field of shape.fields) {
        try {
          const v = converted(field.shape, object[field.name], size);
          if (!same) out[field.name] = v;
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`.${field.name}`) : caught;
        }
      }
      return out;
    }
    case 'list': {
      if (!Array.isArray(value)) throw new Misfit('list', value);
      const same = writtenAsIs(shape);
      const out = same ? value : new Array<unknown>(value.length);
      for (let i = 0; i < value.length; i++) {
        try {
          const v = converted(shape.element, value[i], size);
          if (!same) out[i] = v;
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`[${i}]`) : caught;
        }
      }
      return out;
    }
  }
}

/** The rows of one row group so far, column by column. */
export class ParquetColumns {
  readonly #fields: readonly NamedShape[];
  #columns: unknown[][];
  #size: SizeCounter = { bytes: 0 };
  rows = 0;

  constructor(fields: readonly NamedShape[]) {
    this.#fields = fields;
    this.#columns = fields.map(() => []);
  }

  /** Uncompressed bytes of the values taken so far (text counted as its UTF-8 bytes). */
  get bytes(): number {
    return this.#size.bytes;
  }

  /**
   * Adds one row; `columnValue(i)` gives the value of top-level column i. Throws a
   * ParquetValueError (`label: path ...`) and adds nothing if a value does not fit the schema.
   */
  addRow(columnValue: (column: number) => unknown, label: () => string): void {
    const before = this.#size.bytes;
    let c = 0;
    try {
      for (; c < this.#fields.length; c++) {
        this.#columns[c]!.push(converted(this.#fields[c]!.shape, columnValue(c), this.#size));
      }
    } catch (caught) {
      for (const column of this.#columns) column.length = this.rows;
      this.#size.bytes = before;
      if (!(caught instanceof Misfit)) throw caught;
      const name = this.#fields[c]!.name;
      throw new ParquetValueError(`${label()}: ${caught.within(name).message()}`);
    }
    this.rows++;
  }

  /** The columns taken so far, by name, and a fresh start for the next row group. */
  take(): { name: string; data: unknown[] }[] {
    const taken = this.#fields.map((f, i) => ({ name: f.name, data: this.#columns[i]! }));
    this.#columns = this.#fields.map(() => []);
    this.#size = { bytes: 0 };
    this.rows = 0;
    return taken;
  }
}
