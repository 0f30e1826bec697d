import {
  computeKpis,
  type Kpis,
  normalizeEmail,
  type ParsedTranscript,
  parseTranscript,
  rule8RepSpeaks,
  speakerEmails,
  storedTranscript,
} from '@rcs/transcript';

/**
 * What the mock needs to know about an uploaded transcript, read through @rcs/transcript so that
 * the server and the client-side pre-validation apply the same rules 4–8 code (no label parsing
 * here).
 */
export interface TranscriptFacts {
  parsed: ParsedTranscript;
  /** D11: at least one cue carries an e-mail label. */
  speakerLabeled: boolean;
  /** D16: the text as stored in `call.transcript` and the export. */
  stored: string;
  /** D15: internal speakers' emails in first-speaking order (lowercase). */
  internalSpeakers: string[];
}

export function transcriptFacts(text: string, emailDomains: readonly string[]): TranscriptFacts {
  // As the service reads it (D11): only a real timing line starts a cue.
  const parsed = parseTranscript(text, { emailDomains, almostTimingLines: 'text' });
  const internal = new Set(
    parsed.cues.filter((c) => c.speaker.kind === 'internal').map((c) => c.speaker.email),
  );
  return {
    parsed,
    speakerLabeled: parsed.format === 'labeled-srt',
    stored: storedTranscript(text, parsed),
    internalSpeakers: speakerEmails(parsed).filter((e) => internal.has(e)),
  };
}

/** D14 / R8, the rule book's one definition (@rcs/transcript's rule8RepSpeaks). */
export function repSpeaksIn(facts: TranscriptFacts, repEmail: string | null): boolean {
  return rule8RepSpeaks(facts.parsed, repEmail);
}

/**
 * The lines the rep says (D19 scores only the rep, R7): the rep's labeled cues, or every cue of a
 * transcript without speaker attribution (the whole call is the rep's).
 */
export function repLines(facts: TranscriptFacts, repEmail: string | null): string[] {
  const email = repEmail === null ? null : normalizeEmail(repEmail);
  const cues = facts.speakerLabeled
    ? facts.parsed.cues.filter((c) => c.label !== null && c.label === email)
    : facts.parsed.cues;
  return cues.map((c) => c.text.trim()).filter((t) => t.length > 0);
}

/** Every spoken line, whoever says it (for D19's "undetected": no keyword occurs at all). */
export function allLines(facts: TranscriptFacts): string[] {
  return facts.parsed.cues.map((c) => c.text);
}

/** D21 through the transcript package; null (KPIs SKIPPED, D18) without timing or rep cue. */
export function kpisOf(facts: TranscriptFacts, repEmail: string | null): Kpis | null {
  if (repEmail === null) return null;
  const k = computeKpis(facts.parsed, normalizeEmail(repEmail));
  // computeKpis gives all three null, or a listen ratio and a monologue (talk speed may be null).
  return k.listenRatio === null ? null : k;
}
