/**
 * From one API record to the cells of one CSV row (mapping: FORMATS.md, columns: columns.ts).
 *
 * - `null` and absent properties: an empty cell (CSV has no null; JSONL keeps the distinction);
 * - strings as they are, numbers in JavaScript's shortest round-trip form, booleans as
 *   `true`/`false`;
 * - arrays and objects that the schema does not flatten: JSON text in one cell;
 * - then formula neutralisation unless raw (neutralise.ts).
 */
import { neutraliseCell } from './neutralise.js';

export type Row = string[];

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  return JSON.stringify(value);
}

/** A row builder for a fixed column list: splits the dotted paths once, not once per record. */
export function rowBuilder(columns: readonly string[], raw: boolean): (record: unknown) => Row {
  const paths = columns.map((c) => c.split('.'));
  return (record) =>
    paths.map((keys) => {
      let value: unknown = record;
      for (const key of keys) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          value = undefined;
          break;
        }
        value = (value as Record<string, unknown>)[key];
      }
      const text = cellText(value);
      return raw ? text : neutraliseCell(text);
    });
}
