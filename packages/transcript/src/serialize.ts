import { extractLabel } from './labels.js';
import { isBlank, splitLines } from './lines.js';
import { formatSrtTime } from './timing.js';

/** What serializeSrt needs of a cue (a parsed Cue fits). */
export interface SerializableCue {
  startMs: number | null;
  endMs: number | null;
  /** Content lines as written (the first may carry the label); used when present. */
  lines?: readonly string[];
  /** Used when `lines` is absent. */
  text?: string;
  label?: string | null;
}

/**
 * Canonical SRT: indices 1…n, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, LF line ends, one blank line
 * between cues. The label is written as `label: text` on the first line (lowercased, D12).
 * Blank lines inside a cue are dropped (they would end the cue). Null or negative times are
 * written as 00:00:00,000 (SRT has no sign). `parseTranscript(serializeSrt(p.cues))` gives the
 * same timing, labels and text as `p` for any SRT `p` with non-negative times.
 */
export function serializeSrt(cues: readonly SerializableCue[]): string {
  const parts: string[] = [];
  if (!Array.isArray(cues)) return '';
  let i = 0;
  for (const c of cues) {
    if (c === null || typeof c !== 'object') continue;
    i++;
    let body: string[] = c.lines
      ? [...c.lines]
      : typeof c.text === 'string'
        ? splitLines(c.text)
        : [];
    const label =
      typeof c.label === 'string' && c.label.length > 0 ? c.label.trim().toLowerCase() : null;
    if (label !== null) {
      const first = body[0] ?? '';
      // Re-attach in canonical form; strip the label as written when the lines still carry it.
      const m = c.lines ? extractLabel(first) : null;
      const rest = m ? first.slice(m.cut) : first.trimStart();
      body[0] = rest.length === 0 ? `${label}:` : `${label}: ${rest}`;
    }
    body = body.filter((l) => !isBlank(l));
    parts.push(
      `${i}\n${formatSrtTime(c.startMs)} --> ${formatSrtTime(c.endMs)}\n${body.map((l) => `${l}\n`).join('')}`,
    );
  }
  return parts.join('\n');
}
