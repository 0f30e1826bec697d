/**
 * "This does not look like a transcript": the service takes any text of the right
 * length (D11: without a timing line it is plain text), so a CSV export, a JSON document or an
 * HTML page picked by mistake is accepted and scored 0/100. This names what the text looks like
 * instead, with the line that shows it, so that the CLI and integrators can warn (or refuse)
 * before paying for a scoring run. Pure, no dependencies, browser-safe, like the whole package.
 *
 * Every test is conservative: a transcript in any format this package reads (SRT, WebVTT, plain
 * text, the meeting tools' text exports, as sent after import) is never taken for one of these.
 *
 * Linear in the text, and bounded where a test needs only part of it (a file over the service's
 * length limit is as likely to be picked by mistake, and costs no more than it must): the binary
 * share is taken over the first TRANSCRIPT_MAX_LENGTH characters, CSV reads the first 50
 * non-blank lines, markup the first tag and the last one, the long line runs to its first break.
 * No regular expression here can backtrack over more than the run it started on.
 */

import { TRANSCRIPT_MAX_LENGTH } from './create-request.js';
import { isBlank, lineAt } from './lines.js';

export type LookalikeKind = 'csv' | 'json' | 'xml' | 'html' | 'binary' | 'one-long-line';

export interface Lookalike {
  kind: LookalikeKind;
  /** 1-based line that shows it. */
  line: number;
  /** Why, in words a user reads: "a header row (id,name,email) and 3 rows of 3 comma-separated fields". */
  reason: string;
}

/** One line longer than this, and nothing else, is a minified document or an encoded blob. */
export const ONE_LONG_LINE_MIN = 1000;
/** Binary-looking: at least this share of control or replacement characters. */
const BINARY_SHARE = 0.05;
/** The binary share is judged on this many characters at most: all of any text the service takes. */
const BINARY_SAMPLE = TRANSCRIPT_MAX_LENGTH;
/** CSV is judged on the first lines only: enough to be sure, bounded for 100,000 characters. */
const CSV_LINES = 50;

const DELIMITERS = [
  [',', 'comma'],
  [';', 'semicolon'],
  ['\t', 'tab'],
  ['|', 'pipe'],
] as const;

/**
 * What `text` looks like when it is not a transcript, or null. The first that fits of: binary,
 * JSON, XML/HTML, CSV, one long line.
 */
export function lookalike(text: string): Lookalike | null {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // -1 for a blank text, in which every test below finds nothing.
  const start = body.search(/\S/);
  // (trim only walks the whitespace at both ends: the rest is shared, not copied.)
  const trimmed = body.trim();
  return (
    binary(body) ??
    json(body, start, trimmed) ??
    markup(body, start, trimmed) ??
    csv(body) ??
    oneLongLine(body, start, trimmed)
  );
}

/** C0 controls other than tab, LF, VT, FF, CR; DEL; C1 controls; U+FFFD (a failed decode upstream). */
function isControl(c: number): boolean {
  return c <= 0x08 || (c >= 0x0e && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) || c === 0xfffd;
}

function binary(text: string): Lookalike | null {
  const n = Math.min(text.length, BINARY_SAMPLE);
  let count = 0;
  let first = -1;
  for (let i = 0; i < n; i++) {
    if (isControl(text.charCodeAt(i))) {
      if (first < 0) first = i;
      count++;
    }
  }
  if (count === 0 || count / n < BINARY_SHARE) return null;
  const share = Math.round((count / n) * 100);
  const of = n < text.length ? `its first ${n} characters` : 'its characters';
  return {
    kind: 'binary',
    line: lineAt(text, first),
    reason: `${share}% of ${of} are control characters or undecodable bytes: a binary file, or text in another encoding`,
  };
}

function json(text: string, start: number, trimmed: string): Lookalike | null {
  const c = trimmed.charCodeAt(0);
  if (c !== 0x5b /* [ */ && c !== 0x7b /* { */) return null;
  let reason: string;
  try {
    // Starting with '[' or '{', what parses is an array or an object.
    const parsed: unknown = JSON.parse(trimmed);
    reason = `it is a JSON ${Array.isArray(parsed) ? 'array' : 'object'}`;
  } catch {
    // Cut or broken JSON still starts like JSON: `{"key"` or `[{`, `[[`, `["`.
    if (!/^(\{\s*"|\[\s*[[{"])/.test(trimmed)) return null;
    reason = 'it starts like a JSON document (and does not parse as one)';
  }
  return { kind: 'json', line: lineAt(text, start), reason };
}

function markup(text: string, start: number, trimmed: string): Lookalike | null {
  // Every pattern is anchored at the text's first character: a text that starts with anything
  // but '<' is tried once per pattern, no further.
  const line = lineAt(text, start);
  if (/^(?:<!doctype\s+html|<html[\s>])/i.test(trimmed)) {
    return { kind: 'html', line, reason: 'it is an HTML page' };
  }
  if (/^<\?xml[\s?]/i.test(trimmed)) {
    return { kind: 'xml', line, reason: 'it is an XML document (<?xml …?>)' };
  }
  // A document that is one element, `<root …> … </root>`; a transcript line may start with a
  // tag (`<i>Hi</i>`), but its text does not end with the first tag's closing one. The closing
  // tag holds no '<', so it can only start at the last one: the pattern is tried there alone
  // (unanchored, it would be tried from every '</' of the text).
  const root = /^<([A-Za-z][\w:.-]*)[\s>/]/.exec(trimmed);
  if (root === null) return null;
  const closing = /^<\/([A-Za-z][\w:.-]*)\s*>$/.exec(trimmed.slice(trimmed.lastIndexOf('<')));
  if (closing && closing[1]!.toLowerCase() === root[1]!.toLowerCase()) {
    const html = /^(html|head|body|div|table|p|span|section|article|main)$/i.test(root[1]!);
    return {
      kind: html ? 'html' : 'xml',
      line,
      reason: `it is ${html ? 'HTML' : 'an XML document'}: one <${root[1]}> element from start to end`,
    };
  }
  return null;
}

/**
 * The fields of a delimited line, quotes honoured (RFC 4180: `"a,b"` is one field, `""` a quote).
 * Null when a quote is left open on the line: not one line of CSV. A quote opens a field only at
 * its start; anywhere else it is text. Fields are cut as slices between delimiters (never built
 * a character at a time: a field can be as long as the file).
 */
function fieldsOf(line: string, delimiter: string): string[] | null {
  const fields: string[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    let field = '';
    if (line.charCodeAt(i) === 0x22 /* " */) {
      let from = i + 1;
      for (;;) {
        const q = line.indexOf('"', from);
        if (q === -1) return null;
        if (line.charCodeAt(q + 1) === 0x22) {
          field += line.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        field += line.slice(from, q);
        i = q + 1;
        break;
      }
    }
    const d = line.indexOf(delimiter, i);
    const end = d < 0 ? n : d;
    fields.push(field + line.slice(i, end));
    if (d < 0) return fields;
    i = d + 1;
  }
}

/** A column name: starts with a letter or `_`, short, no sentence in it. */
const COLUMN_NAME = /^[\p{L}_][\p{L}\p{N}_ .()#/-]{0,39}$/u;

/**
 * A header row and rows with the same number of fields (at least 2) for one delimiter, on every
 * non-blank line of the first 50. Prose has commas too, so for comma and semicolon a header
 * whose fields start with a space (`Hi, how are you`) is not one, and every header field must
 * look like a column name.
 */
function csv(text: string): Lookalike | null {
  const lines = firstLines(text, CSV_LINES);
  if (lines.length < 2) return null;
  const [header, ...rows] = lines;
  for (const [delimiter, name] of DELIMITERS) {
    const columns = fieldsOf(header!.text, delimiter);
    if (!columns || columns.length < 2) continue;
    const spaced = delimiter === ',' || delimiter === ';';
    // trimEnd, not a `\s+$` pattern: that one is tried from every space of a run (quadratic).
    const names = columns.map((c) => (spaced ? c.trimEnd() : c.trim()));
    if (!names.every((c) => COLUMN_NAME.test(c))) continue;
    if (rows.some((r) => fieldsOf(r.text, delimiter)?.length !== columns.length)) continue;
    const shown = header!.text.length > 60 ? `${header!.text.slice(0, 57)}...` : header!.text;
    return {
      kind: 'csv',
      line: header!.number,
      reason: `a header row (${shown.replace(/\t/g, ' ')}) and ${rows.length} row${rows.length === 1 ? '' : 's'} of ${columns.length} ${name}-separated fields: a spreadsheet or CSV export`,
    };
  }
  return null;
}

/**
 * The first `max` non-blank lines with their 1-based numbers; CR, LF and CRLF end a line (D11).
 * Read up to the last of them only: the rest of a long file is never split.
 */
function firstLines(text: string, max: number): { text: string; number: number }[] {
  const lines: { text: string; number: number }[] = [];
  const eol = /\r\n?|\n/g;
  for (let number = 1; lines.length < max; number++) {
    const from = eol.lastIndex;
    const found = eol.exec(text);
    const line = text.slice(from, found ? found.index : text.length);
    if (!isBlank(line)) lines.push({ text: line, number });
    if (!found) break;
  }
  return lines;
}

function oneLongLine(text: string, start: number, trimmed: string): Lookalike | null {
  if (trimmed.length <= ONE_LONG_LINE_MIN || /[\r\n]/.test(trimmed)) return null;
  return {
    kind: 'one-long-line',
    line: lineAt(text, start),
    reason: `it is one line of ${trimmed.length} characters: a transcript has a line per cue or per turn`,
  };
}
