import { countWords } from '../kpis.js';
import { extractLabel, MAX_LABEL_LENGTH } from '../labels.js';
import { withoutBidiControls } from '../lines.js';
import { clip } from '../parse.js';
import { isValidEmail, normalizeEmail } from '../patterns.js';
import { type SerializableCue, serializeSrt } from '../serialize.js';
import { parseTimingLine } from '../timing.js';
import type { Diagnostic } from '../types.js';
import { ESTIMATE_MIN_MS, ESTIMATE_MS_PER_WORD } from './clock.js';
import { detectSource } from './detect.js';
import { decodeEntities } from './entities.js';
import {
  firefliesTurns,
  gongTurns,
  headerTurns,
  meetTurns,
  plainTurns,
  srtTurns,
  teamsLegacyTurns,
  vttTurns,
  zoomChatTurns,
} from './turns.js';
import { IMPORT_SOURCES, type ImportSource, type Turn, type TurnsResult } from './types.js';

export interface ImportOptions {
  /** Skip detection. */
  source?: ImportSource;
  /** Helps detection (extension). */
  fileName?: string;
  /** Display name (or Gong speaker id) → e-mail. Names match trimmed, case-insensitively. */
  speakers?: Record<string, string>;
}

export interface ImportedSpeaker {
  /** The name as the tool wrote it (first spelling seen). */
  name: string;
  /** The e-mail it maps to, or null when unmapped (its turns will be unattributed, R6). */
  email: string | null;
  cueCount: number;
}

export interface ImportResult {
  /** Speaker-labeled SRT the API accepts (`email: text` labels, R4). */
  srt: string;
  source: ImportSource;
  speakers: ImportedSpeaker[];
  diagnostics: Diagnostic[];
}

/**
 * Converts a meeting-tool transcript to speaker-labeled SRT (R4): each turn becomes a cue whose
 * first line is `email: text` for mapped speakers. An unmapped speaker keeps its name as a
 * non-email label, which the service removes without attribution (R6), and gets an error
 * diagnostic `unmapped_speaker`. A display name that is itself a valid e-mail maps to itself.
 * Turns without times get estimated ones (warning `timing_estimated`). Never throws.
 */
export function importTranscript(text: string, options: ImportOptions = {}): ImportResult {
  const diagnostics: Diagnostic[] = [];
  const input = typeof text === 'string' ? text : '';
  let source = options.source ?? detectSource(input, options.fileName);
  if (!IMPORT_SOURCES.includes(source)) {
    diagnostics.push({
      code: 'unknown_source',
      severity: 'error',
      line: 0,
      message: `Unknown source "${String(source)}"; expected one of ${IMPORT_SOURCES.join(', ')}.`,
    });
    source = 'plain';
  }
  const got = turnsOf(source, input, diagnostics);
  // One by one: spread into push, a file with a few hundred thousand skipped lines would overflow
  // the call stack (every element is an argument).
  for (const d of got.diagnostics) diagnostics.push(d);

  const map = normalizeMap(options.speakers, diagnostics);
  const speakers = new Map<string, ImportedSpeaker & { line: number }>();
  const turns = fillTimes(got.turns, diagnostics);
  const cues: SerializableCue[] = [];
  for (const t of turns) {
    let label: string | null = null;
    if (t.speaker !== null && t.speaker.trim().length > 0) {
      const key = nameKey(t.speaker);
      let s = speakers.get(key);
      if (s === undefined) {
        const self = normalizeEmail(t.speaker);
        const email = map.get(key) ?? (isValidEmail(self) ? self : null);
        s = { name: withoutBidiControls(t.speaker).trim(), email, cueCount: 0, line: t.line };
        speakers.set(key, s);
      }
      s.cueCount++;
      label = s.email ?? nameAsLabel(s.name);
    }
    checkText(t, label, diagnostics);
    cues.push({ startMs: t.startMs, endMs: t.endMs, text: t.text, label });
  }
  for (const s of speakers.values()) {
    if (s.email === null) {
      diagnostics.push({
        code: 'unmapped_speaker',
        severity: 'error',
        line: s.line,
        message: `Speaker "${s.name}" (${s.cueCount} cue${s.cueCount === 1 ? '' : 's'}${s.line ? `, first at line ${s.line}` : ''}) has no e-mail in the speaker map; their turns would stay unattributed. Map "${s.name}" to an e-mail.`,
      });
    }
  }
  if (cues.length === 0) {
    diagnostics.push({
      code: 'no_speech',
      severity: 'error',
      line: 0,
      message: `No speech turns were found in the ${source} input.`,
    });
  }
  return {
    srt: serializeSrt(cues),
    source,
    speakers: [...speakers.values()].map(({ name, email, cueCount }) => ({
      name,
      email,
      cueCount,
    })),
    diagnostics,
  };
}

/** The reader of each source that is text (the JSON ones are parsed first, in `turnsOf`). */
const TEXT_READERS: Record<
  Exclude<ImportSource, 'fireflies-json' | 'gong-json'>,
  (text: string) => TurnsResult
> = {
  srt: srtTurns,
  webvtt: vttTurns,
  'zoom-vtt': vttTurns,
  'teams-vtt': vttTurns,
  'teams-docx': headerTurns,
  'teams-docx-legacy': teamsLegacyTurns,
  'zoom-txt': zoomChatTurns,
  'otter-txt': headerTurns,
  'meet-txt': meetTurns,
  plain: plainTurns,
};

function turnsOf(source: ImportSource, text: string, diagnostics: Diagnostic[]): TurnsResult {
  if (source !== 'fireflies-json' && source !== 'gong-json') return TEXT_READERS[source](text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    diagnostics.push({
      code: 'invalid_json',
      severity: 'error',
      line: 0,
      message: `The ${source} input is not valid JSON: ${(e as Error).message}`,
    });
    return { turns: [], diagnostics: [] };
  }
  return source === 'fireflies-json' ? firefliesTurns(json) : gongTurns(json);
}

/**
 * Text that the service would read differently once it is SRT: a first line shaped like a label
 * on a turn without speaker (R6 would remove it), or a line that is an SRT timing line (it would
 * start a new cue). Reported, not changed: the words are the user's.
 */
function checkText(t: Turn, label: string | null, diagnostics: Diagnostic[]): void {
  const lines = t.text.split('\n');
  const first = lines[0]!; // split gives at least one
  if (label === null && extractLabel(first) !== null) {
    diagnostics.push({
      code: 'text_looks_like_label',
      severity: 'warning',
      line: t.line,
      message: `The turn at line ${t.line} has no speaker but starts like a label ("${clip(first)}"); the service would remove that prefix.`,
    });
  }
  if (lines.some((l) => parseTimingLine(l) !== null)) {
    diagnostics.push({
      code: 'text_looks_like_timing',
      severity: 'warning',
      line: t.line,
      message: `The turn at line ${t.line} contains a line that is an SRT timing line; in the SRT it would start a new cue.`,
    });
  }
}

/** Names compare trimmed, case-insensitively, with entities decoded, bidi controls dropped and spaces collapsed. */
function nameKey(name: string): string {
  const spaced = withoutBidiControls(decodeEntities(name)).trim().replace(/\s+/g, ' ');
  // Stryker disable next-line MethodExpression: upper or lower case, both sides of every comparison use this key.
  return spaced.toLowerCase();
}

function normalizeMap(
  speakers: Record<string, string> | undefined,
  diagnostics: Diagnostic[],
): Map<string, string> {
  const map = new Map<string, string>();
  if (speakers === null || typeof speakers !== 'object') return map;
  for (const [name, email] of Object.entries(speakers)) {
    const e = typeof email === 'string' ? normalizeEmail(email) : email; // (no string: invalid)
    if (!isValidEmail(e)) {
      diagnostics.push({
        code: 'invalid_speaker_email',
        severity: 'error',
        line: 0,
        message: `The speaker map gives "${name}" the value ${JSON.stringify(email)}, which is not a valid e-mail.`,
      });
      continue;
    }
    map.set(nameKey(name), e);
  }
  return map;
}

/** An unmapped name written as a label the service will remove (R6): no ':' and ≤ 64 chars (D12). */
function nameAsLabel(name: string): string {
  const s = name.replace(/:/g, ' ').replace(/\s+/g, ' ').trim();
  return s.slice(0, MAX_LABEL_LENGTH) || 'speaker';
}

/** Estimates missing times: start after the previous turn, 150 wpm, ends capped at the next start. */
function fillTimes(turns: Turn[], diagnostics: Diagnostic[]): Turn[] {
  let estimated = false;
  let cursor = 0;
  const out = turns.map((t) => ({ ...t }));
  for (let i = 0; i < out.length; i++) {
    const t = out[i]!;
    if (t.startMs === null) {
      t.startMs = cursor;
      estimated = true;
    }
    if (t.endMs === null) {
      const guess =
        t.startMs + Math.max(ESTIMATE_MIN_MS, countWords(t.text) * ESTIMATE_MS_PER_WORD);
      // Capped at the next turn's start when that is later (not for the last turn, or one whose
      // start is still unknown).
      const next = out[i + 1]?.startMs ?? Number.POSITIVE_INFINITY;
      t.endMs = next > t.startMs ? Math.min(guess, next) : guess;
      estimated = true;
    }
    cursor = Math.max(cursor, t.endMs);
  }
  if (estimated) {
    diagnostics.push({
      code: 'timing_estimated',
      severity: 'warning',
      line: 0,
      message:
        'The source gives no start and/or end time for some turns; they were estimated (150 words per minute), so KPIs such as talk speed are approximate.',
    });
  }
  return out;
}
