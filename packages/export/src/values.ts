/**
 * D29: values that cannot be true fail the run, in every format alike, before any format sees
 * them, with one line naming the export, the record id, the field and the value:
 *
 * - a date-time (`format: date-time` in openapi.yaml, from the generated record shapes) that is
 *   not an RFC 3339 date-time or does not exist (`2026-02-30T00:00:00Z`, hour 24, offset +25:00);
 *   a leap second (`:60`) is refused too: JavaScript, Parquet's TIMESTAMP and most warehouses
 *   cannot hold it, and shifting it by a second would be a silent change;
 * - a number that is not finite (`1e400` parses as Infinity);
 * - text that is not valid Unicode: a lone surrogate in a string or a property name, or bytes
 *   that were not UTF-8 on the wire (the client hands them on as lone surrogates, not U+FFFD).
 *
 * Nothing is shifted or replaced: JSONL would write `null` for Infinity, CSV `Infinity`, Parquet
 * +inf, and Date would roll 2026-02-30 over to 2026-03-02.
 */
import type { ExportResource } from '@rcs/client';
import { dateTimeProblem } from '@rcs/client/internal';
import { ExportError } from './errors.js';
import type { ApiRecord } from './formats/encoders.js';
import { recordShapeOf } from './formats/parquet-schema.js';
import type { FieldShape } from './shape.js';

export class ImpossibleValueError extends ExportError {
  override name = 'ImpossibleValueError';
}

/**
 * Bytes that were not UTF-8 on the wire arrive as lone surrogates U+DC80-U+DCFF (the client's
 * utf8-escape.ts), so they are named as such.
 */
const ESCAPED_BYTE = /[\udc80-\udcff]/u;

function unicodeProblem(text: string): string {
  return ESCAPED_BYTE.test(text)
    ? 'text that is not valid Unicode (bytes that are not UTF-8 on the wire, shown as \\udcXX, or a lone surrogate)'
    : 'text that is not valid Unicode (a lone surrogate)';
}

/**
 * Well-formed means no lone surrogate (a surrogate pair is one code point). `isWellFormed` is
 * native and answers a one-byte string at once, where a `/\p{Surrogate}/u` scan reads every
 * character of every transcript.
 */
function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

type Shape = FieldShape | undefined;

/** Field shapes by name, per struct shape (built once). */
const FIELDS = new WeakMap<object, Map<string, FieldShape>>();

function fieldsOf(shape: Extract<FieldShape, { type: 'struct' }>): Map<string, FieldShape> {
  let fields = FIELDS.get(shape);
  // Stryker disable next-line ConditionalExpression: the cache gives speed, never another answer
  if (!fields) {
    fields = new Map(shape.fields.map((f) => [f.name, f.shape]));
    // Stryker disable next-line CallExpression: the cache gives speed, never another answer
    FIELDS.set(shape, fields);
  }
  return fields;
}

function shown(value: unknown): string {
  // JSON.stringify writes a lone surrogate as its escape (\ud800): the line stays valid text.
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Records nest a few levels; far deeper overflows every reader's stack: refused here by name. */
const MAX_NESTING = 1000;
const NESTED_TOO_DEEP = `a value nested deeper than ${MAX_NESTING} levels, which no export format is made to hold`;

/** Thrown at the value; each level on the way out puts its part of the path in front. */
class Impossible {
  path = '';
  constructor(
    readonly shown: string,
    readonly why: string,
  ) {}
  within(segment: string): Impossible {
    this.path = segment + this.path;
    return this;
  }
}

function check(value: unknown, shape: Shape, depth = 0): void {
  switch (typeof value) {
    case 'string':
      if (hasLoneSurrogate(value)) throw new Impossible(shown(value), unicodeProblem(value));
      if (shape?.type === 'timestamp') {
        const problem = dateTimeProblem(value);
        if (problem) throw new Impossible(shown(value), problem);
      }
      return;
    case 'number':
      if (!Number.isFinite(value))
        throw new Impossible(shown(value), 'a number that is not finite');
      return;
    case 'object': {
      if (value === null) return;
      if (depth === MAX_NESTING) {
        throw new Impossible(Array.isArray(value) ? '[…]' : '{…}', NESTED_TOO_DEEP);
      }
      if (Array.isArray(value)) {
        // Stryker disable next-line all: no export has a date-time below a list (record-shapes.ts), so today the element's shape changes no answer; it is passed on for when one does
        const element = shape?.type === 'list' ? shape.element : undefined;
        for (const [i, item] of value.entries()) {
          try {
            check(item, element, depth + 1);
          } catch (caught) {
            throw caught instanceof Impossible ? caught.within(`[${i}]`) : caught;
          }
        }
        return;
      }
      const fields = shape?.type === 'struct' ? fieldsOf(shape) : undefined;
      for (const key of Object.keys(value)) {
        if (hasLoneSurrogate(key)) {
          throw new Impossible(shown(key), 'a property name that is not valid Unicode').within(
            `.${shown(key)}`,
          );
        }
        try {
          check((value as Record<string, unknown>)[key], fields?.get(key), depth + 1);
        } catch (caught) {
          throw caught instanceof Impossible ? caught.within(`.${key}`) : caught;
        }
      }
      return;
    }
  }
}

/** Checks a page of one export's records (D29); throws ImpossibleValueError at the first. */
export function checkRecordValues(resource: ExportResource, records: readonly ApiRecord[]): void {
  const shape = recordShapeOf(resource);
  for (const record of records) {
    try {
      check(record, shape);
    } catch (caught) {
      // Stryker disable next-line ConditionalExpression: check throws nothing else (anything else is a bug, rethrown as it is)
      if (!(caught instanceof Impossible)) throw caught;
      const path = caught.path.slice(1);
      const field = path.length > 80 ? `${path.slice(0, 77)}...` : path;
      throw new ImpossibleValueError(
        `${resource}: record ${shown(record.id)}: ${field} is ${caught.shown}, ${caught.why}`,
      );
    }
  }
}
