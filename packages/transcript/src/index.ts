// @rcs/transcript: everything about transcripts, pure (no I/O, no dependencies, browser-safe).
export {
  CREATE_REQUEST_FIELDS,
  type CreateRequestField,
  type FieldRule,
  repDesignatorProblem,
  rule8RepSpeaks,
  TRANSCRIPT_MAX_LENGTH,
  TRANSCRIPT_MIN_LENGTH,
  UPLOAD_FIELDS,
} from './create-request.js';
export { type DecodeOptions, type DecodeResult, decodeTranscriptBytes } from './decode.js';
export { MAX_PER_CODE } from './diagnostics.js';
export { detectSource } from './importers/detect.js';
export {
  type ImportedSpeaker,
  type ImportOptions,
  type ImportResult,
  importTranscript,
} from './importers/import.js';
export { IMPORT_SOURCES, type ImportSource } from './importers/types.js';
export { parseWebVtt } from './importers/vtt.js';
export { computeKpis, countWords, type Kpis, MONOLOGUE_GAP_MS } from './kpis.js';
export { classifyLabel, extractLabel, type LabelMatch, MAX_LABEL_LENGTH } from './labels.js';
export {
  type Lookalike,
  type LookalikeKind,
  lookalike,
  ONE_LONG_LINE_MIN,
} from './lookalike.js';
export { stripMarkup } from './markup.js';
export { parseTranscript } from './parse.js';
export {
  codePointLength,
  DESCRIPTION_UUID_PATTERN_SOURCE,
  EMAIL_PATTERN,
  EMAIL_PATTERN_SOURCE,
  emailDomain,
  HEX24_PATTERN,
  isValidEmail,
  normalizeEmail,
  UUID_PATTERN,
  UUID_PATTERN_SOURCE,
} from './patterns.js';
export { type RoleLabel, type RoleSide, roleLabels } from './roles.js';
export { type SerializableCue, serializeSrt } from './serialize.js';
export {
  classifySpeakers,
  removedLabels,
  repSpeaks,
  type SpeakerSummary,
  speakerEmails,
  speakerSummary,
} from './speakers.js';
export { storedTranscript } from './stored.js';
export { formatSrtTime, parseTimingLine, type Timing } from './timing.js';
export type {
  ClassifyOptions,
  Cue,
  Diagnostic,
  ParsedTranscript,
  Severity,
  Speaker,
  SpeakerKind,
  TranscriptFormat,
} from './types.js';
export {
  type PrevalidateOptions,
  type PrevalidateResult,
  prevalidateUpload,
  type UploadProblem,
  type UploadReport,
  type UploadWarning,
} from './validate.js';
