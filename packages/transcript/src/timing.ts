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

/** Reads one timestamp at `pos`; returns milliseconds (sign applied) or NaN. */
function readTimestamp(s: string): number {
  let negative = false;
  let f0 = 0;
  let f1 = 0;
  let f2 = 0;
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
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
    if (fields === 0) {
      f0 = v;
      d0 = digits;
    } else if (fields === 1) {
      f1 = v;
      d1 = digits;
    } else {
      f2 = v;
      d2 = digits;
    }
    fields++;
    if (fields < 3 && c === 0x3a /* : */) {
      pos++;
      continue;
    }
    break;
  }
  if (fields < 2) return Number.NaN;
  let h = 0;
  let m: number;
  let sec: number;
  if (fields === 3) {
    h = f0;
    m = f1;
    sec = f2;
    if (d1 !== 2 || d2 !== 2) flags |= TIMING_SHORT_FIELD;
  } else {
    m = f0;
    sec = f1;
    flags |= TIMING_NO_HOURS;
    if (d0 > 2 || d1 !== 2) flags |= TIMING_SHORT_FIELD;
  }
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
  while (isSpace(s.charCodeAt(pos))) pos++;
  const c0 = at(s, pos);
  // Quick reject: a timing line starts with a digit or '-' (most text lines stop here).
  if (!((c0 >= 0x30 && c0 <= 0x39) || c0 === 0x2d)) return false;
  const startMs = readTimestamp(s);
  if (Number.isNaN(startMs)) return false;
  let spaced = 0;
  if (isSpace(at(s, pos))) spaced++;
  while (isSpace(s.charCodeAt(pos))) pos++;
  if (at(s, pos) !== 0x2d || at(s, pos + 1) !== 0x2d || at(s, pos + 2) !== 0x3e) return false;
  pos += 3;
  if (isSpace(at(s, pos))) spaced++;
  while (isSpace(s.charCodeAt(pos))) pos++;
  if (spaced !== 2) flags |= TIMING_ARROW_SPACING;
  const endMs = readTimestamp(s);
  if (Number.isNaN(endMs)) return false;
  if (pos < lim) {
    // Anything after the end time must be separated by whitespace (WebVTT cue settings, the
    // `X1:40 X2:600` coordinates some SRT writers add); it is ignored.
    if (!isSpace(s.charCodeAt(pos))) return false;
    while (pos < lim && isSpace(s.charCodeAt(pos))) pos++;
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
