/**
 * CSV columns of the nine exports and of the sessions' items child table, derived from the one
 * description of each record: the shapes generated from openapi.yaml (generated/record-shapes.ts),
 * which also give the Parquet schema and, being the schema's properties in order, the JSON shape.
 * Columns follow the schema's property order, never the order of whatever record comes first.
 *
 * Mapping (documented in packages/export/FORMATS.md):
 * - a nested object is flattened into dotted columns (`analysis.score`);
 * - an array (of scalars or of objects) is one column holding JSON text;
 * - every property of the schema is a column, optional ones included (empty when absent).
 */
import type { ExportResource } from '@rcs/client';
import type { NamedShape, RecordShape } from '../shape.js';
import { recordShapeOf, SESSION_ITEM_SHAPE } from './parquet-schema.js';

/** Dotted leaf paths of a record: nested objects are walked, arrays and scalars are leaves. */
function leafPaths(fields: readonly NamedShape[], prefix = ''): string[] {
  return fields.flatMap(({ name, shape }) =>
    shape.type === 'struct' ? leafPaths(shape.fields, `${prefix}${name}.`) : [`${prefix}${name}`],
  );
}

/** The CSV columns of a table whose rows have this shape. */
export function csvColumnsOf(shape: RecordShape): readonly string[] {
  return leafPaths(shape.fields);
}

export function columnsOf(resource: ExportResource): readonly string[] {
  return csvColumnsOf(recordShapeOf(resource));
}

/**
 * The child table of real-call sessions: one row per `analysis.items[]` element, keyed by the
 * session's id and the item's position (items carry no id of their own), then the item's
 * properties in the order of RealCallSessionExportItem (D10: `solved` never `undetected`/null).
 */
export const SESSION_ITEM_COLUMNS = csvColumnsOf(SESSION_ITEM_SHAPE);
/** The item's own columns: all but the key (sessionId, itemIndex). */
export const SESSION_ITEM_FIELDS = SESSION_ITEM_COLUMNS.slice(2);

/** Which resource writes the items child table, and under which file name. */
export const SESSION_ITEMS_RESOURCE = 'real-call-sessions' satisfies ExportResource;
export const SESSION_ITEMS_FILE_STEM = 'real-call-session-items';
