/** Strips one leading UTF-8 BOM (U+FEFF). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Splits on CRLF, CR or LF (D11: all three line ends are accepted). */
export function splitLines(text: string): string[] {
  // The common case (LF only) avoids the regex; the alternation is linear either way.
  // Stryker disable next-line ConditionalExpression,StringLiteral: without a CR both splits agree.
  return text.indexOf('\r') < 0 ? text.split('\n') : text.split(/\r\n|\r|\n/);
}

/**
 * The 1-based line of the character at `index`, counting lines from `from` (the text after a BOM);
 * CR, LF and CRLF each end a line (D11).
 */
export function lineAt(text: string, index: number, from = 0): number {
  let line = 1;
  for (let i = from; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) line++;
  }
  return line;
}

/**
 * Invisible bidirectional controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): Teams and
 * right-to-left keyboards put them around Hebrew and Arabic names. They are no part of a name:
 * "\u200fלקוח" is "לקוח" when names are compared and when they are shown.
 */
export function withoutBidiControls(s: string): string {
  return s.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** Whitespace as `String.prototype.trim` understands it (Unicode White_Space + line ends). */
export function isWhitespace(c: number): boolean {
  // Printable ASCII first (almost every character a line starts with), then DEL and C1 controls.
  // Stryker disable next-line ConditionalExpression: a shortcut; the list below says no to all of them.
  if (c > 0x20 && c < 0xa0) return false;
  return (
    c === 0x20 ||
    c === 0x09 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x0b ||
    c === 0x0c ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** True when the line is empty or whitespace only. */
export function isBlank(line: string): boolean {
  const n = line.length;
  if (n === 0) return true;
  if (!isWhitespace(line.charCodeAt(0))) return false;
  for (let i = 1; i < n; i++) if (!isWhitespace(line.charCodeAt(i))) return false;
  return true;
}
