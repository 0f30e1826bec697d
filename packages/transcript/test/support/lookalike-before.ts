// The look-alike detector as it was before it was made linear, kept verbatim as the oracle of a
// property test: on ordinary inputs the linear one (src/lookalike.ts) must answer the same. It
// is quadratic on purpose-built inputs (a CSV header field of many spaces), so test inputs stay
// small.
import { type Lookalike, ONE_LONG_LINE_MIN } from '../../src/lookalike.js';

/** Binary-looking: at least this share of control or replacement characters. */
const BINARY_SHARE = 0.05;
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
export function lookalikeBefore(text: string): Lookalike | null {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return null;
  return binary(body) ?? json(body) ?? markup(body) ?? csv(body) ?? oneLongLine(body);
}

/** Line number (1-based) of the character at `index`; CR, LF and CRLF each end a line (D11). */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

function firstContentIndex(text: string): number {
  return text.search(/\S/);
}

/** C0 controls other than tab, LF, VT, FF, CR; DEL; C1 controls; U+FFFD (a failed decode upstream). */
const CONTROL = /[\u0000-\u0008\u000E-\u001F\u007F-\u009F\uFFFD]/g;

function binary(text: string): Lookalike | null {
  const found = text.match(CONTROL);
  if (!found || found.length / text.length < BINARY_SHARE) return null;
  const share = Math.round((found.length / text.length) * 100);
  return {
    kind: 'binary',
    line: lineAt(text, text.search(CONTROL)),
    reason: `${share}% of its characters are control characters or undecodable bytes: a binary file, or text in another encoding`,
  };
}

function json(text: string): Lookalike | null {
  const start = firstContentIndex(text);
  const trimmed = text.trim();
  if (!/^[[{]/.test(trimmed)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    // Cut or broken JSON still starts like JSON: `{"key"` or `[{`, `[[`, `["`.
    if (!/^(\{\s*"|\[\s*[[{"])/.test(trimmed)) return null;
    return {
      kind: 'json',
      line: lineAt(text, start),
      reason: 'it starts like a JSON document (and does not parse as one)',
    };
  }
  if (parsed === null || typeof parsed !== 'object') return null;
  return {
    kind: 'json',
    line: lineAt(text, start),
    reason: `it is a JSON ${Array.isArray(parsed) ? 'array' : 'object'}`,
  };
}

function markup(text: string): Lookalike | null {
  const start = firstContentIndex(text);
  const trimmed = text.trim();
  const line = lineAt(text, start);
  if (/^<!doctype\s+html|^<html[\s>]/i.test(trimmed)) {
    return { kind: 'html', line, reason: 'it is an HTML page' };
  }
  if (/^<\?xml[\s?]/i.test(trimmed)) {
    return { kind: 'xml', line, reason: 'it is an XML document (<?xml …?>)' };
  }
  // A document that is one element, `<root …> … </root>`; a transcript line may start with a
  // tag (`<i>Hi</i>`), but its text does not end with the first tag's closing one.
  const root = /^<([A-Za-z][\w:.-]*)[\s>/]/.exec(trimmed);
  const closing = /<\/([A-Za-z][\w:.-]*)\s*>$/.exec(trimmed);
  if (root && closing && closing[1]!.toLowerCase() === root[1]!.toLowerCase()) {
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
 * Null when a quote is left open on the line: not one line of CSV.
 */
function fieldsOf(line: string, delimiter: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let atStart = true;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && atStart) {
      quoted = true;
      atStart = false;
    } else if (c === delimiter) {
      fields.push(field);
      field = '';
      atStart = true;
    } else {
      field += c;
      atStart = false;
    }
  }
  if (quoted) return null;
  fields.push(field);
  return fields;
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
  const lines: { text: string; number: number }[] = [];
  const all = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < all.length && lines.length < CSV_LINES; i++) {
    if (all[i]!.trim() !== '') lines.push({ text: all[i]!, number: i + 1 });
  }
  if (lines.length < 2) return null;
  const [header, ...rows] = lines;
  for (const [delimiter, name] of DELIMITERS) {
    const columns = fieldsOf(header!.text, delimiter);
    if (!columns || columns.length < 2) continue;
    const spaced = delimiter === ',' || delimiter === ';';
    const names = columns.map((c) => (spaced ? c.replace(/\s+$/, '') : c.trim()));
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

function oneLongLine(text: string): Lookalike | null {
  const trimmed = text.trim();
  if (/[\r\n]/.test(trimmed) || trimmed.length <= ONE_LONG_LINE_MIN) return null;
  return {
    kind: 'one-long-line',
    line: lineAt(text, firstContentIndex(text)),
    reason: `it is one line of ${trimmed.length} characters: a transcript has a line per cue or per turn`,
  };
}
