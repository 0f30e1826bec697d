import type { components, operations, paths } from './generated/openapi.js';

/** Names of the API's own schemas, re-exported so callers need not reach into generated/. */
type Schemas = components['schemas'];
export type RealCallSession = Schemas['RealCallSession'];
export type CreateRealCallSessionRequest = Schemas['CreateRealCallSessionRequest'];
export type Call = Schemas['Call'];
export type Analysis = Schemas['Analysis'];
export type AnalysisItem = Schemas['AnalysisItem'];
export type Behaviour = Schemas['Behaviour'];
export type Kpis = Schemas['Kpis'];
export type Problem = Schemas['Problem'];
export type ProblemCode = Schemas['ProblemCode'];
export type Language = Schemas['Language'];
export type ExportMeta = Schemas['ExportMeta'];
export type RealCallSessionExportRecord = Schemas['RealCallSessionExportRecord'];
export type TrackAssignmentExportRecord = Schemas['TrackAssignmentExportRecord'];
export type MissionAssignmentExportRecord = Schemas['MissionAssignmentExportRecord'];
export type SprintExportRecord = Schemas['SprintExportRecord'];
export type UserExportRecord = Schemas['UserExportRecord'];
export type TrackExportRecord = Schemas['TrackExportRecord'];
export type ScorecardExportRecord = Schemas['ScorecardExportRecord'];
export type MissionExportRecord = Schemas['MissionExportRecord'];
export type TeamExportRecord = Schemas['TeamExportRecord'];
export type SessionState = RealCallSession['state'];

export type { components, operations, paths };
