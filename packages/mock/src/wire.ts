/**
 * The wire types generated from openapi.yaml (the single source of truth). The mock's answers
 * are typed against them so that a drift of the contract fails the type check.
 *
 * Imported by relative path because `@rcs/client` does not (yet) re-export its generated types;
 * type-only, so nothing of the client is bundled into the mock at run time.
 */
import type { components, operations, paths } from '../../client/src/generated/openapi.js';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type RealCallSession = Schemas['RealCallSession'];
export type AnalysisItem = Schemas['AnalysisItem'];
export type Kpis = Schemas['Kpis'];
export type Language = Schemas['Language'];
export type Problem = Schemas['Problem'];
export type ProblemCode = Schemas['ProblemCode'];
export type ExportMeta = Schemas['ExportMeta'];
export type CreateRealCallSessionRequest = Schemas['CreateRealCallSessionRequest'];
export type RealCallSessionExportRecord = Schemas['RealCallSessionExportRecord'];
export type TrackAssignmentExportRecord = Schemas['TrackAssignmentExportRecord'];
export type MissionAssignmentExportRecord = Schemas['MissionAssignmentExportRecord'];
export type SprintExportRecord = Schemas['SprintExportRecord'];
export type UserExportRecord = Schemas['UserExportRecord'];
export type TrackExportRecord = Schemas['TrackExportRecord'];
export type ScorecardExportRecord = Schemas['ScorecardExportRecord'];
export type MissionExportRecord = Schemas['MissionExportRecord'];
export type TeamExportRecord = Schemas['TeamExportRecord'];

export const LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'zh-Hans',
] as const satisfies readonly Language[];
