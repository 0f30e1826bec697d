// Cue timing lines (D11), read with a hand-written scanner: no regex, no allocation, one pass,
// O(line length). The strict D11 shape is `H+:MM:SS,mmm --> H+:MM:SS,mmm` ('.' also allowed).
// Everything else we still read (missing or short milliseconds, one-digit fields, no hours,
// settings after the end time, no spaces around the arrow, negative values) sets a flag that the
// parser reports as a warning.

/** Ways a timing line departs from the strict D11 shape (bit flags). */
export const TIMING_NO_HOURS = 1;
export const TIMING_SHORT_FIELD = 2;
export const TIMING_FRACTION = 4;
export const TIMING_NEGATIVE = 8;
export const TIMING_OUT_OF_RANGE = 16;
export const TIMING_SETTINGS = 32;
const TIMING_ARROW_SPACING = 64;

export interface Timing {
  startMs: number;
  endMs: number;
  /** 0 when the line is strictly D11; otherwise a combination of the TIMING_* flags. */
  flags: number;
}

/** Results of the last successful `scanTiming` (module state: the hot path allocates nothing). */
// Stryker disable next-line ObjectLiteral: scanTiming writes every field before any is read.
export const scanned = { startMs: 0, endMs: 0, flags: 0 };

let pos = 0;
let lim = 0;
let flags = 0;

const MAX_DIGITS = 12;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

// Reading past the line end is safe without a bound check: the character there is CR, LF or
// nothing (NaN), and none of them is a digit, ':', '.', ',', '-', '>' or a space/tab.
function at(s: string, i: number): number {
  return s.charCodeAt(i);
}

/** Moves `pos` past spaces and tabs: 1 when there were any, else 0. */
function skipSpaces(s: string): number {
  const from = pos;
  while (isSpace(s.charCodeAt(pos))) pos++;
  return pos > from ? 1 : 0;
}

/** Reads one timestamp at `pos`; returns milliseconds (sign applied) or NaN. */
function readTimestamp(s: string): number {
  let negative = false;
  // The fields read so far, shifted in from the right: after two fields `h` is still 0.
  let h = 0;
  let m = 0;
  let sec = 0;
  let mDigits = 0;
  let secDigits = 0;
  let fields = 0;
  for (;;) {
    let c = at(s, pos);
    if (c === 0x2d /* - */) {
      negative = true;
      pos++;
      c = at(s, pos);
    }
    const start = pos;
    let v = 0;
    while (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      pos++;
      c = at(s, pos);
    }
    const digits = pos - start;
    if (digits === 0 || digits > MAX_DIGITS) return Number.NaN;
    h = m;
    m = sec;
    sec = v;
    mDigits = secDigits;
    secDigits = digits;
    fields++;
    if (fields < 3 && c === 0x3a /* : */) {
      pos++;
      continue;
    }
    break;
  }
  if (fields < 2) return Number.NaN;
  if (fields === 2) flags |= TIMING_NO_HOURS;
  // Seconds have two digits, and so do minutes after hours (without hours, one or two).
  if ((fields === 3 ? mDigits !== 2 : mDigits > 2) || secDigits !== 2) flags |= TIMING_SHORT_FIELD;
  if (m >= 60 || sec >= 60) flags |= TIMING_OUT_OF_RANGE;
  let ms = 0;
  const c = at(s, pos);
  if (c === 0x2c /* , */ || c === 0x2e /* . */) {
    pos++;
    const start = pos;
    let d = at(s, pos);
    let frac = 0;
    while (d >= 0x30 && d <= 0x39) {
      // ",04" is 40 ms (a decimal fraction); digits past the third are cut, not rounded.
      if (pos - start < 3) frac = frac * 10 + (d - 0x30);
      pos++;
      d = at(s, pos);
    }
    const n = pos - start;
    if (n === 0) return Number.NaN;
    if (n !== 3) flags |= TIMING_FRACTION;
    ms = n === 1 ? frac * 100 : n === 2 ? frac * 10 : frac;
  } else {
    flags |= TIMING_FRACTION;
  }
  const total = ((h * 60 + m) * 60 + sec) * 1000 + ms;
  if (negative) {
    flags |= TIMING_NEGATIVE;
    return -total;
  }
  return total;
}

/**
 * Scans `s[start, end)` as a cue timing line. On success fills `scanned` and returns true.
 * A negative sign anywhere in a timestamp makes the whole timestamp negative
 * (`00:00:-5,000` = -5 s, `-00:00:01,000` = -1 s), as EXPECTED.json reads them.
 */
export function scanTiming(s: string, start: number, end: number): boolean {
  // `end` must be the string's end or the index of a CR/LF (see `at`).
  pos = start;
  lim = end;
  flags = 0;
  skipSpaces(s);
  const startMs = readTimestamp(s);
  if (Number.isNaN(startMs)) return false;
  let spaced = skipSpaces(s);
  if (at(s, pos) !== 0x2d || at(s, pos + 1) !== 0x2d || at(s, pos + 2) !== 0x3e) return false;
  pos += 3;
  spaced += skipSpaces(s);
  if (spaced !== 2) flags |= TIMING_ARROW_SPACING;
  const endMs = readTimestamp(s);
  if (Number.isNaN(endMs)) return false;
  if (pos < lim) {
    // Anything after the end time must be separated by whitespace (WebVTT cue settings, the
    // `X1:40 X2:600` coordinates some SRT writers add); it is ignored.
    if (!isSpace(s.charCodeAt(pos))) return false;
    skipSpaces(s);
    if (pos < lim) flags |= TIMING_SETTINGS;
  }
  scanned.startMs = startMs;
  scanned.endMs = endMs;
  scanned.flags = flags;
  return true;
}

/** Parses a whole line as a cue timing line, or returns null when it is not one. */
export function parseTimingLine(s: string): Timing | null {
  return scanTiming(s, 0, s.length)
    ? { startMs: scanned.startMs, endMs: scanned.endMs, flags: scanned.flags }
    : null;
}

/** A readable list of a timing line's departures from D11, for diagnostics. */
export function describeTimingFlags(f: number): string {
  const parts: string[] = [];
  if (f & TIMING_NO_HOURS) parts.push('no hours field');
  if (f & TIMING_SHORT_FIELD) parts.push('minutes/seconds not two digits');
  if (f & TIMING_FRACTION) parts.push('milliseconds missing or not three digits');
  if (f & TIMING_ARROW_SPACING) parts.push('no space around "-->"');
  return parts.join(', ');
}

/** Formats milliseconds as SRT `HH:MM:SS,mmm` (negative values clamp to 0: SRT has no sign). */
export function formatSrtTime(ms: number | null): string {
  const v = ms === null || !Number.isFinite(ms) || ms < 0 ? 0 : Math.floor(ms);
  const h = Math.floor(v / 3_600_000);
  const m = Math.floor(v / 60_000) % 60;
  const s = Math.floor(v / 1000) % 60;
  const r = v % 1000;
  return `${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${s < 10 ? '0' : ''}${s},${r < 10 ? '00' : r < 100 ? '0' : ''}${r}`;
}

// Almost-timing lines (D11): a line shaped like `H:MM:SS,mmm --> H:MM:SS,mmm` that the strict
// scanner refuses, such as a full-width colon from an East Asian input method ("00:00:12：500"),
// a field with no digits ("00:00:,500") or another arrow ("->", "→"). Read as text, such a line
// would silently join the cue before with its speaker label; the parser makes it a malformed
// timing line of its own cue instead, and says why with `almostTiming`'s reason.

function isFullWidthDigit(c: number): boolean {
  return c >= 0xff10 && c <= 0xff19;
}

/** True when `c` can start an almost-timing line: an ASCII or full-width digit, or a minus. */
export function mayStartTiming(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || isFullWidthDigit(c) || c === 0xff0d;
}

/** `:` `：` (full-width) and `,` `.` `，` `．` `、` (full-width and ideographic) separate fields. */
const SEPARATORS = new Set([0x3a, 0xff1a, 0x2c, 0x2e, 0xff0c, 0xff0e, 0x3001]);

/** Arrow parts: hyphens and dashes (ASCII, en, em, minus sign, full-width) and '='… */
const ARROW_PARTS = new Set([0x2d, 0x2013, 0x2014, 0x2212, 0xff0d, 0x3d]);
/** …and the heads: '>' (ASCII, full-width), arrow signs and '›'. */
const ARROW_HEADS = new Set([0x3e, 0xff1e, 0x2192, 0x27f6, 0x203a]);

interface LooseStamp {
  next: number;
  ok: boolean;
  emptyField: boolean;
}

const loose: LooseStamp = { next: 0, ok: false, emptyField: false };

/**
 * Reads a timestamp of the loose alphabet at `i`: an optional minus, then digit groups (ASCII or
 * full-width) split by separators, at least three groups with at least one colon between them
 * ("10:30" is a time of day, not a cue time) and at least two of them with digits.
 */
function readLoose(s: string, i: number, end: number): LooseStamp {
  let c = s.charCodeAt(i);
  if (c === 0x2d || c === 0xff0d) c = s.charCodeAt(++i);
  let groups = 1;
  let filled = 0;
  let hasDigit = false;
  let colons = 0;
  let emptyField = false;
  while (i < end) {
    c = s.charCodeAt(i);
    if ((c >= 0x30 && c <= 0x39) || isFullWidthDigit(c)) hasDigit = true;
    else if (SEPARATORS.has(c)) {
      if (!hasDigit) emptyField = true;
      else filled++;
      if (c === 0x3a || c === 0xff1a /* full-width */) colons++;
      groups++;
      hasDigit = false;
    } else if (!(c === 0x2d && !hasDigit && groups > 1)) break; // "00:00:-5,000" (negative)
    i++;
  }
  if (!hasDigit) emptyField = true;
  else filled++;
  loose.next = i;
  loose.ok = groups >= 3 && colons >= 1 && filled >= 2;
  loose.emptyField = emptyField;
  return loose;
}

/**
 * Why `s[start, end)` is almost a cue timing line, or null when it is not one (call it only for a
 * line `scanTiming` refused). The reason names the first thing to fix.
 */
export function almostTiming(s: string, start: number, end: number): string | null {
  let i = start;
  while (isSpace(s.charCodeAt(i))) i++; // stops at the line end (CR, LF or none), as `at` notes
  const left = readLoose(s, i, end);
  if (!left.ok) return null;
  let emptyField = left.emptyField;
  i = left.next;
  const arrowStart = i;
  let head = false;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (ARROW_HEADS.has(c)) head = true;
    else if (!ARROW_PARTS.has(c) && !isSpace(c)) break;
    i++;
  }
  if (!head) return null;
  const arrow = s.slice(arrowStart, i).trim();
  const right = readLoose(s, i, end);
  if (!right.ok) return null;
  emptyField ||= right.emptyField;
  i = right.next;
  if (i < end && !isSpace(s.charCodeAt(i))) return null;
  for (let k = start; k < i; k++) {
    const c = s.charCodeAt(k);
    if (c > 0x7e)
      return `it has the character "${s[k]}" (U+${c.toString(16).toUpperCase().padStart(4, '0')}) where the timing rules allow only ASCII digits, ":", "," or "." and "-->"`;
  }
  if (emptyField) return 'a time field has no digits';
  if (arrow !== '-->') return `the arrow is "${arrow}" instead of "-->"`;
  return 'its fields do not form HH:MM:SS,mmm';
}
