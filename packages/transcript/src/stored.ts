import { extractLabel } from './labels.js';
import { stripBom } from './lines.js';
import { parseTranscript } from './parse.js';
import type { ClassifyOptions, ParsedTranscript } from './types.js';

/**
 * D16: the transcript as the service stores it (`call.transcript`): the uploaded text with the
 * removed labels (R6: non-email) taken out of their lines; e-mail labels stay; every other byte
 * (timing lines, indices, line endings, a BOM) is kept as uploaded. Plain text is returned as is.
 *
 * The second argument is either parse options, or `parseTranscript(text)` already done by the
 * caller (the mock has it), which is then used as is instead of parsing the text again. It must
 * be the parse of this very `text` (which labels are removed does not depend on the domains).
 */
export function storedTranscript(text: string, options?: ClassifyOptions): string;
export function storedTranscript(text: string, parsed: ParsedTranscript): string;
export function storedTranscript(
  text: string,
  optionsOrParsed: ClassifyOptions | ParsedTranscript = {},
): string {
  if (typeof text !== 'string') return '';
  const parsed = isParsed(optionsOrParsed)
    ? optionsOrParsed
    : parseTranscript(text, optionsOrParsed ?? {});
  if (parsed.format === 'plain') return text;
  const removeOn = new Set<number>();
  for (const c of parsed.cues) {
    if (c.speaker.kind === 'removed' && c.labelLine !== null) removeOn.add(c.labelLine);
  }
  if (removeOn.size === 0) return text;
  const bomLength = text.length - stripBom(text).length;
  // Walk the lines with their terminators so nothing but the label prefix changes.
  let out = text.slice(0, bomLength);
  let lineNo = 1;
  let pos = bomLength;
  const n = text.length;
  while (pos <= n) {
    let end = pos;
    while (end < n) {
      const c = text.charCodeAt(end);
      if (c === 0x0a || c === 0x0d) break;
      end++;
    }
    let next = end;
    if (end < n)
      next = text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
    const line = text.slice(pos, end);
    if (removeOn.has(lineNo)) {
      const m = extractLabel(line);
      out += m === null ? line : line.slice(m.cut);
    } else out += line;
    out += text.slice(end, next);
    if (end >= n) break;
    pos = next;
    lineNo++;
  }
  return out;
}

function isParsed(v: ClassifyOptions | ParsedTranscript | null): v is ParsedTranscript {
  return v !== null && typeof v === 'object' && Array.isArray((v as ParsedTranscript).cues);
}
