import { HEX24_PATTERN, normalizeEmail, UUID_PATTERN } from './patterns.js';
import { repSpeaks } from './speakers.js';
import type { ParsedTranscript } from './types.js';

/**
 * The rule book of `POST /real-call-sessions`: the request's fields and the rules on
 * them, each written once. Pre-validation (`prevalidateUpload`), the mock's request validation
 * and the CLI's flag checks all read this table, so the client and the server cannot disagree.
 */

/** Transcript length limits of the description; D17 says how each side counts. */
export const TRANSCRIPT_MIN_LENGTH = 10;
export const TRANSCRIPT_MAX_LENGTH = 100_000;

export interface FieldRule {
  /** Required by the description (meetingName, transcript) or optional. */
  required: boolean;
  /** A string of at least this many characters (code points). */
  minLength?: number;
  /** A pattern the whole string matches. */
  pattern?: RegExp;
  /** What the pattern means, for messages ("a UUID (D25)"). */
  describes?: string;
}

/** Mission and scorecard ids: 24 lowercase hex characters. */
const HEX24_FIELD = {
  required: false,
  pattern: HEX24_PATTERN,
  describes: '24 lowercase hexadecimal characters',
} as const;

/**
 * The body fields, in the description's order; anything else is an unknown field (D2). The rep
 * designator rule (exactly one of userId / email, R1 / D5) is `repDesignatorProblem`; the
 * transcript's lengths are D17's (`TRANSCRIPT_MIN_LENGTH`, `TRANSCRIPT_MAX_LENGTH`); e-mails match
 * the description's pattern (`isValidEmail`).
 */
export const CREATE_REQUEST_FIELDS = {
  transcript: { required: true, minLength: TRANSCRIPT_MIN_LENGTH },
  meetingName: { required: true, minLength: 1 },
  userId: {
    required: false,
    pattern: UUID_PATTERN,
    describes: 'a UUID (hex digits in groups 8-4-4-4-12)',
  },
  email: { required: false },
  missionId: HEX24_FIELD,
  scorecardId: HEX24_FIELD,
} as const satisfies Record<string, FieldRule>;

export type CreateRequestField = keyof typeof CREATE_REQUEST_FIELDS;

/** The body fields of `createRealCallSession`; anything else is an unknown field (D2). */
export const UPLOAD_FIELDS = Object.keys(CREATE_REQUEST_FIELDS) as readonly CreateRequestField[];

/** R1 / D5: exactly one of userId / email designates the rep; the message when not, else null. */
export function repDesignatorProblem(hasUserId: boolean, hasEmail: boolean): string | null {
  if (hasUserId && hasEmail) {
    return 'Send exactly one of userId or email to designate the rep, not both.';
  }
  if (!hasUserId && !hasEmail) return 'Send one of userId or email to designate the rep.';
  return null;
}

/**
 * Rule 8 (R8, D14): a speaker-labeled transcript must contain the rep: some cue's label equals the
 * rep's e-mail (D6: compared case-insensitively after trimming). A transcript without speaker
 * labels passes: the whole call is the rep's (R7). `repEmail` null (an unknown rep) fails a
 * labeled transcript.
 */
export function rule8RepSpeaks(parsed: ParsedTranscript, repEmail: string | null): boolean {
  if (parsed.format !== 'labeled-srt') return true;
  return repEmail !== null && repSpeaks(parsed, normalizeEmail(repEmail));
}
