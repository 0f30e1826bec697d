// Cue timing lines (D11), read with a hand-written scanner: no regex, one pass, O(line length).
// The strict D11 shape is `H+:MM:SS,mmm --> H+:MM:SS,mmm` ('.' also allowed). Everything else we
// still read (missing or short milliseconds, one-digit fields, no hours, settings after the end
// time, no spaces around the arrow, negative values) is reported as a warning by the caller.

/** Ways a timing line departs from the strict D11 shape (bit flags). */
export const TIMING_NO_HOURS = 1;
export const TIMING_SHORT_FIELD = 2;
export const TIMING_FRACTION = 4;
export const TIMING_NEGATIVE = 8;
export const TIMING_OUT_OF_RANGE = 16;
export const TIMING_SETTINGS = 32;
export const TIMING_ARROW_SPACING = 64;

export interface Timing {
  startMs: number;
  endMs: number;
  /** 0 when the line is strictly D11; otherwise a combination of the TIMING_* flags. */
  flags: number;
}

// Scanner state shared by the helpers below (module-level to avoid allocating per call).
let pos = 0;
let flags = 0;

const MAX_DIGITS = 12;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** Reads `-?\d+` at `pos`; returns the absolute value and sets TIMING_NEGATIVE, or -1. */
function readField(s: string): number {
  let c = s.charCodeAt(pos);
  if (c === 0x2d) {
    flags |= TIMING_NEGATIVE;
    pos++;
    c = s.charCodeAt(pos);
  }
  const start = pos;
  let v = 0;
  while (c >= 0x30 && c <= 0x39) {
    v = v * 10 + (c - 0x30);
    pos++;
    c = s.charCodeAt(pos);
  }
  const n = pos - start;
  if (n === 0 || n > MAX_DIGITS) return -1;
  return v;
}

/** Reads one timestamp at `pos`; returns milliseconds (sign applied) or NaN. */
function readTimestamp(s: string): number {
  const before = flags;
  flags &= ~TIMING_NEGATIVE;
  const f: number[] = [];
  const digits: number[] = [];
  for (;;) {
    const start = pos;
    const v = readField(s);
    if (v < 0) return Number.NaN;
    f.push(v);
    digits.push(pos - start - (s.charCodeAt(start) === 0x2d ? 1 : 0));
    if (f.length < 3 && s.charCodeAt(pos) === 0x3a /* : */) {
      pos++;
      continue;
    }
    break;
  }
  if (f.length < 2) return Number.NaN;
  let h = 0;
  let m: number;
  let sec: number;
  if (f.length === 3) {
    h = f[0]!;
    m = f[1]!;
    sec = f[2]!;
    if (digits[1] !== 2 || digits[2] !== 2) flags |= TIMING_SHORT_FIELD;
  } else {
    m = f[0]!;
    sec = f[1]!;
    flags |= TIMING_NO_HOURS;
    if (digits[0]! > 2 || digits[1] !== 2) flags |= TIMING_SHORT_FIELD;
  }
  if (m >= 60 || sec >= 60) flags |= TIMING_OUT_OF_RANGE;
  let ms = 0;
  const c = s.charCodeAt(pos);
  if (c === 0x2c /* , */ || c === 0x2e /* . */) {
    pos++;
    const start = pos;
    let d = s.charCodeAt(pos);
    let frac = 0;
    while (d >= 0x30 && d <= 0x39) {
      // ",04" is 40 ms (a decimal fraction); digits past the third are cut, not rounded.
      if (pos - start < 3) frac = frac * 10 + (d - 0x30);
      pos++;
      d = s.charCodeAt(pos);
    }
    const n = pos - start;
    if (n === 0) return Number.NaN;
    if (n !== 3) flags |= TIMING_FRACTION;
    ms = n === 1 ? frac * 100 : n === 2 ? frac * 10 : frac;
  } else {
    flags |= TIMING_FRACTION;
  }
  const total = ((h * 60 + m) * 60 + sec) * 1000 + ms;
  const negative = (flags & TIMING_NEGATIVE) !== 0;
  flags |= before;
  return negative ? -total : total;
}

/** Parses a cue timing line, or returns null when the line is not one. */
export function parseTimingLine(s: string): Timing | null {
  pos = 0;
  flags = 0;
  const n = s.length;
  while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
  const c0 = s.charCodeAt(pos);
  // Quick reject: a timing line starts with a digit or '-' (most text lines fail here).
  if (!((c0 >= 0x30 && c0 <= 0x39) || c0 === 0x2d)) return null;
  const startMs = readTimestamp(s);
  if (Number.isNaN(startMs)) return null;
  let spaced = 0;
  if (isSpace(s.charCodeAt(pos))) spaced++;
  while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
  if (
    s.charCodeAt(pos) !== 0x2d ||
    s.charCodeAt(pos + 1) !== 0x2d ||
    s.charCodeAt(pos + 2) !== 0x3e
  )
    return null;
  pos += 3;
  if (isSpace(s.charCodeAt(pos))) spaced++;
  while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
  if (spaced !== 2) flags |= TIMING_ARROW_SPACING;
  const endMs = readTimestamp(s);
  if (Number.isNaN(endMs)) return null;
  if (pos < n) {
    // Anything after the end time must be separated by whitespace (WebVTT cue settings, the
    // `X1:40 X2:600` coordinates some SRT writers add); it is ignored.
    if (!isSpace(s.charCodeAt(pos))) return null;
    while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
    if (pos < n) flags |= TIMING_SETTINGS;
  }
  return { startMs, endMs, flags };
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
