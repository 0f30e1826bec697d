/**
 * Text that comes from the service or from a transcript is untrusted: an ESC sequence in a
 * meeting name or a transcript line could move the cursor, rewrite earlier output, set the window
 * title or hide text (cli.md: "control characters neutralised before it is shown"). Every such
 * character is replaced by a visible escape (`\x1b`, `\u202e`) instead of being dropped, so the
 * reader sees that something was there.
 */

// C0 controls except TAB/LF, DEL, C1 controls, and the bidirectional overrides/isolates that can
// reorder what a terminal shows (Trojan Source).
const UNSAFE_MULTILINE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visibleEscape(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (c === '\n') return '\\n';
  if (c === '\t') return '\\t';
  if (c === '\r') return '\\r';
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line of untrusted text: newlines and tabs are escaped as well. */
export function safeLine(value: unknown): string {
  return String(value ?? '').replace(UNSAFE_ONE_LINE, visibleEscape);
}

/** Untrusted text that may span lines (a transcript excerpt): LF and TAB are kept. */
export function safeText(value: unknown): string {
  return String(value ?? '').replace(UNSAFE_MULTILINE, visibleEscape);
}
