/**
 * Issue 13: the rows of a Parquet row group, kept column by column as they arrive (the Dremel
 * "shredding" that hyparquet-writer would otherwise do at write time from row objects).
 *
 * Each leaf column of the schema holds its values in one array and its definition and
 * repetition levels in byte arrays that are reused from one row group to the next. A record
 * costs no object of its own while it waits for its row group: no per-row array of converted
 * values, no copy of each struct, no copy of each list, no BigInt (INT64 and TIMESTAMP values
 * wait as numbers and become BigInts only while their column is encoded). That garbage, and the
 * error-path strings built for every value, were most of what `--format parquet` allocated
 * (bench/export/README.md, "Parquet and --changes").
 *
 * The values and levels are exactly those of hyparquet-writer's `encodeNestedValues` for the
 * same rows (test/unit/export/parquet-columns.test.ts compares them, and the files byte for
 * byte). A value the schema cannot hold is never coerced or dropped: the row is refused with a
 * ParquetValueError naming the property (its path, built only on that error's way out) and the
 * value, and the caller puts the record's name in front.
 */
import type { FieldShape, NamedShape } from '../shape.js';

/** A growable byte array whose storage is kept from one row group to the next. */
class Levels {
  bytes = new Uint8Array(1024);
  length = 0;

  push(level: number): void {
    if (this.length === this.bytes.length) {
      const bigger = new Uint8Array(this.bytes.length * 2);
      bigger.set(this.bytes);
      this.bytes = bigger;
    }
    this.bytes[this.length++] = level;
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** One leaf (primitive) column: its values, levels and where it sits in the schema. */
export interface Leaf {
  /** Strings, numbers and booleans as in the record (INT64 and TIMESTAMP as numbers); null. */
  values: (string | number | boolean | null)[];
  readonly definitionLevels: Levels;
  readonly repetitionLevels: Levels;
  /** Converted to BigInt when the column is encoded (INT64, TIMESTAMP). */
  readonly int64: boolean;
  readonly maxDefinitionLevel: number;
  /** A top-level column (no struct or list above it): levels as hyparquet's flat cases. */
  readonly flat: boolean;
}

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

const typeOf = (node: Node): FieldShape['type'] =>
  node.kind === 'scalar' ? node.shape.type : node.kind;

/** RFC 3339 date-time (what `format: date-time` means); D27 stores milliseconds, UTC. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

type Node =
  | { kind: 'scalar'; shape: FieldShape; nullable: boolean; leaf: Leaf; leaves: Leaf[] }
  | {
      kind: 'struct';
      nullable: boolean;
      fields: { name: string; node: Node }[];
      leaves: Leaf[];
    }
  | { kind: 'list'; nullable: boolean; element: Node; repetition: number; leaves: Leaf[] };

/** Rough bytes a row holds, for sizing row groups. */
export interface SizeCounter {
  bytes: number;
}

export class ColumnBuffers {
  /** The leaves in schema order (depth first), as hyparquet's `getLeafSchemaPaths`. */
  readonly leaves: Leaf[] = [];
  /** Per top-level column, its leaves. */
  readonly columnLeaves: Leaf[][];
  readonly #columns: Node[];
  readonly #names: string[];
  /** Leaf lengths at the start of the current row, to take a refused row back out. */
  readonly #rowStart: Int32Array;
  rows = 0;

  constructor(columns: readonly NamedShape[]) {
    this.#columns = columns.map((c) => this.#node(c.shape, 0, 0, true));
    this.#names = columns.map((c) => c.name);
    this.columnLeaves = this.#columns.map((n) => n.leaves);
    this.#rowStart = new Int32Array(this.leaves.length * 3);
  }

  #node(shape: FieldShape, definition: number, repetition: number, top: boolean): Node {
    const d = definition + (shape.nullable ? 1 : 0);
    switch (shape.type) {
      case 'struct': {
        const fields = shape.fields.map((f) => ({
          name: f.name,
          node: this.#node(f.shape, d, repetition, false),
        }));
        return {
          kind: 'struct',
          nullable: shape.nullable,
          fields,
          leaves: fields.flatMap((f) => f.node.leaves),
        };
      }
      case 'list': {
        // name (OPTIONAL|REQUIRED) / list (REPEATED) / element: the repeated level adds one
        // definition level and one repetition level.
        const element = this.#node(shape.element, d + 1, repetition + 1, false);
        return {
          kind: 'list',
          nullable: shape.nullable,
          element,
          repetition: repetition + 1,
          leaves: element.leaves,
        };
      }
      default: {
        const leaf: Leaf = {
          values: [],
          definitionLevels: new Levels(),
          repetitionLevels: new Levels(),
          int64: shape.type === 'int64' || shape.type === 'timestamp',
          maxDefinitionLevel: d,
          flat: top,
        };
        this.leaves.push(leaf);
        return { kind: 'scalar', shape, nullable: shape.nullable, leaf, leaves: [leaf] };
      }
    }
  }

  /**
   * Adds one row; `columnValue(i)` gives the value of top-level column i. Throws a
   * ParquetValueError (`label: path ...`) and adds nothing if a value does not fit the schema.
   */
  addRow(columnValue: (column: number) => unknown, size: SizeCounter, label: () => string): void {
    const start = this.#rowStart;
    const leaves = this.leaves;
    for (let i = 0; i < leaves.length; i++) {
      const leaf = leaves[i]!;
      start[3 * i] = leaf.values.length;
      start[3 * i + 1] = leaf.definitionLevels.length;
      start[3 * i + 2] = leaf.repetitionLevels.length;
    }
    const before = size.bytes;
    let c = 0;
    try {
      for (; c < this.#columns.length; c++) {
        this.#shred(this.#columns[c]!, columnValue(c), 0, 0, size);
      }
    } catch (caught) {
      for (let i = 0; i < leaves.length; i++) {
        const leaf = leaves[i]!;
        leaf.values.length = start[3 * i]!;
        leaf.definitionLevels.length = start[3 * i + 1]!;
        leaf.repetitionLevels.length = start[3 * i + 2]!;
      }
      size.bytes = before;
      if (!(caught instanceof Misfit)) throw caught;
      throw new ParquetValueError(`${label()}: ${caught.within(this.#names[c]!).message()}`);
    }
    this.rows++;
  }

  #emit(leaf: Leaf, value: string | number | boolean | null, d: number, r: number): void {
    leaf.values.push(value);
    if (leaf.flat) {
      // hyparquet: a flat REQUIRED column has no levels, a flat OPTIONAL one no repetition.
      if (leaf.maxDefinitionLevel > 0) leaf.definitionLevels.push(d);
      return;
    }
    leaf.definitionLevels.push(d);
    leaf.repetitionLevels.push(r);
  }

  #shred(node: Node, value: unknown, d: number, r: number, size: SizeCounter): void {
    if (value === null || value === undefined) {
      if (!node.nullable) throw new Misfit(typeOf(node), value);
      for (const leaf of node.leaves) this.#emit(leaf, null, d, r);
      return;
    }
    const defined = node.nullable ? d + 1 : d;
    switch (node.kind) {
      case 'scalar': {
        let converted: string | number | boolean;
        switch (node.shape.type) {
          case 'string':
            if (typeof value !== 'string') throw new Misfit(node.shape.type, value);
            size.bytes += value.length + 4;
            converted = value;
            break;
          case 'int64':
            if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
              throw new Misfit(node.shape.type, value);
            }
            size.bytes += 8;
            converted = value;
            break;
          case 'double':
            if (typeof value !== 'number') throw new Misfit(node.shape.type, value);
            size.bytes += 8;
            converted = value;
            break;
          case 'boolean':
            if (typeof value !== 'boolean') throw new Misfit(node.shape.type, value);
            size.bytes += 1;
            converted = value;
            break;
          default: {
            // timestamp: milliseconds since the epoch, UTC.
            const ms =
              typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
            if (Number.isNaN(ms)) throw new Misfit(node.shape.type, value);
            size.bytes += 8;
            converted = ms;
          }
        }
        this.#emit(node.leaf, converted, defined, r);
        return;
      }
      case 'struct': {
        if (typeof value !== 'object' || Array.isArray(value)) throw new Misfit('struct', value);
        const object = value as Record<string, unknown>;
        for (const field of node.fields) {
          try {
            this.#shred(field.node, object[field.name], defined, r, size);
          } catch (caught) {
            throw caught instanceof Misfit ? caught.within(`.${field.name}`) : caught;
          }
        }
        return;
      }
      case 'list': {
        if (!Array.isArray(value)) throw new Misfit('list', value);
        size.bytes += 4;
        if (value.length === 0) {
          for (const leaf of node.leaves) this.#emit(leaf, null, defined, r);
          return;
        }
        for (let i = 0; i < value.length; i++) {
          try {
            this.#shred(node.element, value[i], defined + 1, i === 0 ? r : node.repetition, size);
          } catch (caught) {
            throw caught instanceof Misfit ? caught.within(`[${i}]`) : caught;
          }
        }
        return;
      }
    }
  }

  /** The page data of a leaf, as hyparquet-writer's `writeColumn` takes it. */
  static pageData(leaf: Leaf): {
    values: unknown[];
    definitionLevels: Uint8Array | number[];
    repetitionLevels: Uint8Array | number[];
    maxDefinitionLevel: number;
  } {
    const values = leaf.int64
      ? leaf.values.map((v) => (v === null ? null : BigInt(v as number)))
      : leaf.values;
    const flat = leaf.flat;
    return {
      values,
      definitionLevels: flat && leaf.maxDefinitionLevel === 0 ? [] : leaf.definitionLevels.view(),
      repetitionLevels: flat ? [] : leaf.repetitionLevels.view(),
      maxDefinitionLevel: leaf.maxDefinitionLevel,
    };
  }

  /** Empties the buffers after a row group is written (the level storage is kept). */
  clear(): void {
    for (const leaf of this.leaves) {
      leaf.values = [];
      leaf.definitionLevels.length = 0;
      leaf.repetitionLevels.length = 0;
    }
    this.rows = 0;
  }
}
