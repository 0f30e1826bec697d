import { classifyLabel, normalizeDomains } from './labels.js';
import { normalizeEmail } from './patterns.js';
import type { ClassifyOptions, ParsedTranscript, SpeakerKind } from './types.js';

/**
 * Re-classifies every labeled cue for an organization's domains (R4–R6, D13, D6). Returns a new
 * ParsedTranscript; the input is not changed. `format` stays as parsed: whether a transcript is
 * speaker-labeled depends on e-mail labels, not on domains (D11).
 */
export function classifySpeakers(
  parsed: ParsedTranscript,
  options: ClassifyOptions = {},
): ParsedTranscript {
  const domains = normalizeDomains(options.emailDomains);
  const cues = parsed.cues.map((c) => ({ ...c, speaker: classifyLabel(c.label, domains) }));
  return { format: parsed.format, cues, diagnostics: parsed.diagnostics };
}

/**
 * D14: true when some cue's label equals the rep's e-mail (trimmed, case-insensitive, D6).
 * Always false for transcripts without labels; whether that matters is the caller's call
 * (rule 8 applies to speaker-labeled transcripts only).
 */
export function repSpeaks(parsed: ParsedTranscript, repEmail: string): boolean {
  if (typeof repEmail !== 'string') return false;
  const rep = normalizeEmail(repEmail);
  for (const c of parsed.cues) if (c.label === rep) return true;
  return false;
}

/**
 * The distinct e-mail labels (internal and external) in first-speaking order. D15 participants
 * are the internal ones of these (plus the rep first); filter with `speakerSummary` kinds.
 */
export function speakerEmails(parsed: ParsedTranscript): string[] {
  const seen = new Set<string>();
  for (const c of parsed.cues) if (c.speaker.email !== undefined) seen.add(c.speaker.email);
  return [...seen];
}

export interface SpeakerSummary {
  /** The label as normalised (trimmed, lowercased). */
  label: string;
  kind: SpeakerKind;
  email?: string;
  /** 1-based line where this label first occurs. */
  firstLine: number;
  cueCount: number;
}

/** Every distinct label with its classification, in first-speaking order. */
export function speakerSummary(parsed: ParsedTranscript): SpeakerSummary[] {
  const byLabel = new Map<string, SpeakerSummary>();
  for (const c of parsed.cues) {
    if (c.label === null) continue;
    const s = byLabel.get(c.label);
    if (s !== undefined) {
      s.cueCount++;
      continue;
    }
    const entry: SpeakerSummary = {
      label: c.label,
      kind: c.speaker.kind,
      firstLine: c.labelLine ?? c.line,
      cueCount: 1,
    };
    if (c.speaker.email !== undefined) entry.email = c.speaker.email;
    byLabel.set(c.label, entry);
  }
  return [...byLabel.values()];
}

/** Every label that will be removed from the stored transcript (R6, D16), with its line. */
export function removedLabels(parsed: ParsedTranscript): { label: string; line: number }[] {
  const out: { label: string; line: number }[] = [];
  for (const c of parsed.cues) {
    // Stryker disable next-line ConditionalExpression: only a label is ever removed (for the type).
    if (c.label !== null && c.speaker.kind === 'removed')
      out.push({ label: c.label, line: c.labelLine ?? c.line });
  }
  return out;
}
