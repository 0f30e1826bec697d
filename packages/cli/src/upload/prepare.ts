import { basename, extname, resolve } from 'node:path';
import type { CreateRealCallSessionRequest } from '@rcs/client';
import { readNamedFile } from '@rcs/export/internal';
import {
  decodeTranscriptBytes,
  detectSource,
  type ImportSource,
  importTranscript,
  type PrevalidateResult,
  prevalidateUpload,
  roleLabels,
  TRANSCRIPT_MAX_LENGTH,
} from '@rcs/transcript';

/**
 * A reason an upload would be refused, as shown to the user, with the rule book's machine fields
 * where there are some (`rcs check --json` keeps them, so a script reads `rep_not_in_transcript`
 * without parsing English).
 */
export interface Problem {
  line?: number | undefined;
  message: string;
  /** The transcript package's code: `validation_failed`, `rep_not_in_transcript`, a decode or import code. */
  code?: string;
  /** The HTTP status the service would answer (400 or 422), for the request rules. */
  status?: number;
  /** The request field concerned (`transcript`, `email`, …). */
  field?: string;
}

export interface LoadedTranscript {
  file: string;
  /** The text that will be sent: the file itself, or speaker-labeled SRT converted from a meeting tool. */
  text: string;
  source: ImportSource;
  /** True when the text was converted (line numbers of later checks refer to the converted SRT). */
  converted: boolean;
  problems: Problem[];
  warnings: Problem[];
  speakers: { name: string; email: string | null; cueCount: number }[];
}

/** Sources that are sent as written; everything else is converted to labeled SRT (R4). */
const AS_IS: readonly ImportSource[] = ['srt', 'plain'];

/**
 * The largest transcript file read. The service takes 100,000 characters (D17); a character is
 * at most 4 bytes in UTF-8 and UTF-16, so a file sent as written is too long past 400,000 bytes.
 * A meeting-tool export (Fireflies or Gong JSON with per-sentence metadata, WebVTT) takes several
 * bytes per character of the SRT it becomes: ten times that bound leaves room for every export
 * whose text the service takes, and bounds what a batch holds in memory.
 */
const MAX_TRANSCRIPT_FILE_BYTES = 4_000_000;

/**
 * Reads and decodes a transcript file, and converts meeting-tool exports (Zoom/Teams VTT, Otter,
 * Meet, …) to speaker-labeled SRT with the `--speaker` map. An unmapped speaker is a problem, not
 * a guess. SRT and plain text are sent as written unless a speaker map is given.
 */
export async function loadTranscript(
  file: string,
  cwd: string,
  speakers: Record<string, string>,
  options: { validate?: boolean } = {},
): Promise<LoadedTranscript> {
  const loaded: LoadedTranscript = {
    file,
    text: '',
    source: 'plain',
    converted: false,
    problems: [],
    warnings: [],
    speakers: [],
  };
  let bytes: Uint8Array;
  try {
    // A regular file only, never through a link another user could have planted, with a cap.
    bytes = await readNamedFile(resolve(cwd, file), MAX_TRANSCRIPT_FILE_BYTES);
  } catch (error) {
    loaded.problems.push({ code: 'unreadable_file', message: unreadable(error) });
    return loaded;
  }
  // --no-validate leaves the judgement to the service (cli.md): a NUL or control byte in valid
  // UTF-8 is sent as written; only bytes that are no text at all stay refused.
  const decoded = decodeTranscriptBytes(bytes, { allowControlBytes: options.validate === false });
  if ('error' in decoded) {
    loaded.problems.push({
      code: decoded.error.code,
      line: decoded.error.line || undefined,
      message: decoded.error.message,
    });
    return loaded;
  }
  for (const d of decoded.diagnostics) {
    loaded.warnings.push({ code: d.code, line: d.line || undefined, message: d.message });
  }
  const source = detectSource(decoded.text, basename(file));
  loaded.source = source;
  const hasMap = Object.keys(speakers).length > 0;
  if (AS_IS.includes(source) && !hasMap) {
    loaded.text = decoded.text;
    return loaded;
  }
  const imported = importTranscript(decoded.text, { source, fileName: basename(file), speakers });
  loaded.text = imported.srt;
  loaded.converted = true;
  loaded.speakers = imported.speakers;
  for (const d of imported.diagnostics) {
    const p = { code: d.code, line: d.line || undefined, message: d.message };
    if (d.severity === 'error') loaded.problems.push(p);
    else loaded.warnings.push(p);
  }
  return loaded;
}

/** Why a transcript file was not read, and what to do (the user's to fix, not the service's). */
function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'EACCES' || code === 'EPERM') return `unreadable: check permissions (${code})`;
  if (code === 'EINVAL') {
    return 'not a regular file (a FIFO, socket, device or directory): transcripts are read from regular files only';
  }
  if (code === 'EFBIG') {
    return `larger than ${MAX_TRANSCRIPT_FILE_BYTES.toLocaleString('en-US')} bytes, refused without reading it: the service takes at most ${TRANSCRIPT_MAX_LENGTH.toLocaleString('en-US')} characters of transcript, and a file this large is far past that`;
  }
  return code === 'ELOOP' ? (error as Error).message : `cannot read the file (${code})`;
}

export interface UploadFields {
  email?: string | undefined;
  userId?: string | undefined;
  meetingName?: string | undefined;
  missionId?: string | undefined;
  scorecardId?: string | undefined;
}

/** The request body of `createRealCallSession` for this file (`meetingName` defaults to the name). */
export function requestBody(
  loaded: LoadedTranscript,
  fields: UploadFields,
): CreateRealCallSessionRequest {
  const { email, userId, missionId, scorecardId } = fields;
  return {
    transcript: loaded.text,
    meetingName: fields.meetingName ?? basename(loaded.file, extname(loaded.file)),
    ...(email !== undefined ? { email } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(missionId !== undefined ? { missionId } : {}),
    ...(scorecardId !== undefined ? { scorecardId } : {}),
  };
}

/**
 * Offline pre-validation with the transcript package (R1/D5 rep designator, D17 lengths, R8/D14
 * rep speaks, D11/D12 timing and labels) (the same rules 4–8 code as the mock, so
 * they cannot disagree): every problem with its line, before any request.
 */
export function prevalidate(
  loaded: LoadedTranscript,
  body: Record<string, unknown>,
  emailDomains?: string[],
): { result: PrevalidateResult; problems: Problem[]; notTranscript: Problem | undefined } {
  const result = prevalidateUpload(body, emailDomains ? { emailDomains } : {});
  const hint = roleLabelsHint(loaded, result, body.email);
  if (hint) loaded.warnings.push(hint);
  // Line numbers of a converted file are those of the SRT it became.
  const where = (w: { line?: number | undefined; message: string }) =>
    loaded.converted && w.line ? `${w.message} (line of the converted SRT)` : w.message;
  // A CSV, JSON, HTML or binary file is accepted by the service (plain text, D11) and
  // scored 0; a warning by default, a problem with --strict (the caller decides).
  const lookalike = result.warnings.find((w) => w.code === 'not_a_transcript');
  const notTranscript: Problem | undefined = lookalike && {
    code: 'not_a_transcript',
    line: lookalike.line,
    message: where(lookalike),
  };
  const problems = result.problems.map(
    (p): Problem => ({
      code: p.code,
      status: p.status,
      ...(p.field !== undefined ? { field: p.field } : {}),
      line: p.line,
      message: where(p),
    }),
  );
  // D11: a line that is almost a timing line starts a cue with no times, where a strict reader
  // takes it as text of the cue before (its label too): refused before sending, with its line,
  // like any pre-validation problem (--no-validate sends it).
  for (const w of result.warnings) {
    if (w.code !== 'malformed_timing') continue;
    problems.push({ code: w.code, field: 'transcript', line: w.line, message: where(w) });
  }
  return { result, problems, notTranscript };
}

/**
 * Labels that name roles (`Agent:`, `Client:`, `Speaker 1:`) are removed without attribution
 * (rule 6), so with the rep's e-mail given the call is scored without the rep's turns. The speaker
 * map fixes it: say which flags, with the rep's e-mail (a warning, code `role_labels`).
 */
function roleLabelsHint(
  loaded: LoadedTranscript,
  result: PrevalidateResult,
  email: unknown,
): Problem | undefined {
  if (typeof email !== 'string' || loaded.converted || result.parsed === null) return undefined;
  if (result.report.repSpeaks === true) return undefined;
  const roles = roleLabels(result.parsed);
  if (roles.length === 0) return undefined;
  const rep = roles.find((r) => r.side === 'rep') ?? roles[0]!;
  const flags = [
    `--speaker "${rep.label}=${email}"`,
    ...roles.filter((r) => r !== rep).map((r) => `--speaker "${r.label}=<their e-mail>"`),
  ].join(' ');
  const names = roles.map((r) => `"${r.label}"`).join(', ');
  const which =
    rep.side === 'rep'
      ? ''
      : ` (if "${rep.label}" is not the rep, map the label the rep speaks under)`;
  return {
    code: 'role_labels',
    line: rep.line,
    message: `the speaker labels ${names} look like roles, not e-mails: they are removed without attribution, so the rep's turns cannot be found and the call is scored without them. Map them to e-mails: ${flags}${which}`,
  };
}

export function formatProblem(file: string, p: Problem): string {
  return p.line ? `${file}:${p.line}: ${p.message}` : `${file}: ${p.message}`;
}
