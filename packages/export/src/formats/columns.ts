import type { components, ExportEntry, ExportResource } from '@rcs/client';

/**
 * CSV column lists of the nine exports, in the schema's property order (openapi.yaml), never in
 * the order of whatever record happens to come first.
 *
 * Mapping (documented in packages/cli/EXPORT.md):
 * - a nested object is flattened into dotted columns (`analysis.score`);
 * - an array (of scalars or of objects) is one column holding JSON text;
 * - every property of the schema is a column, optional ones included (empty when absent).
 *
 * Two guards keep this table from drifting from the wire contract:
 * - the type below requires every entry to list exactly the leaf paths of the generated record
 *   type (a missing, extra or misspelt column fails `npm run typecheck`);
 * - columns.test.ts derives the same lists, in order, from openapi.yaml itself.
 */

type Schemas = components['schemas'];
type RecordOf<R extends ExportResource> = Schemas[Extract<ExportEntry, { resource: R }>['schema']];

/** Dotted leaf paths of a record: nested objects are walked, arrays and scalars are leaves. */
type LeafPaths<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends readonly unknown[]
    ? K
    : NonNullable<T[K]> extends Record<string, unknown>
      ? `${K}.${LeafPaths<NonNullable<T[K]>>}`
      : K;
}[keyof T & string];

/** A column list that names every leaf of `T` once: checked both ways at compile time. */
type Exhaustive<T, L extends readonly string[]> = [Exclude<LeafPaths<T>, L[number]>] extends [never]
  ? [Exclude<L[number], LeafPaths<T>>] extends [never]
    ? L
    : { error: 'column not in the schema'; column: Exclude<L[number], LeafPaths<T>> }
  : { error: 'schema property without a column'; column: Exclude<LeafPaths<T>, L[number]> };

export function columns<R extends ExportResource>() {
  return <const L extends readonly LeafPaths<RecordOf<R>>[]>(
    list: L & Exhaustive<RecordOf<R>, L>,
  ): L => list;
}

export const EXPORT_COLUMNS = {
  'real-call-sessions': columns<'real-call-sessions'>()([
    'id',
    'createdAt',
    'lastUpdatedAt',
    'learnerUserId',
    'transcript',
    'language',
    'completed',
    'analysis.score',
    'analysis.items',
    'missionId',
    'participantUserIds',
  ]),
  'track-assignments': columns<'track-assignments'>()([
    'id',
    'createdAt',
    'lastUpdatedAt',
    'learnerUserId',
    'trackId',
    'startDate',
    'dueDate',
    'status',
    'completedAt',
    'completedMissionIds',
    'assignedByUserId',
    'sprintId',
  ]),
  'mission-assignments': columns<'mission-assignments'>()([
    'id',
    'createdAt',
    'lastUpdatedAt',
    'learnerUserId',
    'missionId',
    'startDate',
    'dueDate',
    'status',
    'completedAt',
    'assignedByUserId',
    'sprintId',
  ]),
  sprints: columns<'sprints'>()([
    'id',
    'title',
    'createdAt',
    'lastUpdatedAt',
    'userId',
    'dueDate',
    'assignedTeamId',
  ]),
  users: columns<'users'>()(['id', 'email', 'firstName', 'lastName', 'teamIds', 'createdAt']),
  tracks: columns<'tracks'>()(['id', 'title', 'description', 'missionIds', 'archived']),
  scorecards: columns<'scorecards'>()(['id', 'title', 'language']),
  missions: columns<'missions'>()(['id', 'title', 'language']),
  teams: columns<'teams'>()(['id', 'name']),
} as const satisfies Record<ExportResource, readonly string[]>;

/**
 * The child table of real-call sessions: one row per `analysis.items[]` element, keyed by the
 * session's id and the item's position (items carry no id of their own), then the item's
 * properties in the order of RealCallSessionExportItem (D10: `solved` never `undetected`/null).
 */
type ItemColumn = LeafPaths<Schemas['RealCallSessionExportItem']>;
const ITEM_FIELDS = ['name', 'solved', 'explanation', 'suggestion', 'itemScore'] as const;
const itemFieldsAreExhaustive: Exhaustive<
  Schemas['RealCallSessionExportItem'],
  typeof ITEM_FIELDS
> = ITEM_FIELDS;
export const SESSION_ITEM_FIELDS: readonly ItemColumn[] = itemFieldsAreExhaustive;
export const SESSION_ITEM_COLUMNS = ['sessionId', 'itemIndex', ...SESSION_ITEM_FIELDS] as const;

/** Which resource writes the items child table, and under which file name. */
export const SESSION_ITEMS_RESOURCE = 'real-call-sessions' satisfies ExportResource;
export const SESSION_ITEMS_FILE_STEM = 'real-call-session-items';

export function columnsOf(resource: ExportResource): readonly string[] {
  return EXPORT_COLUMNS[resource];
}
