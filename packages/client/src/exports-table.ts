/**
 * The nine data exports, as one table. Everything that is "the nine" (the client's
 * `exports.<name>` methods, the CLI's resource names and CSV columns, the mock's handlers) is
 * derived from this table, so adding a tenth export is one row here (plus its schema in
 * openapi.yaml).
 */
export const EXPORT_TABLE = [
  {
    resource: 'real-call-sessions',
    name: 'realCallSessions',
    path: '/api/v1/data-exports/real-call-sessions',
    operationId: 'exportRealCallSessions',
    schema: 'RealCallSessionExportRecord',
  },
  {
    resource: 'track-assignments',
    name: 'trackAssignments',
    path: '/api/v1/data-exports/track-assignments',
    operationId: 'exportTrackAssignments',
    schema: 'TrackAssignmentExportRecord',
  },
  {
    resource: 'mission-assignments',
    name: 'missionAssignments',
    path: '/api/v1/data-exports/mission-assignments',
    operationId: 'exportMissionAssignments',
    schema: 'MissionAssignmentExportRecord',
  },
  {
    resource: 'sprints',
    name: 'sprints',
    path: '/api/v1/data-exports/sprints',
    operationId: 'exportSprints',
    schema: 'SprintExportRecord',
  },
  {
    resource: 'users',
    name: 'users',
    path: '/api/v1/data-exports/users',
    operationId: 'exportUsers',
    schema: 'UserExportRecord',
  },
  {
    resource: 'tracks',
    name: 'tracks',
    path: '/api/v1/data-exports/tracks',
    operationId: 'exportTracks',
    schema: 'TrackExportRecord',
  },
  {
    resource: 'scorecards',
    name: 'scorecards',
    path: '/api/v1/data-exports/scorecards',
    operationId: 'exportScorecards',
    schema: 'ScorecardExportRecord',
  },
  {
    resource: 'missions',
    name: 'missions',
    path: '/api/v1/data-exports/missions',
    operationId: 'exportMissions',
    schema: 'MissionExportRecord',
  },
  {
    resource: 'teams',
    name: 'teams',
    path: '/api/v1/data-exports/teams',
    operationId: 'exportTeams',
    schema: 'TeamExportRecord',
  },
] as const;

export type ExportEntry = (typeof EXPORT_TABLE)[number];
/** A path name of an export, as the CLI takes it: `real-call-sessions`, `users`, … */
export type ExportResource = ExportEntry['resource'];
/** The camelCase name of an export, as the client exposes it: `exports.realCallSessions`. */
export type ExportName = ExportEntry['name'];

export const EXPORT_RESOURCES: readonly ExportResource[] = EXPORT_TABLE.map((e) => e.resource);
