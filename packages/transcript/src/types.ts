/** What kind of text an upload is (D11). `labeled-srt` = SRT with at least one e-mail label. */
export type TranscriptFormat = 'plain' | 'srt' | 'labeled-srt';

/** How a cue's speaker is treated by rules 4–6 (D13). `none` = the cue has no label. */
export type SpeakerKind = 'internal' | 'external' | 'removed' | 'none';

export interface Speaker {
  kind: SpeakerKind;
  /** The label as an e-mail (trimmed, lowercased, D6), for `internal` and `external`. */
  email?: string;
}

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  /** Stable machine code; every code is listed in the package README. */
  code: string;
  message: string;
  /** 1-based line number in the text as given (after a BOM), 0 when it concerns the whole text. */
  line: number;
  severity: Severity;
}

export interface Cue {
  /** 1-based position of the cue in the transcript (not the identifier as written, see `id`). */
  index: number;
  /** The identifier line as written (`"001"`, `"9."`), or null when the cue has none. */
  id: string | null;
  /** 1-based line of the cue's timing line (SRT) or of its only line (plain text). */
  line: number;
  /**
   * Null for plain text, which has no timing, and for a cue whose timing line is malformed (error
   * `malformed_timing`). May be negative when the file says so.
   */
  startMs: number | null;
  endMs: number | null;
  /** The content lines as written (blank lines inside the cue left out), label included. */
  lines: string[];
  /** Content after label removal (D12) with HTML/ASS markup stripped: what KPIs and scoring read. */
  text: string;
  /** The label, trimmed and lowercased (D12), or null. */
  label: string | null;
  /** 1-based line that carries the label (the cue's first content line), or null. */
  labelLine: number | null;
  speaker: Speaker;
}

export interface ParsedTranscript {
  format: TranscriptFormat;
  cues: Cue[];
  diagnostics: Diagnostic[];
}

export interface ClassifyOptions {
  /** The organization's configured e-mail domains; empty or absent = none configured (R4, D13). */
  emailDomains?: readonly string[];
  /**
   * A line that is almost a cue timing line (a full-width colon, a field with no digits, "->"):
   * `'cue'` (default) starts a cue of its own with an error naming the line, so a check shows it;
   * `'text'` reads it as the service does, as text of the cue before, since D11 makes only real
   * timing lines cues (the mock reads transcripts this way).
   */
  almostTimingLines?: 'cue' | 'text';
}
