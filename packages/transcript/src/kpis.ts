import { isBlank, isWhitespace } from './lines.js';
import { normalizeEmail } from './patterns.js';
import type { ParsedTranscript } from './types.js';

export interface Kpis {
  /** Share of speaking time that is not the rep's, 0–1, 3 decimals (D21). */
  listenRatio: number | null;
  /** Seconds of the rep's longest monologue, 1 decimal (D21). */
  longestMonologue: number | null;
  /** Rep words per minute of rep speaking time, 1 decimal (D21). */
  talkSpeed: number | null;
}

/** A run of rep cues continues across gaps shorter than this (D21). */
export const MONOLOGUE_GAP_MS = 2000;

/** Every KPI null: no timing or no rep-labeled cue (D18 SKIPPED). Copy it before handing it out. */
export const NULL_KPIS: Readonly<Kpis> = {
  listenRatio: null,
  longestMonologue: null,
  talkSpeed: null,
};

/**
 * D21 KPIs, shared by the mock and the client-side preview. All three are null when the
 * transcript has no timing or no cue labeled with the rep's e-mail (the mock's KPIs are SKIPPED
 * then, D18), or when the rep is unknown (`repEmail` null).
 *
 * Speaking time = cue durations of cues with text (an empty or whitespace-only cue is not
 * speech); a negative duration (end before start) counts as 0. Overlapping cues each count in
 * full. longestMonologue = from the first cue's start to the latest end in the run, where a run
 * is a sequence of consecutive spoken rep cues (file order) each starting less than 2 s after the
 * run's latest end; cues without speech, the rep's included, neither start, extend nor end a run. Words = whitespace-separated tokens containing a letter or digit.
 */
export function computeKpis(parsed: ParsedTranscript, repEmail: string | null): Kpis {
  if (typeof repEmail !== 'string') return { ...NULL_KPIS };
  const rep = normalizeEmail(repEmail);
  let total = 0;
  let repTime = 0;
  let repWords = 0;
  let repSpoke = false; // some cue is labeled with the rep's e-mail
  let longest = 0;
  let runStart = 0;
  let runEnd = 0;
  let inRun = false;
  for (const c of parsed.cues) {
    // Plain text has no times (null) and no labels: no rep cue, so its KPIs are all null.
    const startMs = c.startMs ?? 0;
    const endMs = c.endMs ?? 0;
    const isRep = c.label === rep;
    const spoken = !isBlank(c.text);
    const d = spoken ? Math.max(0, endMs - startMs) : 0;
    total += d;
    if (!isRep) {
      // Any other cue with speech ends the rep's run; a silent cue does not.
      if (spoken) inRun = false;
      continue;
    }
    repSpoke = true;
    // A rep cue without words (`rep@x.com:` alone) is no speech: it neither starts, extends nor
    // ends a monologue.
    if (!spoken) continue;
    repTime += d;
    repWords += countWords(c.text);
    if (inRun && startMs - runEnd < MONOLOGUE_GAP_MS) {
      runEnd = Math.max(runEnd, endMs);
    } else {
      inRun = true;
      runStart = startMs;
      runEnd = endMs;
    }
    longest = Math.max(longest, runEnd - runStart);
  }
  // No rep cue, or no speaking time at all (every cue empty or zero-length): nothing to measure.
  if (!repSpoke || total === 0) return { ...NULL_KPIS };
  return {
    listenRatio: round((total - repTime) / total, 3),
    longestMonologue: round(longest / 1000, 1),
    talkSpeed: repTime > 0 ? round(repWords / (repTime / 60000), 1) : null,
  };
}

function round(v: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}

function isWordChar(c: number): boolean {
  // ASCII letters/digits, or anything non-ASCII that is not general punctuation (U+2000–U+206F).
  // Never called for whitespace (U+00A0, U+2000–U+200A, U+3000…: countWords checks that first).
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return true;
  return c > 0x7f && !(c >= 0x200b && c <= 0x206f);
}

/** Whitespace-separated tokens that contain at least one letter or digit ("—" is no word). */
export function countWords(text: string): number {
  let words = 0;
  // Whether the token being read has a letter or digit yet (false between tokens).
  let tokenHasWordChar = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0x20;
    if (isWhitespace(c)) {
      if (tokenHasWordChar) words++;
      tokenHasWordChar = false;
    } else if (!tokenHasWordChar && isWordChar(c)) tokenHasWordChar = true;
  }
  return words;
}
