import { isBlank, splitLines, stripBom } from '../lines.js';
import { parseCues } from '../parse.js';
import { parseTimingLine, TIMING_NO_HOURS, TIMING_SETTINGS } from '../timing.js';
import type { Cue, Diagnostic } from '../types.js';

export interface WebVttResult {
  cues: Cue[];
  diagnostics: Diagnostic[];
}

/** Diagnostics about SRT indices say nothing about WebVTT, whose identifiers are optional text. */
const SRT_ONLY = new Set(['missing_index', 'non_numeric_index', 'index_out_of_sequence']);

/**
 * WebVTT cues with the same lenient cue engine as SRT (a new cue at every timing line, hours
 * optional). The header, and NOTE / STYLE / REGION blocks, are blanked first (line numbers stay).
 * `lines` keep voice spans and tags as written; `text` has them stripped.
 */
export function parseWebVtt(text: string): WebVttResult {
  const lines = splitLines(stripBom(text));
  const extra: Diagnostic[] = [];
  const firstContent = lines.findIndex((l) => !isBlank(l));
  if (firstContent >= 0 && !lines[firstContent]!.trimStart().startsWith('WEBVTT')) {
    extra.push({
      code: 'missing_webvtt_header',
      severity: 'warning',
      line: firstContent + 1,
      message: 'The file does not start with "WEBVTT"; it is read as WebVTT anyway.',
    });
  } else if (firstContent > 0) {
    extra.push({
      code: 'blank_before_webvtt_header',
      severity: 'warning',
      line: 1,
      message: 'Blank lines come before "WEBVTT"; they are ignored.',
    });
  }
  // Everything before the first cue (header, metadata, blocks) except its identifier line.
  const firstTiming = lines.findIndex((l) => parseTimingLine(l) !== null);
  const idLine =
    firstTiming > 0 && !isBlank(lines[firstTiming - 1]!) && firstTiming - 1 !== firstContent
      ? firstTiming - 1
      : -1;
  const end = firstTiming < 0 ? lines.length : firstTiming;
  for (let i = 0; i < end; i++) if (i !== idLine) lines[i] = '';
  // Comment and style blocks after the first cue start after a blank line.
  let skipping = false;
  for (let i = end; i < lines.length; i++) {
    const l = lines[i]!;
    if (isBlank(l)) {
      skipping = false;
      continue;
    }
    if (!skipping && i > 0 && isBlank(lines[i - 1]!) && isBlockKeyword(l)) skipping = true;
    if (skipping) lines[i] = '';
  }
  // Hours are optional in WebVTT (`00:01.000`) and cue settings (`align:start`) are part of the
  // timing line, so neither is a tolerance there.
  const parsed = parseCues(lines.join('\n'), {}, TIMING_NO_HOURS | TIMING_SETTINGS);
  const diagnostics = [
    ...extra,
    ...parsed.diagnostics.filter((d) => !SRT_ONLY.has(d.code) && d.code !== 'empty_transcript'),
  ];
  return { cues: parsed.cues, diagnostics };
}

function isBlockKeyword(line: string): boolean {
  return /^(NOTE|STYLE|REGION)([ \t]|$)/.test(line);
}
