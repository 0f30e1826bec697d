import { DiagnosticList } from './diagnostics.js';
import { classifyLabel, extractLabel, normalizeDomains } from './labels.js';
import { isBlank, isDigitsLine, splitLines, stripBom } from './lines.js';
import { mayHaveMarkup, stripMarkup } from './markup.js';
import { isValidEmail } from './patterns.js';
import {
  describeTimingFlags,
  parseTimingLine,
  TIMING_NEGATIVE,
  TIMING_OUT_OF_RANGE,
  TIMING_SETTINGS,
  type Timing,
} from './timing.js';
import type { ClassifyOptions, Cue, ParsedTranscript } from './types.js';

const BLANK = 1;
const TIMING = 2;
const TEXT = 0;

/**
 * Parses a transcript as the service reads it (D11, D12).
 *
 * SRT (any cue timing line present): a new cue starts at every timing line. The line just before
 * a timing line is the cue's identifier when it starts a block (first line, or after a blank
 * line) or is all digits; otherwise it is text. Text after a blank line that no timing line
 * follows is kept and appended to the current cue (warning `orphan_text`), as the lenient readers
 * of EXPECTED.json do. Labels (D12) are read on each cue's first content line.
 *
 * Plain text: one cue per non-blank line, no timing (startMs/endMs null), and no labels: rules 4–6
 * speak of speaker-labeled SRT only, so plain text is never speaker-labeled (D11, D14).
 *
 * Speakers are classified as with no configured domains (every e-mail label internal, D13) unless
 * `options.emailDomains` is given; `classifySpeakers` re-classifies for an organization.
 * Never throws; linear in the length of the text.
 */
export function parseTranscript(text: string, options: ClassifyOptions = {}): ParsedTranscript {
  const diags = new DiagnosticList();
  if (typeof text !== 'string') {
    diags.add('not_text', 'error', 0, `The transcript must be a string, got ${typeof text}.`);
    return { format: 'plain', cues: [], diagnostics: diags.finish() };
  }
  const body = stripBom(text);
  if (body.length !== text.length) {
    diags.add('bom_removed', 'info', 1, 'A UTF-8 byte-order mark at the start was ignored.');
  }
  checkCharacters(body, diags);
  const lines = splitLines(body);
  const domains = normalizeDomains(options.emailDomains);

  const n = lines.length;
  const kind = new Uint8Array(n);
  const timings: (Timing | undefined)[] = new Array(n);
  let timingCount = 0;
  let nonBlank = 0;
  for (let i = 0; i < n; i++) {
    const line = lines[i]!;
    if (isBlank(line)) {
      kind[i] = BLANK;
      continue;
    }
    nonBlank++;
    const t = parseTimingLine(line);
    if (t !== null) {
      kind[i] = TIMING;
      timings[i] = t;
      timingCount++;
    } else if (line.indexOf('-->') >= 0) {
      diags.add(
        'malformed_timing',
        'warning',
        i + 1,
        `Line ${i + 1} contains "-->" but is not a cue timing line (HH:MM:SS,mmm --> HH:MM:SS,mmm); it is kept as text.`,
      );
    }
  }

  if (nonBlank === 0) {
    diags.add('empty_transcript', 'warning', 0, 'The transcript is empty or only whitespace.');
    return { format: 'plain', cues: [], diagnostics: diags.finish() };
  }
  if (timingCount === 0) return parsePlain(lines, kind, diags);

  const cues: Cue[] = [];
  let cue: Cue | null = null;
  let blankSinceText = false;
  let previousNumericId: number | null = null;
  let labeled = false;

  for (let i = 0; i < n; i++) {
    const k = kind[i];
    if (k === BLANK) {
      blankSinceText = true;
      continue;
    }
    const line = lines[i]!;
    if (k === TIMING) {
      if (cue !== null) labeled = finishCue(cue, domains, diags) || labeled;
      const t = timings[i]!;
      reportTiming(t, i + 1, diags);
      let id: string | null = null;
      if (i > 0 && kind[i - 1] === TEXT && isIdLine(lines, kind, i - 1, cue === null)) {
        id = lines[i - 1]!.trim();
      }
      if (id === null) {
        diags.add('missing_index', 'warning', i + 1, `The cue at line ${i + 1} has no index line.`);
        previousNumericId = null;
      } else if (isDigitsLine(id)) {
        const v = Number(id);
        if (previousNumericId !== null && v !== previousNumericId + 1) {
          diags.add(
            'index_out_of_sequence',
            'warning',
            i,
            `Cue index ${id} at line ${i} does not follow ${previousNumericId}.`,
          );
        }
        previousNumericId = v;
      } else {
        diags.add(
          'non_numeric_index',
          'warning',
          i,
          `The cue identifier "${clip(id)}" at line ${i} is not a number.`,
        );
        previousNumericId = null;
      }
      cue = {
        index: cues.length + 1,
        id,
        line: i + 1,
        startMs: t.startMs,
        endMs: t.endMs,
        lines: [],
        text: '',
        label: null,
        labelLine: null,
        speaker: { kind: 'none' },
      };
      cues.push(cue);
      blankSinceText = false;
      continue;
    }
    // A text line.
    if (i + 1 < n && kind[i + 1] === TIMING && isIdLine(lines, kind, i, cue === null)) continue;
    if (cue === null) {
      diags.add(
        'text_before_first_cue',
        'warning',
        i + 1,
        `Line ${i + 1} comes before the first cue timing line and is ignored.`,
      );
      continue;
    }
    if (blankSinceText) {
      diags.add(
        'orphan_text',
        'warning',
        i + 1,
        `Line ${i + 1} follows a blank line but no timing line; it is kept as text of the cue at line ${cue.line}.`,
      );
      blankSinceText = false;
    }
    if (cue.lines.length === 0) cue.labelLine = i + 1;
    cue.lines.push(line);
  }
  if (cue !== null) labeled = finishCue(cue, domains, diags) || labeled;
  return { format: labeled ? 'labeled-srt' : 'srt', cues, diagnostics: diags.finish() };
}

/** Whether text line `i` (followed by a timing line) is the next cue's identifier. */
function isIdLine(lines: string[], kind: Uint8Array, i: number, beforeFirstCue: boolean): boolean {
  if (beforeFirstCue || i === 0 || kind[i - 1] === BLANK) return true;
  return isDigitsLine(lines[i]!);
}

/** Applies D12 to the cue's first content line and fills `label`, `text`, `speaker`. */
function finishCue(cue: Cue, domains: readonly string[], diags: DiagnosticList): boolean {
  const lines = cue.lines;
  const firstLine = cue.labelLine ?? cue.line;
  if (lines.length === 0) {
    cue.labelLine = null;
    diags.add('empty_cue', 'warning', cue.line, `The cue at line ${cue.line} has no text.`);
    return false;
  }
  const first = lines[0]!;
  const m = extractLabel(first);
  let text: string;
  if (m !== null) {
    cue.label = m.label;
    const rest = first.slice(m.cut);
    text = lines.length === 1 ? rest : `${rest}\n${lines.slice(1).join('\n')}`;
    if (m.label.indexOf('@') >= 0 && !isValidEmail(m.label)) {
      diags.add(
        'label_not_email',
        'warning',
        cue.labelLine ?? cue.line,
        `The label "${clip(m.label)}" contains "@" but is not a valid e-mail, so it is removed without attribution (R6).`,
      );
    }
  } else {
    cue.labelLine = null;
    text = lines.length === 1 ? first : lines.join('\n');
    if (mayHaveMarkup(first)) {
      const hidden = extractLabel(stripMarkup(first));
      if (hidden !== null) {
        diags.add(
          'label_in_markup',
          'warning',
          firstLine,
          `"${clip(hidden.label)}:" on the first line of the cue at line ${cue.line} sits inside markup; the service reads labels from the raw line (R6, D12), so it stays in the text.`,
        );
      }
    }
  }
  cue.text = mayHaveMarkup(text) ? stripMarkup(text) : text;
  cue.speaker = classifyLabel(cue.label, domains);
  if (cue.text.trim().length === 0) {
    diags.add('empty_cue', 'warning', cue.line, `The cue at line ${cue.line} has no text.`);
  }
  return cue.speaker.email !== undefined;
}

function reportTiming(t: Timing, line: number, diags: DiagnosticList): void {
  const f = t.flags;
  if (f === 0) {
    if (t.endMs < t.startMs) endBeforeStart(line, diags);
    return;
  }
  const shape = describeTimingFlags(f);
  if (shape !== '') {
    diags.add(
      'timing_tolerated',
      'warning',
      line,
      `Timing line ${line} was read leniently: ${shape}.`,
    );
  }
  if (f & TIMING_NEGATIVE) {
    diags.add(
      'negative_timestamp',
      'warning',
      line,
      `Timing line ${line} has a negative time; it is kept negative.`,
    );
  }
  if (f & TIMING_OUT_OF_RANGE) {
    diags.add(
      'timestamp_out_of_range',
      'warning',
      line,
      `Timing line ${line} has minutes or seconds of 60 or more; they are added up as written.`,
    );
  }
  if (f & TIMING_SETTINGS) {
    diags.add(
      'timing_settings_ignored',
      'warning',
      line,
      `Timing line ${line} has text after the end time (cue settings or coordinates); it is ignored.`,
    );
  }
  if (t.endMs < t.startMs) endBeforeStart(line, diags);
}

function endBeforeStart(line: number, diags: DiagnosticList): void {
  diags.add('end_before_start', 'warning', line, `The cue at line ${line} ends before it starts.`);
}

function parsePlain(lines: string[], kind: Uint8Array, diags: DiagnosticList): ParsedTranscript {
  const cues: Cue[] = [];
  let hinted = false;
  for (let i = 0; i < lines.length; i++) {
    if (kind[i] === BLANK) continue;
    const line = lines[i]!;
    if (!hinted && extractLabel(line) !== null) {
      hinted = true;
      diags.add(
        'plain_text_labels_ignored',
        'info',
        i + 1,
        `Line ${i + 1} looks like "Name: text", but labels are read only in SRT (R4, D11): plain text is never speaker-labeled. Import it to speaker-labeled SRT to attribute speakers.`,
      );
    }
    cues.push({
      index: cues.length + 1,
      id: null,
      line: i + 1,
      startMs: null,
      endMs: null,
      lines: [line],
      text: mayHaveMarkup(line) ? stripMarkup(line) : line,
      label: null,
      labelLine: null,
      speaker: { kind: 'none' },
    });
  }
  return { format: 'plain', cues, diagnostics: diags.finish() };
}

/** NUL means UTF-16 read as 8-bit text or a binary file; U+FFFD means a lossy decode upstream. */
function checkCharacters(body: string, diags: DiagnosticList): void {
  const nul = body.indexOf('\u0000');
  if (nul >= 0) {
    diags.add(
      'nul_character',
      'error',
      lineOf(body, nul),
      'The text contains NUL characters: it is probably UTF-16 without a byte-order mark, or not a text file. Decode the file with decodeTranscriptBytes or re-save it as UTF-8.',
    );
  }
  const bad = body.indexOf('\ufffd');
  if (bad >= 0) {
    diags.add(
      'replacement_character',
      'warning',
      lineOf(body, bad),
      'The text contains U+FFFD replacement characters: it was decoded from a wrong encoding somewhere.',
    );
  }
}

function lineOf(s: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a) line++;
    else if (c === 0x0d && s.charCodeAt(i + 1) !== 0x0a) line++;
  }
  return line;
}

export function clip(s: string, max = 40): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
