/**
 * The wire types generated from openapi.yaml (the single source of truth), as `@rcs/client`
 * exports them. The mock's answers are typed against them so that a drift of the contract fails
 * the type check.
 */
import type { Language } from '@rcs/client';

export type {
  AnalysisItem,
  CreateRealCallSessionRequest,
  components,
  Kpis,
  Language,
  MissionAssignmentExportRecord,
  operations,
  Problem,
  ProblemCode,
  RealCallSession,
  RealCallSessionExportRecord,
  SprintExportRecord,
  TeamExportRecord,
  TrackAssignmentExportRecord,
  TrackExportRecord,
  UserExportRecord,
} from '@rcs/client';

export const LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'zh-Hans',
] as const satisfies readonly Language[];
