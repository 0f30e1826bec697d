import { EXPORT_TABLE, type ExportName } from '@rcs/client';
import { http, type RequestHandler } from 'msw';
import { type Collection, filtered, slice } from '../collection.js';
import type { Mission, OrgData, Scorecard } from '../dataset.js';
import { sessionExportRecord, sessionView } from '../lifecycle.js';
import { parseArchived, parsePageQuery } from '../request-schemas.js';
import type { OrgState } from '../store.js';
import type { components } from '../wire.js';
import type { HandlerContext } from './context.js';
import { guarded, json } from './guard.js';

type Schemas = components['schemas'];
type RecordOf<N extends ExportName> = Schemas[Extract<
  (typeof EXPORT_TABLE)[number],
  { name: N }
>['schema']];

/** One export's records for a caller: a count and a page. */
interface ExportSource<T> {
  length: number;
  slice(start: number, end: number): T[];
}

const fromCollection = <T>(c: Collection<T>): ExportSource<T> => ({
  length: c.length,
  slice: (start, end) => slice(c, start, end),
});

/** The scorecard and mission exports return only id, title, language (mock-fixture.md). */
const summaries = (c: Collection<Scorecard | Mission>) => ({
  length: c.length,
  slice: (start: number, end: number) =>
    slice(c, start, end).map(({ id, title, language }) => ({ id, title, language })),
});

// Keyed by the organization's immutable data, so a reset() of the state does not rebuild it.
const archivedTracks = new WeakMap<OrgData, Collection<Schemas['TrackExportRecord']>>();

/**
 * The nine sources, keyed by EXPORT_TABLE's names: a tenth row in the table fails the type check
 * here until its source exists. Every list is in D9 order already.
 */
const SOURCES: {
  [N in ExportName]: (
    org: OrgState,
    now: number,
    query: URLSearchParams,
  ) => ExportSource<RecordOf<N>>;
} = {
  // D10: sessions in every state; the record is derived from the session as read now (D18).
  realCallSessions: (org, now) => ({
    length: org.sessions.length,
    slice: (start, end) =>
      org.sessions.slice(start, end).map((s) => sessionExportRecord(sessionView(s, now))),
  }),
  trackAssignments: (org) => fromCollection(org.data.trackAssignments),
  missionAssignments: (org) => fromCollection(org.data.missionAssignments),
  sprints: (org) => fromCollection(org.data.sprints),
  users: (org) => ({ length: org.users.length, slice: (s, e) => org.users.slice(s, e) }),
  tracks: (org, _now, query) => {
    // D8: archived=include (default) or only.
    if (parseArchived(query) === 'include') return fromCollection(org.data.tracks);
    let only = archivedTracks.get(org.data);
    if (!only) {
      only = filtered(org.data.tracks, (t) => t.archived);
      archivedTracks.set(org.data, only);
    }
    return fromCollection(only);
  },
  scorecards: (org) => summaries(org.data.scorecards),
  missions: (org) => summaries(org.data.missions),
  teams: (org) => fromCollection(org.data.teams),
};

/** Answers one export page request (D7–D10); the same code behind MSW and the direct route. */
export type ExportRoute = (request: Request) => Promise<Response>;

/**
 * The nine export operations by path (EXPORT_TABLE's, e.g. `/api/v1/data-exports/users`). The node
 * server calls these directly for a GET on one of the nine paths: MSW's matching of every handler
 * and its Request clone cost more than the page itself, and an export reads thousands of pages.
 */
export function exportRoutes(ctx: HandlerContext): Map<string, ExportRoute> {
  return new Map(
    EXPORT_TABLE.map((row) => [
      row.path,
      (request: Request) =>
        guarded(ctx, 'read', request, ({ org, now }) => {
          const query = new URL(request.url).searchParams;
          const { page, limit } = parsePageQuery(query);
          const source = SOURCES[row.name](org, now, query);
          const total = source.length;
          const start = (page - 1) * limit;
          // D7: a page past the end is 200 with data [] and the true total.
          const data = start >= total ? [] : source.slice(start, start + limit);
          return json({ data, meta: { total, page, limit, hasNext: start + limit < total } }, 200);
        }),
    ]),
  );
}

/** The nine export operations, one handler per EXPORT_TABLE row (D7–D10). */
export function exportHandlers(ctx: HandlerContext, routes = exportRoutes(ctx)): RequestHandler[] {
  return [...routes].map(([path, route]) => http.get(`*${path}`, ({ request }) => route(request)));
}
