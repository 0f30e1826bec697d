/**
 * Rows into leaf columns (D27's streaming writer): each value of a row goes straight to the
 * buffers of its leaf (parquet-chunk.ts) with its definition and repetition levels, the
 * Dremel way, following the schema of parquet-schema.ts:
 *
 * - a nullable node adds one definition level when present; a list adds one more for its
 *   repeated `list` group, and its elements after the first repeat at the list's level;
 * - a null or missing value, an empty list, or a null list: one entry (a null) in every leaf
 *   below, at the level of what is present;
 * - string, double, boolean as in the record (-0 as 0); int64: a safe integer; timestamp:
 *   RFC 3339 text, stored as milliseconds since the epoch, UTC (a finer value is refused);
 * - a property the schema does not declare is not written (D27).
 *
 * A value the schema cannot hold is never coerced or dropped (D27): the row is refused with a
 * ParquetValueError naming the property (its path, built only on that error's way out) and the
 * value. The leaves may then hold part of that row: the encoder refuses to go on (the export
 * fails and its file is never completed).
 */
import { DATE_TIME } from '@rcs/client/internal';
import { ExportError } from '../errors.js';
import type { FieldShape, NamedShape } from '../shape.js';
import type { LeafChunk, LeafKind } from './parquet-chunk.js';

/** A value the schema's type cannot hold (D27); the export fails and nothing is replaced. */
export class ParquetValueError extends ExportError {
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

/** Whether an RFC 3339 date-time (D29-checked) has a fraction digit other than 0 past the third. */
function finerThanMs(text: string): boolean {
  // Digits from index 20 on follow the fraction's dot; an offset's (+02:00) end before index 22.
  for (let i = 20; text[i]! >= '0' && text[i]! <= '9'; i++) {
    if (i > 22 && text[i] !== '0') return true;
  }
  return false;
}
const FINER =
  'the column holds milliseconds and this value is finer; the jsonl or csv format keeps it as text';

/** A value that is there (Misfit.message words null and missing itself), shortened. */
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Thrown where a value does not fit; each level it passes on the way out puts its part of the
 * path in front (`.field`, `[i]`, then the column's name), so the common case builds no path.
 */
export class Misfit {
  path = '';
  constructor(
    readonly type: FieldShape['type'],
    readonly value: unknown,
    readonly why?: string,
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
    return `${this.path} must be ${WHAT[this.type]}, got ${shown(this.value)}${this.why ? `: ${this.why}` : ''}`;
  }
}

/** A node of the schema, with the leaves below it. */
export type ShredNode =
  | {
      type: LeafKind;
      nullable: boolean;
      leaf: LeafChunk;
      leaves: readonly LeafChunk[];
    }
  | {
      type: 'struct';
      nullable: boolean;
      fields: readonly { name: string; node: ShredNode }[];
      leaves: readonly LeafChunk[];
    }
  | {
      type: 'list';
      nullable: boolean;
      element: ShredNode;
      /** The repetition level of the list's elements. */
      repeat: number;
      leaves: readonly LeafChunk[];
    };

/** Makes a leaf for a scalar at a path (in schema order, as the file's columns go). */
export type LeafMaker = (
  path: readonly string[],
  kind: LeafKind,
  levels: { maxDef: number; maxRep: number },
) => LeafChunk;

/** The shredding tree of a column, making its leaves in schema order. */
export function shredNodeOf(
  path: readonly string[],
  shape: FieldShape,
  def: number,
  rep: number,
  makeLeaf: LeafMaker,
): ShredNode {
  const present = shape.nullable ? def + 1 : def;
  switch (shape.type) {
    case 'struct': {
      const fields = shape.fields.map((f: NamedShape) => ({
        name: f.name,
        node: shredNodeOf([...path, f.name], f.shape, present, rep, makeLeaf),
      }));
      return {
        type: 'struct',
        nullable: shape.nullable,
        fields,
        leaves: fields.flatMap((f) => f.node.leaves),
      };
    }
    case 'list': {
      // name / repeated list / element: the repeated group adds a level of each kind.
      const element = shredNodeOf(
        [...path, 'list', 'element'],
        shape.element,
        present + 1,
        rep + 1,
        makeLeaf,
      );
      return {
        type: 'list',
        nullable: shape.nullable,
        element,
        repeat: rep + 1,
        leaves: element.leaves,
      };
    }
    default: {
      const leaf = makeLeaf(path, shape.type, { maxDef: present, maxRep: rep });
      return { type: shape.type, nullable: shape.nullable, leaf, leaves: [leaf] };
    }
  }
}

function nulls(node: ShredNode, def: number, rep: number): void {
  for (const leaf of node.leaves) leaf.addNull(def, rep);
}

/** Writes one value of a node whose parent is present at `def`, at repetition level `rep`. */
export function shred(node: ShredNode, value: unknown, def: number, rep: number): void {
  if (value === null || value === undefined) {
    if (!node.nullable) throw new Misfit(node.type, value);
    nulls(node, def, rep);
    return;
  }
  const present = node.nullable ? def + 1 : def;
  switch (node.type) {
    case 'string':
      if (typeof value !== 'string') throw new Misfit(node.type, value);
      node.leaf.addString(value, present, rep);
      return;
    case 'int64':
      if (!Number.isSafeInteger(value)) throw new Misfit(node.type, value);
      node.leaf.addNumber(value as number, present, rep);
      return;
    case 'double':
      if (typeof value !== 'number') throw new Misfit(node.type, value);
      // -0 + 0 is 0: -0 is written as 0, as JSONL and CSV write it (one rule, FORMATS.md).
      node.leaf.addNumber(value + 0, present, rep);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') throw new Misfit(node.type, value);
      node.leaf.addBoolean(value, present, rep);
      return;
    case 'timestamp': {
      // D27 stores milliseconds, UTC: Date.parse of an RFC 3339 date-time (D29 checked it exists).
      const ms =
        typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(ms)) throw new Misfit(node.type, value);
      // Date.parse would drop digits past the millisecond: refused, never truncated.
      if (finerThanMs(value as string)) throw new Misfit(node.type, value, FINER);
      node.leaf.addNumber(ms, present, rep);
      return;
    }
    case 'struct': {
      if (typeof value !== 'object' || Array.isArray(value)) throw new Misfit('struct', value);
      const object = value as Record<string, unknown>;
      for (const field of node.fields) {
        try {
          shred(field.node, object[field.name], present, rep);
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`.${field.name}`) : caught;
        }
      }
      return;
    }
    case 'list': {
      if (!Array.isArray(value)) throw new Misfit('list', value);
      if (value.length === 0) {
        nulls(node, present, rep);
        return;
      }
      for (let i = 0; i < value.length; i++) {
        try {
          shred(node.element, value[i], present + 1, i === 0 ? rep : node.repeat);
        } catch (caught) {
          throw caught instanceof Misfit ? caught.within(`[${i}]`) : caught;
        }
      }
      return;
    }
  }
}
