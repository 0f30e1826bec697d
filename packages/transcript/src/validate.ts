import {
  CREATE_REQUEST_FIELDS,
  repDesignatorProblem,
  rule8RepSpeaks,
  TRANSCRIPT_MAX_LENGTH,
  TRANSCRIPT_MIN_LENGTH,
  UPLOAD_FIELDS,
} from './create-request.js';
import { computeKpis, type Kpis, NULL_KPIS } from './kpis.js';
import { type Lookalike, lookalike } from './lookalike.js';
import { clip, parseTranscript } from './parse.js';
import { codePointLength, isValidEmail, normalizeEmail } from './patterns.js';
import { removedLabels, type SpeakerSummary, speakerSummary } from './speakers.js';
import type { Diagnostic, ParsedTranscript, TranscriptFormat } from './types.js';

export interface UploadProblem {
  /** D2/D3 code the service would answer with, e.g. `validation_failed`, `rep_not_in_transcript`. */
  code: 'validation_failed' | 'rep_not_in_transcript';
  status: 400 | 422;
  field?: string;
  line?: number;
  message: string;
}

export interface UploadReport {
  format: TranscriptFormat | null;
  cueCount: number;
  speakers: SpeakerSummary[];
  removedLabels: { label: string; line: number }[];
  /** D14; null when it does not apply (not speaker-labeled) or the rep's e-mail is unknown. */
  repSpeaks: boolean | null;
  kpis: Kpis;
  diagnostics: Diagnostic[];
}

/**
 * Something the service accepts but the user should hear about: the transcript parser's errors
 * (NUL characters: a UTF-16 or binary file read as text). The service does not reject them, so
 * they never count against `ok`.
 */
export interface UploadWarning {
  /**
   * `not_a_transcript` for the look-alike check; for the parser's errors, the parser's
   * code (`nul_character`, `malformed_timing`).
   */
  code?: string;
  field?: string;
  line?: number;
  message: string;
}

export interface PrevalidateResult {
  /** True when no problem is predicted; warnings do not count. */
  ok: boolean;
  problems: UploadProblem[];
  warnings: UploadWarning[];
  report: UploadReport;
  /** The parsed, classified transcript (null when `transcript` is not a string). */
  parsed: ParsedTranscript | null;
  /**
   * What the transcript looks like when it is not one (a CSV export, JSON, XML/HTML, binary, one
   * long line), else null. The service accepts it (plain text, D11) and scores it 0,
   * so it is a warning, never a problem: the caller decides whether to refuse.
   */
  notTranscript: Lookalike | null;
}

export interface PrevalidateOptions {
  /** Organization domains for the speaker classification (D13); omit when unknown. */
  emailDomains?: readonly string[];
  /** The rep's e-mail when the request designates the rep by `userId` (D14). */
  repEmail?: string;
}

/**
 * Predicts, before any request (CLI `upload`/`check`), what the service would reject: a problem
 * here is a 400 or 422 the service answers, nothing more. The mock does not call this: it
 * validates the body with its own schema (packages/mock/src/request-schemas.ts, sharing this
 * package's patterns and length limits) and applies rules 4–8 with this package's parser and
 * `repSpeaks`; a change here must be matched there. Problems come in D3's order: every 400
 * first, then 422 `rep_not_in_transcript`. What the service accepts but looks wrong (the
 * parser's errors, such as NUL characters) is a warning. Checks that need the organization's
 * data (user exists, mission exists, domains for rep creation) are the service's.
 */
export function prevalidateUpload(
  request: unknown,
  options: PrevalidateOptions = {},
): PrevalidateResult {
  const problems: UploadProblem[] = [];
  const warnings: UploadWarning[] = [];
  const bad = (field: string | undefined, message: string) => {
    const p: UploadProblem = { code: 'validation_failed', status: 400, message };
    if (field !== undefined) p.field = field;
    problems.push(p);
  };

  const body: Record<string, unknown> =
    request !== null && typeof request === 'object' && !Array.isArray(request)
      ? (request as Record<string, unknown>)
      : {};
  if (body !== request) {
    bad(undefined, `The request body must be a JSON object, got ${describe(request)}.`);
  }
  for (const key of Object.keys(body)) {
    if (!(UPLOAD_FIELDS as readonly string[]).includes(key) && body[key] !== undefined) {
      bad(key, `Unknown field "${key}" (allowed: ${UPLOAD_FIELDS.join(', ')}).`);
    }
  }

  // transcript: D17's conservative counting.
  const transcript = body.transcript;
  let parsed: ParsedTranscript | null = null;
  let notTranscript: Lookalike | null = null;
  if (transcript === undefined) {
    bad('transcript', 'transcript is required.');
  } else if (typeof transcript !== 'string') {
    bad('transcript', `transcript must be a string, got ${describe(transcript)}.`);
  } else {
    const cp = codePointLength(transcript);
    parsed = parseTranscript(transcript, { emailDomains: options.emailDomains ?? [] });
    // D17: the maximum is counted in UTF-16 units, the conservative reading.
    if (transcript.length > TRANSCRIPT_MAX_LENGTH) {
      bad('transcript', tooLongMessage(transcript.length, cp, parsed));
    }
    if (cp < TRANSCRIPT_MIN_LENGTH) {
      bad(
        'transcript',
        `transcript is too short: ${cp} characters, at least ${TRANSCRIPT_MIN_LENGTH}.`,
      );
    }
    // The service takes any string of the right length: a parse error (NUL characters, a
    // malformed timing line) is news for the user, not a predicted rejection; the caller decides.
    // (Its errors always have a line: both are found in a line of a string.)
    for (const d of parsed.diagnostics) {
      if (d.severity === 'error')
        warnings.push({ code: d.code, field: 'transcript', line: d.line, message: d.message });
    }
    notTranscript = lookalike(transcript);
    if (notTranscript) {
      warnings.push({
        code: 'not_a_transcript',
        field: 'transcript',
        line: notTranscript.line,
        message: `This does not look like a transcript: ${notTranscript.reason}.`,
      });
    }
  }

  const meetingName = body.meetingName;
  if (meetingName === undefined) bad('meetingName', 'meetingName is required.');
  else if (typeof meetingName !== 'string') {
    bad('meetingName', `meetingName must be a string, got ${describe(meetingName)}.`);
  } else if (meetingName.length === 0) bad('meetingName', 'meetingName must not be empty.');

  // R1 / D5: exactly one of userId / email designates the rep.
  const { userId, email } = body;
  const designator = repDesignatorProblem(userId !== undefined, email !== undefined);
  if (designator) bad(undefined, designator);
  // The patterned fields of the rule book (userId: D25 UUID; missionId, scorecardId: 24 hex),
  // and the e-mail pattern of the description.
  const patterned = (field: 'userId' | 'missionId' | 'scorecardId') => {
    const rule = CREATE_REQUEST_FIELDS[field];
    const v = body[field];
    if (v !== undefined && !(typeof v === 'string' && rule.pattern.test(v))) {
      bad(field, `${field} must be ${rule.describes}, got ${describe(v)}.`);
    }
  };
  patterned('userId');
  if (email !== undefined && !isValidEmail(email)) {
    bad('email', `email is not a valid e-mail address: ${describe(email)}.`);
  }
  patterned('missionId');
  patterned('scorecardId');

  // Rule 8 / D14.
  const rep = isValidEmail(email)
    ? normalizeEmail(email)
    : typeof options.repEmail === 'string'
      ? normalizeEmail(options.repEmail)
      : null;
  let speaks: boolean | null = null;
  if (parsed !== null && parsed.format === 'labeled-srt' && rep !== null) {
    speaks = rule8RepSpeaks(parsed, rep);
    if (!speaks) {
      problems.push({
        code: 'rep_not_in_transcript',
        status: 422,
        field: 'transcript',
        message: `The transcript is speaker-labeled but the rep ${rep} never speaks in it (a speaker-labeled transcript must have the rep speak): label the rep's cues "${rep}: …".`,
      });
    }
  }

  const report: UploadReport = {
    format: parsed?.format ?? null,
    cueCount: parsed?.cues.length ?? 0,
    speakers: parsed ? speakerSummary(parsed) : [],
    removedLabels: parsed ? removedLabels(parsed) : [],
    repSpeaks: speaks,
    kpis: parsed ? computeKpis(parsed, rep) : { ...NULL_KPIS },
    diagnostics: parsed?.diagnostics ?? [],
  };
  return { ok: problems.length === 0, problems, warnings, report, parsed, notTranscript };
}

/**
 * D17 in the user's words: the length in characters, how long the call is, and what to do. The
 * limit is checked on UTF-16 units, so a character beyond U+FFFF (an emoji) counts twice.
 */
function tooLongMessage(units: number, codePoints: number, parsed: ParsedTranscript): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const counted =
    units === codePoints
      ? `${n(units)} characters`
      : `${n(units)} characters (emoji and other characters beyond U+FFFF count as two)`;
  const ms = callDuration(parsed);
  const parts = Math.ceil(units / TRANSCRIPT_MAX_LENGTH);
  const call = ms === null ? '' : ` for a call of ${formatDuration(ms)}`;
  const split =
    ms === null
      ? `split it into ${parts} parts and upload each`
      : `split the call into ${parts} parts of about ${formatDuration(ms / parts)} each and upload each`;
  return `transcript is too long: ${counted}${call}, and the service takes at most ${n(TRANSCRIPT_MAX_LENGTH)}. To score it, ${split}, or upload a shorter excerpt.`;
}

/** From the first cue's start to the last cue's end, or null without timed cues. */
function callDuration(parsed: ParsedTranscript): number | null {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const c of parsed.cues) {
    // Stryker disable next-line EqualityOperator: an equal time assigns the same value
    if (c.startMs !== null && c.startMs < first) first = c.startMs;
    // Stryker disable next-line EqualityOperator: an equal time assigns the same value
    if (c.endMs !== null && c.endMs > last) last = c.endMs;
  }
  return last > first ? last - first : null;
}

function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const m = minutes % 60;
  return `${Math.floor(minutes / 60)} h${m === 0 ? '' : ` ${m < 10 ? '0' : ''}${m} min`}`;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(clip(v, 60));
  return typeof v;
}
