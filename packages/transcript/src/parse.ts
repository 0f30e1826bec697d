import { DiagnosticList } from './diagnostics.js';
import { classifyLabel, extractLabel, normalizeDomains } from './labels.js';
import { isBlank, isWhitespace, lineAt, splitLines } from './lines.js';
import { stripMarkup } from './markup.js';
import { isValidEmail } from './patterns.js';
import {
  almostTiming,
  describeTimingFlags,
  mayStartTiming,
  scanned,
  scanTiming,
  TIMING_NEGATIVE,
  TIMING_OUT_OF_RANGE,
  TIMING_SETTINGS,
} from './timing.js';
import type { ClassifyOptions, Cue, ParsedTranscript, Speaker } from './types.js';

/**
 * Parses a transcript as the service reads it (D11, D12).
 *
 * SRT (any cue timing line present): a new cue starts at every timing line. The line just before
 * a timing line is the cue's identifier when it starts a block (first line, or after a blank
 * line) or is all digits; otherwise it is text. Text after a blank line that no timing line
 * follows is kept and appended to the current cue (warning `orphan_text`), as the lenient readers
 * of EXPECTED.json do. Labels (D12) are read on each cue's first content line. A line that is
 * almost a timing line (a full-width colon, a field with no digits, "->") also starts a cue, with
 * no times (startMs/endMs null) and an error `malformed_timing` naming the line, never text of the
 * cue before.
 *
 * Plain text: one cue per non-blank line, no timing (startMs/endMs null), and no labels: rules 4–6
 * speak of speaker-labeled SRT only, so plain text is never speaker-labeled (D11, D14).
 *
 * Speakers are classified as with no configured domains (every e-mail label internal, D13) unless
 * `options.emailDomains` is given; `classifySpeakers` re-classifies for an organization. Cues with
 * the same label share one (frozen) `speaker` object.
 *
 * Never throws. One pass over the text with no regular expression and no per-line allocation
 * except the content lines themselves: linear time, and the fastest of the npm SRT parsers
 * measured in bench/transcript.
 */
export function parseTranscript(text: string, options: ClassifyOptions = {}): ParsedTranscript {
  return parseCues(text, options, 0);
}

/**
 * The scanner behind parseTranscript and parseWebVtt (package-internal). `normalFlags` are timing
 * shapes that are normal for the caller's format and not worth a warning (WebVTT: no hours).
 */
export function parseCues(
  text: string,
  options: ClassifyOptions,
  normalFlags: number,
): ParsedTranscript {
  const diags = new DiagnosticList();
  if (typeof text !== 'string') {
    diags.add('not_text', 'error', 0, `The transcript must be a string, got ${typeof text}.`);
    return { format: 'plain', cues: [], diagnostics: diags.finish() };
  }
  const s = text;
  const n = s.length;
  const bom = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (bom) diags.add('bom_removed', 'info', 1, 'A UTF-8 byte-order mark at the start was ignored.');
  checkCharacters(s, bom, diags);
  const readLabel = labelReader(normalizeDomains(options.emailDomains));

  const cues: Cue[] = [];
  let cue: Cue | null = null;
  let labeled = false;
  let timingCount = 0;
  let nonBlank = 0;
  let previousNumericId = -1; // -1: no numeric index to follow
  // The last text line is held back one line: if a timing line follows, it may be its index.
  // (offsets only: most held-back lines are indices, which need no string of their own)
  let pend = false;
  let pendNo = 0;
  let pendStart = 0;
  let pendEnd = 0;
  let pendAtBlockStart = false;
  let prevBlank = true; // the first line starts a block
  let blankSinceText = false;
  // Lines of the current cue; each cue gets an exact-size copy (an array grown by push keeps
  // spare capacity, which is most of a cue's memory on large files).
  const buf: string[] = [];
  let bufLen = 0;

  // Where the current cue's content lines start and end in `s`, and the next '<' / '{' at or
  // after a position: a cue needs markup stripping only when one falls inside its range, which
  // costs one forward search over the whole text instead of two per cue.
  let textStart = -1;
  let textEnd = -1;
  let split = false; // a blank line separates the current cue's content lines
  let nextLT = -1;
  let nextBrace = -1;
  const hasMarkup = (): boolean => {
    if (textStart < 0) return false;
    // (Once a search hit the end it stays there: n is never below textStart.)
    if (nextLT < textStart) nextLT = indexOrEnd(s, '<', textStart);
    if (nextBrace < textStart) nextBrace = indexOrEnd(s, '{', textStart);
    return nextLT < textEnd || nextBrace < textEnd;
  };

  // Commits the held-back line as text of the current cue.
  const commitPending = () => {
    pend = false;
    const lineNo = pendNo;
    if (cue === null) {
      diags.add(
        'text_before_first_cue',
        'warning',
        lineNo,
        `Line ${lineNo} comes before the first cue timing line and is ignored.`,
      );
      return;
    }
    if (blankSinceText) {
      if (bufLen > 0) split = true;
      diags.add(
        'orphan_text',
        'warning',
        lineNo,
        `Line ${lineNo} follows a blank line but no timing line; it is kept as text of the cue at line ${cue.line}.`,
      );
      blankSinceText = false;
    }
    if (bufLen === 0) {
      cue.labelLine = lineNo;
      textStart = pendStart;
      split = false;
    }
    textEnd = pendEnd;
    buf[bufLen++] = s.slice(pendStart, pendEnd);
  };

  const closeCue = () => {
    if (cue === null) return;
    const lines = buf.slice(0, bufLen);
    const from = !hasCR && !split ? textStart : -1;
    labeled = finishCue(cue, lines, hasMarkup(), readLabel, diags, s, from, textEnd) || labeled;
  };

  const hasCR = s.indexOf('\r', bom) >= 0;
  let pos = bom;
  let lineNo = 0;
  let nextCR = -1;
  let endings = 0; // bits seen (CR-bearing text only): 1 CRLF, 2 CR, 4 LF
  let nextLF = -1;
  for (;;) {
    // Line end: LF-only text takes the indexOf fast path; otherwise the nearer of CR and LF.
    let end: number;
    let next: number;
    if (!hasCR) {
      end = s.indexOf('\n', pos);
      if (end < 0) end = n;
      next = end + 1;
    } else {
      if (nextCR < pos) nextCR = indexOrEnd(s, '\r', pos);
      if (nextLF < pos) nextLF = indexOrEnd(s, '\n', pos);
      if (nextCR < nextLF) {
        end = nextCR;
        if (s.charCodeAt(end + 1) === 0x0a) {
          next = end + 2;
          endings |= 1;
        } else {
          next = end + 1;
          if (end < n) endings |= 2;
        }
      } else {
        end = nextLF;
        next = end + 1;
        if (end < n) endings |= 4;
      }
    }
    lineNo++;

    // First non-space character decides: blank line, possible timing line (digit or '-'), text.
    let c = s.charCodeAt(pos);
    if (isWhitespace(c) && pos < end) {
      let i = pos + 1;
      while (i < end && isWhitespace(s.charCodeAt(i))) i++;
      c = i < end ? s.charCodeAt(i) : -1;
    } else if (pos >= end) c = -1;
    if (c === -1) {
      if (pend) commitPending();
      blankSinceText = true;
      prevBlank = true;
    } else {
      nonBlank++;
      const timing = ((c >= 0x30 && c <= 0x39) || c === 0x2d) && scanTiming(s, pos, end);
      // D11: an almost-timing line (a full-width colon, a field without digits, "->") starts a
      // cue of its own, with no times and an error naming the line: read as text it would join
      // the cue before, label and all, and nothing would say so.
      const almost =
        timing || options.almostTimingLines === 'text' || !mayStartTiming(c)
          ? null
          : almostTiming(s, pos, end);
      if (timing || almost !== null) {
        if (timing) timingCount++;
        let id: string | null = null;
        let idValue = -1;
        if (pend) {
          idValue = digitsValue(s, pendStart, pendEnd);
          if (cue === null || pendAtBlockStart || idValue >= 0) {
            id = idText(s, pendStart, pendEnd, idValue);
            if (cue !== null && !pendAtBlockStart) {
              diags.add(
                'missing_blank_line',
                'warning',
                pendNo,
                `No blank line before the cue index at line ${pendNo}; it is read as the start of a new cue.`,
              );
            }
          } else commitPending();
          pend = false;
        }
        closeCue();
        textStart = -1;
        bufLen = 0;
        let startMs: number | null = null;
        let endMs: number | null = null;
        if (almost !== null) {
          diags.add(
            'malformed_timing',
            'error',
            lineNo,
            `Line ${lineNo} looks like a cue timing line but is not one: ${almost}. Its cue has no times, and a reader that follows the timing rules strictly takes the line as text of the cue before. Write it as HH:MM:SS,mmm --> HH:MM:SS,mmm.`,
          );
        } else {
          startMs = scanned.startMs;
          endMs = scanned.endMs;
          const flags = scanned.flags & ~normalFlags;
          if (flags !== 0 || endMs < startMs) reportTiming(flags, startMs, endMs, lineNo, diags);
        }
        if (id === null) {
          diags.add(
            'missing_index',
            'warning',
            lineNo,
            `The cue at line ${lineNo} has no index line.`,
          );
          previousNumericId = -1;
        } else if (idValue >= 0) {
          if (previousNumericId >= 0 && idValue !== previousNumericId + 1) {
            diags.add(
              'index_out_of_sequence',
              'warning',
              lineNo - 1,
              `Cue index ${id} at line ${lineNo - 1} does not follow ${previousNumericId}.`,
            );
          }
          previousNumericId = idValue;
        } else {
          diags.add(
            'non_numeric_index',
            'warning',
            lineNo - 1,
            `The cue identifier "${clip(id)}" at line ${lineNo - 1} is not a number.`,
          );
          previousNumericId = -1;
        }
        cue = {
          index: cues.length + 1,
          id,
          line: lineNo,
          startMs,
          endMs,
          lines: NO_LINES,
          text: '',
          label: null,
          labelLine: null,
          speaker: NONE,
        };
        cues.push(cue);
        blankSinceText = false;
      } else {
        // Only lines that start like a timestamp are checked for a broken timing line: scanning
        // every text line for "-->" would cost a second pass over the text.
        if (((c >= 0x30 && c <= 0x39) || c === 0x2d) && hasArrow(s, pos, end)) {
          diags.add(
            'malformed_timing',
            'warning',
            lineNo,
            `Line ${lineNo} contains "-->" but is not a cue timing line (HH:MM:SS,mmm --> HH:MM:SS,mmm); it is kept as text.`,
          );
        }
        if (pend) commitPending();
        pend = true;
        pendNo = lineNo;
        pendStart = pos;
        pendEnd = end;
        pendAtBlockStart = prevBlank;
      }
      prevBlank = false;
    }
    if (end >= n) break;
    pos = next;
  }
  if (pend) commitPending();
  closeCue();

  if ((endings & 2) !== 0 || (endings & (endings - 1)) !== 0) {
    const kinds = [endings & 1 ? 'CRLF' : '', endings & 2 ? 'CR' : '', endings & 4 ? 'LF' : '']
      .filter(Boolean)
      .join(', ');
    diags.add('line_endings', 'info', 0, `Line endings: ${kinds}; all are read as line breaks.`);
  }
  if (nonBlank === 0) {
    diags.add('empty_transcript', 'warning', 0, 'The transcript is empty or only whitespace.');
    return { format: 'plain', cues: [], diagnostics: diags.finish() };
  }
  if (timingCount === 0) {
    diags.drop('text_before_first_cue');
    return parsePlain(bom ? s.slice(1) : s, diags);
  }
  return { format: labeled ? 'labeled-srt' : 'srt', cues, diagnostics: diags.finish() };
}

const NONE: Speaker = Object.freeze({ kind: 'none' }) as Speaker;
const NO_LINES: string[] = [];

/** The value of a line that is ASCII digits (spaces around allowed, ≤ 15 digits), else -1. */
function digitsValue(s: string, start: number, end: number): number {
  let i = start;
  while (i < end && isWhitespace(s.charCodeAt(i))) i++;
  let e = end;
  while (e > i && isWhitespace(s.charCodeAt(e - 1))) e--;
  if (e === i || e - i > 15) return -1;
  let v = 0;
  for (let k = i; k < e; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x30 || c > 0x39) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

/** Canonical small indices share one string each ("1", "2", …), so cues don't each hold one. */
const ID_STRINGS: string[] = [];
const ID_CACHE_LIMIT = 1 << 16;

function idText(s: string, start: number, end: number, value: number): string {
  const len = end - start;
  if (value >= 0 && value < ID_CACHE_LIMIT) {
    const c0 = s.charCodeAt(start);
    // Written exactly as String(value): no spaces, no leading zero.
    if (c0 !== 0x30 || len === 1) {
      const digits = value < 10 ? 1 : value < 100 ? 2 : value < 1000 ? 3 : value < 10000 ? 4 : 5;
      if (digits === len) {
        let id = ID_STRINGS[value];
        if (id === undefined) {
          id = String(value);
          ID_STRINGS[value] = id;
        }
        return id;
      }
    }
  }
  return s.slice(start, end).trim();
}

function hasArrow(s: string, start: number, end: number): boolean {
  for (let i = start; i + 2 < end; i++) {
    if (s.charCodeAt(i) === 0x2d && s.charCodeAt(i + 1) === 0x2d && s.charCodeAt(i + 2) === 0x3e)
      return true;
  }
  return false;
}

function indexOrEnd(s: string, ch: string, from: number): number {
  const i = s.indexOf(ch, from);
  return i < 0 ? s.length : i;
}

const RECENT_LABELS = 8;

interface LabelEntry {
  label: string;
  speaker: Speaker;
}

/**
 * D12 + D13 per raw label text, cached: labels repeat on every turn of a speaker, so trimming,
 * lowercasing, the length check and the e-mail pattern run once per distinct label.
 */
function labelReader(
  domains: readonly string[],
): (line: string) => (LabelEntry & { cut: number }) | null {
  const cache = new Map<string, LabelEntry | null>();
  const hit = { label: '', speaker: NONE, cut: 0 };
  // The last few distinct labels, checked with startsWith before slicing a new key.
  const recent: { raw: string; entry: LabelEntry | null }[] = [];
  const lookup = (raw: string, line: string): LabelEntry | null => {
    let entry = cache.get(raw);
    if (entry === undefined) {
      const m = extractLabel(line);
      entry =
        m === null
          ? null
          : { label: m.label, speaker: Object.freeze(classifyLabel(m.label, domains)) as Speaker };
      cache.set(raw, entry);
    }
    if (entry !== null) {
      if (recent.length >= RECENT_LABELS) recent.shift();
      recent.push({ raw, entry });
    }
    return entry;
  };
  return (line) => {
    const colon = line.indexOf(':');
    if (colon < 0) return null;
    const after = colon + 1;
    if (after < line.length && !isWhitespace(line.charCodeAt(after))) return null;
    let entry: LabelEntry | null | undefined;
    for (let k = 0; k < recent.length; k++) {
      const r = recent[k]!;
      if (r.raw.length === colon && line.startsWith(r.raw)) {
        entry = r.entry;
        break;
      }
    }
    if (entry === undefined) entry = lookup(line.slice(0, colon), line);
    if (entry === null) return null;
    let cut = after;
    while (cut < line.length && isWhitespace(line.charCodeAt(cut))) cut++;
    hit.label = entry.label;
    hit.speaker = entry.speaker;
    hit.cut = cut;
    return hit;
  };
}

/** Applies D12 to the cue's first content line and fills `label`, `text`, `speaker`. */
function finishCue(
  cue: Cue,
  lines: string[],
  markup: boolean,
  readLabel: (line: string) => (LabelEntry & { cut: number }) | null,
  diags: DiagnosticList,
  // When the content lines are one LF-separated run of the input, [from, to) in `source`:
  // the text is then one slice of the input instead of a chain of concatenations.
  source: string,
  from: number,
  to: number,
): boolean {
  cue.lines = lines;
  const firstLine = cue.labelLine ?? cue.line;
  if (lines.length === 0) {
    cue.labelLine = null;
    diags.add('empty_cue', 'warning', cue.line, `The cue at line ${cue.line} has no text.`);
    return false;
  }
  const first = lines[0]!;
  const m = readLabel(first);
  const cut = m?.cut ?? 0;
  let text: string;
  if (from >= 0) text = source.slice(from + cut, to);
  else {
    text = first.slice(cut);
    for (let k = 1; k < lines.length; k++) text += `\n${lines[k]}`;
  }
  if (m !== null) {
    cue.label = m.label;
    cue.speaker = m.speaker;
    if (cue.speaker.kind === 'removed' && m.label.indexOf('@') >= 0 && !isValidEmail(m.label)) {
      diags.add(
        'label_not_email',
        'warning',
        firstLine,
        `The label "${clip(m.label)}" contains "@" but is not a valid e-mail, so it is removed without attribution.`,
      );
    }
  } else {
    cue.labelLine = null;
    if (markup) {
      const hidden = extractLabel(stripMarkup(first));
      if (hidden !== null) {
        diags.add(
          'label_in_markup',
          'warning',
          firstLine,
          `"${clip(hidden.label)}:" on the first line of the cue at line ${cue.line} sits inside markup; the service reads labels from the raw line, so it stays in the text.`,
        );
      }
    }
  }
  cue.text = markup ? stripMarkup(text) : text;
  if (markup && cue.text !== text) {
    diags.add(
      'markup_stripped',
      'info',
      firstLine,
      `Markup (HTML or ASS tags) in the cue at line ${cue.line} is kept in the transcript but left out of its text for KPIs and matching.`,
    );
  }
  if (isBlank(cue.text)) {
    diags.add('empty_cue', 'warning', cue.line, `The cue at line ${cue.line} has no text.`);
  }
  return cue.speaker.email !== undefined;
}

/** The warnings a timing line's flags raise beyond its shape, each with what it means. */
const TIMING_WARNINGS = [
  [TIMING_NEGATIVE, 'negative_timestamp', 'has a negative time; it is kept negative.'],
  [
    TIMING_OUT_OF_RANGE,
    'timestamp_out_of_range',
    'has minutes or seconds of 60 or more; they are added up as written.',
  ],
  [
    TIMING_SETTINGS,
    'timing_settings_ignored',
    'has text after the end time (cue settings or coordinates); it is ignored.',
  ],
] as const;

function reportTiming(
  f: number,
  startMs: number,
  endMs: number,
  line: number,
  diags: DiagnosticList,
): void {
  const shape = describeTimingFlags(f);
  if (shape !== '') {
    diags.add(
      'timing_tolerated',
      'warning',
      line,
      `Timing line ${line} was read leniently: ${shape}.`,
    );
  }
  for (const [flag, code, says] of TIMING_WARNINGS) {
    if (f & flag) diags.add(code, 'warning', line, `Timing line ${line} ${says}`);
  }
  if (endMs < startMs) {
    diags.add(
      'end_before_start',
      'warning',
      line,
      `The cue at line ${line} ends before it starts.`,
    );
  }
}

function parsePlain(body: string, diags: DiagnosticList): ParsedTranscript {
  const lines = splitLines(body);
  const cues: Cue[] = [];
  let hinted = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isBlank(line)) continue;
    if (!hinted && extractLabel(line) !== null) {
      hinted = true;
      diags.add(
        'plain_text_labels_ignored',
        'info',
        i + 1,
        `Line ${i + 1} looks like "Name: text", but labels are read only in SRT (text with cue timing lines): plain text is never speaker-labeled. Import it to speaker-labeled SRT to attribute speakers.`,
      );
    }
    cues.push({
      index: cues.length + 1,
      id: null,
      line: i + 1,
      startMs: null,
      endMs: null,
      lines: [line],
      text: stripMarkup(line),
      label: null,
      labelLine: null,
      speaker: NONE,
    });
  }
  return { format: 'plain', cues, diagnostics: diags.finish() };
}

/** NUL means UTF-16 read as 8-bit text or a binary file; U+FFFD means a lossy decode upstream. */
function checkCharacters(s: string, from: number, diags: DiagnosticList): void {
  const nul = s.indexOf('\u0000', from);
  if (nul >= 0) {
    diags.add(
      'nul_character',
      'error',
      lineAt(s, nul, from),
      'The text contains NUL characters: it is probably UTF-16 without a byte-order mark, or not a text file. Decode the file with decodeTranscriptBytes or re-save it as UTF-8.',
    );
  }
  const bad = s.indexOf('\ufffd', from);
  if (bad >= 0) {
    diags.add(
      'replacement_character',
      'warning',
      lineAt(s, bad, from),
      'The text contains U+FFFD replacement characters: it was decoded from a wrong encoding somewhere.',
    );
  }
}

export function clip(s: string, max = 40): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
