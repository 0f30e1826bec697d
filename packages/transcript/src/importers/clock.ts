/**
 * Reads a clock `M:SS`, `MM:SS` or `H:MM:SS` (1–3 digit leading field, two-digit others) filling
 * all of `s`; returns milliseconds or null. No regex: meeting-tool lines are scanned by hand.
 */
export function parseClock(s: string): number | null {
  const parts = s.split(':');
  if (parts.length < 2 || parts.length > 3) return null;
  let v = 0;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    // The leading field has 1–3 digits, every later field exactly 2.
    if (k === 0 ? p.length === 0 || p.length > 3 : p.length !== 2) return null;
    for (const c of p) if (c < '0' || c > '9') return null;
    const n = Number(p);
    if (k > 0 && n >= 60) return null;
    v = v * 60 + n;
  }
  return v * 1000;
}

/**
 * A Google Meet time marker: a whole paragraph that is exactly `HH:MM:SS` (two digits each,
 * minutes and seconds under 60); returns milliseconds or null. Stricter than parseClock on
 * purpose: a spoken "10:30" or "1:05:00" is speech, not a marker. Detection and import share it.
 */
export function parseMeetMarker(s: string): number | null {
  // Eight characters that parseClock accepts can only be HH:MM:SS (fields of 1–3, 2, 2 digits).
  return s.length === 8 ? parseClock(s) : null;
}

/** `Name<2+ spaces>clock` (Otter: two spaces, Teams docx: three). Returns name, ms, gap or null. */
export function parseSpeakerHeader(
  line: string,
): { name: string; startMs: number; spaces: number } | null {
  const s = line.trimEnd();
  const sp = s.lastIndexOf(' ');
  const ms = parseClock(s.slice(sp + 1));
  if (ms === null) return null;
  let k = sp;
  while (s[k - 1] === ' ') k--;
  const spaces = sp - k + 1;
  if (spaces < 2) return null;
  const name = s.slice(0, k).trim();
  if (name.length === 0 || name.length > 100) return null;
  return { name, startMs: ms, spaces };
}

/** Otter's TXT footer, a paragraph of its own (FORMATS.md 3). */
export const OTTER_FOOTER = 'Transcribed by https://otter.ai';

/** Speaking-time estimate for tools that give no end time: 150 words per minute, at least 1 s. */
export const ESTIMATE_MS_PER_WORD = 400;
export const ESTIMATE_MIN_MS = 1000;
