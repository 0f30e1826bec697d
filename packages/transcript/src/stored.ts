import { extractLabel } from './labels.js';
import { stripBom } from './lines.js';
import { parseTranscript } from './parse.js';
import type { ClassifyOptions, ParsedTranscript } from './types.js';

/**
 * D16: the transcript as the service stores it (`call.transcript`): the uploaded text with the
 * removed labels (R6: non-email) taken out of their lines; e-mail labels stay; every other byte
 * (timing lines, indices, line endings, a BOM) is kept as uploaded. Plain text is returned as is
 * (it is never speaker-labeled, so none of its cues has a removed label).
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
  const removeOn = new Set<number>();
  for (const c of parsed.cues) {
    if (c.speaker.kind === 'removed') removeOn.add(c.labelLine!); // (a label has its line)
  }
  // A fast path: with no label to cut, the split and join below give back `text` unchanged.
  // Stryker disable next-line ConditionalExpression: the fast path just described
  if (removeOn.size === 0) return text;
  const body = stripBom(text);
  // Lines at even indices, each followed by its terminator as written: joined back, nothing but
  // the label prefixes changes.
  const parts = body.split(/(\r\n|\r|\n)/);
  for (const lineNo of removeOn) {
    const line = parts[(lineNo - 1) * 2]!;
    const m = extractLabel(line);
    if (m !== null) parts[(lineNo - 1) * 2] = line.slice(m.cut);
  }
  return text.slice(0, text.length - body.length) + parts.join('');
}

function isParsed(v: ClassifyOptions | ParsedTranscript | null): v is ParsedTranscript {
  return Array.isArray((v as ParsedTranscript | null)?.cues);
}
