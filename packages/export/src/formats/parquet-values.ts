/**
 * The rows of a Parquet row group while it fills, one compact store per top-level column, and
 * each column, when the group is written, in the form hyparquet-writer's public
 * `ParquetWriter.write({ columnData })` takes (issue 26: the library's public API only; it does
 * the Dremel shredding and the encoding):
 *
 * - string: kept as UTF-8 bytes while the group fills, a string again when it is written;
 * - int64: a BigInt (the library writes INT64 from BigInts only);
 * - timestamp: milliseconds since the epoch, UTC (the library makes them INT64);
 * - double, boolean: as in the record;
 * - struct and list: kept as JSON text while the group fills, then a new object with the
 *   schema's properties only (a property the schema does not declare is not written, D27), or
 *   a new array of converted elements, when an integer or a date-time lies inside; otherwise
 *   the parsed object or array;
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
    return `${this.path} must be ${WHAT[this.type]} (D27), got ${shown(this.value)}`;
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

/**
 * The value in the form the writer takes, counting its uncompressed bytes into `size`. With
 * `build` false (a row being checked) nothing is built: a struct or list comes back as given.
 */
function converted(shape: FieldShape, value: unknown, size: SizeCounter, build: boolean): unknown {
  if (value === null || value === undefined) {
    if (!shape.nullable) throw new Misfit(shape.type, value);
    return null;
  }
  switch (shape.type) {
    case 'string':
      if (typeof value !== 'string') throw new Misfit(shape.type, value);
      // UTF-16 code units: the UTF-8 length for ASCII, close enough to size a group.
      size.bytes += value.length + 4;
      return value;
    case 'int64':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
        throw new Misfit(shape.type, value);
      }
      size.bytes += 8;
      return build ? BigInt(value) : value;
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
      const copy = build && !writtenAsIs(shape);
      const out: Record<string, unknown> = copy ? {} : object;
      for (const field of shape.fields) {
        try {
          const v = converted(field.shape, object[field.name], size, build);
          if (copy) out[field.name] = v;
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`.${field.name}`) : caught;
        }
      }
      return out;
    }
    case 'list': {
      if (!Array.isArray(value)) throw new Misfit('list', value);
      const copy = build && !writtenAsIs(shape);
      const out = copy ? new Array<unknown>(value.length) : value;
      for (let i = 0; i < value.length; i++) {
        try {
          const v = converted(shape.element, value[i], size, build);
          if (copy) out[i] = v;
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`[${i}]`) : caught;
        }
      }
      return out;
    }
  }
}

/** A growable array of 32-bit integers outside V8's heap. */
class Int32List {
  #items = new Int32Array(1024);
  length = 0;

  push(a: number, b: number, c: number): void {
    if (this.length + 3 > this.#items.length) {
      const grown = new Int32Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.length++] = a;
    this.#items[this.length++] = b;
    this.#items[this.length++] = c;
  }

  at(i: number): number {
    return this.#items[i]!;
  }

  clear(): void {
    this.length = 0;
  }
}

/** A growable array of doubles outside V8's heap; NaN is a null (no number here is NaN: D29). */
class Float64List {
  #items = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.#items.length) {
      const grown = new Float64Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.length++] = value;
  }

  at(i: number): number {
    return this.#items[i]!;
  }

  clear(): void {
    this.length = 0;
  }
}

/** Blocks start at 64 KiB (a table of a few rows), each next one twice the last, up to 1 MiB. */
const FIRST_BLOCK = 64 * 1024;
const BLOCK = 1024 * 1024;

/**
 * Text as UTF-8 bytes in blocks of up to 1 MiB (each value whole in one block), outside V8's heap:
 * a value costs its bytes and 12 bytes of position, where a JavaScript string kept for the group
 * costs a heap object that survives every young-generation collection until the group is written.
 */
class Utf8Blocks {
  #blocks: Buffer[] = [];
  /** The block being filled (an index in #blocks). */
  #current = -1;
  #used = 0;
  /** Per value: its block, its start, its length in bytes (-1: null). */
  #where = new Int32List();

  get length(): number {
    return this.#where.length / 3;
  }

  /** Adds a value; returns its bytes. */
  push(text: string | null): number {
    if (text === null) {
      this.#where.push(0, 0, -1);
      return 0;
    }
    // At most 3 bytes of UTF-8 per UTF-16 code unit.
    const most = text.length * 3;
    if (this.#current < 0 || this.#used + most > this.#blocks[this.#current]!.length) {
      this.#current++;
      const kept = this.#blocks[this.#current];
      if (!kept || kept.length < most) {
        const last = this.#blocks[this.#current - 1]?.length ?? FIRST_BLOCK / 2;
        this.#blocks[this.#current] = Buffer.allocUnsafe(Math.max(Math.min(2 * last, BLOCK), most));
      }
      this.#used = 0;
    }
    const written = this.#blocks[this.#current]!.write(text, this.#used);
    this.#where.push(this.#current, this.#used, written);
    this.#used += written;
    return written;
  }

  /**
   * Empties the store and keeps its blocks for the next group: the garbage collector frees an
   * ArrayBuffer only when its owner dies in a full collection, so new blocks for every group
   * would hold two groups of bytes at once. (Nothing outside keeps a view of them: text leaves
   * as strings.)
   */
  clear(): void {
    this.#where.clear();
    this.#current = -1;
    this.#used = 0;
  }

  /** Value i as a string, or null. */
  text(i: number): string | null {
    const length = this.#where.at(3 * i + 2);
    if (length < 0) return null;
    const start = this.#where.at(3 * i + 1);
    return this.#blocks[this.#where.at(3 * i)]!.toString('utf8', start, start + length);
  }
}

/**
 * One top-level column of the open row group: takes each row's value as `converted` checked it
 * (a struct or list as given), and gives the column as hyparquet-writer takes it.
 */
interface ColumnStore {
  push(value: unknown): void;
  values(): unknown[];
  /** Empty again, keeping what it allocated. */
  clear(): void;
}

/**
 * UTF8: the bytes while the group fills, strings again when it is written. Not views of the
 * blocks: the writer keeps each column chunk's min and max values until the footer, and a view
 * would keep its whole block alive until then.
 */
function textStore(size: SizeCounter): ColumnStore {
  const blocks = new Utf8Blocks();
  return {
    push(value) {
      // The row was counted as UTF-16 length + 4; the bytes are what PLAIN writes.
      if (typeof value === 'string') size.bytes += blocks.push(value) - value.length;
      else blocks.push(null);
    },
    values: () => Array.from({ length: blocks.length }, (_, i) => blocks.text(i)),
    clear: () => blocks.clear(),
  };
}

/** INT64 (as BigInts, what the writer takes), TIMESTAMP (milliseconds) and DOUBLE. */
function numberStore(shape: FieldShape): ColumnStore {
  const numbers = new Float64List();
  const bigint = shape.type === 'int64';
  return {
    push: (value) => numbers.push(value === null ? Number.NaN : (value as number)),
    values: () =>
      Array.from({ length: numbers.length }, (_, i) => {
        const n = numbers.at(i);
        if (Number.isNaN(n)) return null;
        return bigint ? BigInt(n) : n;
      }),
    clear: () => numbers.clear(),
  };
}

function booleanStore(): ColumnStore {
  let values: (boolean | null)[] = [];
  return {
    push: (value) => values.push(value as boolean | null),
    values: () => values,
    clear: () => {
      values = [];
    },
  };
}

/**
 * STRUCT and LIST: the value as JSON text in UTF-8 blocks, parsed and converted again when the
 * column is written (the objects would otherwise stay in the heap for the whole group).
 */
function nestedStore(shape: FieldShape): ColumnStore {
  const blocks = new Utf8Blocks();
  const uncounted = { bytes: 0 };
  return {
    push: (value) => blocks.push(value === null ? null : JSON.stringify(value)),
    values: () =>
      Array.from({ length: blocks.length }, (_, i) => {
        const text = blocks.text(i);
        return text === null ? null : converted(shape, JSON.parse(text), uncounted, true);
      }),
    clear: () => blocks.clear(),
  };
}

function storeOf(shape: FieldShape, size: SizeCounter): ColumnStore {
  switch (shape.type) {
    case 'string':
      return textStore(size);
    case 'int64':
    case 'timestamp':
    case 'double':
      return numberStore(shape);
    case 'boolean':
      return booleanStore();
    case 'struct':
    case 'list':
      return nestedStore(shape);
  }
}

/** A column as ParquetWriter.write takes it. */
export interface TakenColumn {
  readonly name: string;
  readonly data: unknown[];
}

/**
 * The rows of one row group so far, column by column, held compactly (issue 26: the memory of
 * a 64 MiB group): text and nested values as UTF-8 bytes, numbers in typed arrays. Nothing of
 * the records is kept once a row is taken, so pages die young.
 */
export class ParquetColumns {
  readonly #fields: readonly NamedShape[];
  readonly #size: SizeCounter = { bytes: 0 };
  readonly #stores: ColumnStore[];
  /** The columns were taken: the stores are emptied when the next row comes. */
  #taken = false;
  /** One row's values, checked before any column takes them. */
  readonly #row: unknown[];
  rows = 0;

  constructor(fields: readonly NamedShape[]) {
    this.#fields = fields;
    this.#stores = fields.map((f) => storeOf(f.shape, this.#size));
    this.#row = fields.map(() => null);
  }

  /** Uncompressed bytes of the values taken so far (top-level text as UTF-8 bytes). */
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
        this.#row[c] = converted(this.#fields[c]!.shape, columnValue(c), this.#size, false);
      }
    } catch (caught) {
      this.#size.bytes = before;
      if (!(caught instanceof Misfit)) throw caught;
      const name = this.#fields[c]!.name;
      throw new ParquetValueError(`${label()}: ${caught.within(name).message()}`);
    }
    if (this.#taken) {
      for (const store of this.#stores) store.clear();
      this.#taken = false;
    }
    for (c = 0; c < this.#fields.length; c++) {
      this.#stores[c]!.push(this.#row[c]);
      this.#row[c] = null;
    }
    this.rows++;
  }

  /**
   * The columns taken so far, by name, and a fresh start for the next row group. Each column's
   * values are made when the writer reads its `data`, and only the last one read is kept, so a
   * group is whole in memory only as compact bytes (hyparquet-writer reads one column at a time).
   * The columns can be read until the next row is added (the stores are then reused).
   */
  take(): TakenColumn[] {
    const stores = this.#stores;
    this.#taken = true;
    this.#size.bytes = 0;
    this.rows = 0;
    let current: { index: number; data: unknown[] } | undefined;
    return this.#fields.map((f, index) => ({
      name: f.name,
      get data() {
        if (current?.index !== index) current = { index, data: stores[index]!.values() };
        return current.data;
      },
    }));
  }
}
