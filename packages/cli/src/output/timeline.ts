import type { ParsedTranscript } from '@rcs/transcript';
import { formatClock } from './format.js';
import { safeLine } from './sanitize.js';
import { displayWidth, truncate } from './table.js';

/** One stretch of speech on the call's clock. */
export interface TalkSegment {
  speaker: string;
  startMs: number;
  endMs: number;
}

/**
 * Speech segments of a transcript with timing; empty for plain text (nothing to draw). Talk time
 * is cue duration, the same measure as the KPIs (D21); speakers are the R4 labels (D12).
 */
export function segmentsOf(parsed: ParsedTranscript): TalkSegment[] {
  const out: TalkSegment[] = [];
  for (const cue of parsed.cues) {
    if (cue.startMs === null || cue.endMs === null || cue.endMs <= cue.startMs) continue;
    out.push({
      speaker: cue.speaker.email ?? cue.label ?? '(no label)',
      startMs: cue.startMs,
      endMs: cue.endMs,
    });
  }
  return out;
}

export interface TimelineOptions {
  /** Columns for the bar itself (default 48). */
  width?: number;
  /** Marks this speaker (the rep) in the legend. */
  rep?: string;
}

/**
 * The call's shape at a glance: one bar per speaker across the call's duration, a cell filled
 * when the speaker talks for at least a third of that slice ("▓" for a little less), plus each
 * speaker's share of the talk time. Speakers come in first-speaking order.
 */
export function renderTimeline(segments: TalkSegment[], options: TimelineOptions = {}): string {
  if (segments.length === 0) return '';
  const width = Math.max(10, options.width ?? 48);
  // A loop, not Math.min(...list): every element of a spread is an argument on the stack, and a
  // 16 MB SRT has some 185,000 cues.
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of segments) {
    if (s.startMs < start) start = s.startMs;
    if (s.endMs > end) end = s.endMs;
  }
  const span = Math.max(1, end - start);
  const slice = span / width;

  const speakers: string[] = [];
  const talk = new Map<string, number[]>();
  const totals = new Map<string, number>();
  for (const seg of segments) {
    let cells = talk.get(seg.speaker);
    if (cells === undefined) {
      cells = new Array<number>(width).fill(0);
      talk.set(seg.speaker, cells);
      speakers.push(seg.speaker);
    }
    totals.set(seg.speaker, (totals.get(seg.speaker) ?? 0) + (seg.endMs - seg.startMs));
    const first = Math.max(0, Math.floor((seg.startMs - start) / slice));
    const last = Math.min(width - 1, Math.floor((seg.endMs - start - 1) / slice));
    for (let i = first; i <= last; i++) {
      const cellStart = start + i * slice;
      const overlap = Math.min(seg.endMs, cellStart + slice) - Math.max(seg.startMs, cellStart);
      if (overlap > 0) cells[i] = (cells[i] ?? 0) + overlap;
    }
  }
  const allTalk = [...totals.values()].reduce((a, b) => a + b, 0) || 1;
  const names = speakers.map((s) => {
    const name = truncate(safeLine(s), 32);
    return s === options.rep ? `${name} (rep)` : name;
  });
  // (A speaker per cue is possible: a loop here too.)
  let nameWidth = 0;
  for (const name of names) nameWidth = Math.max(nameWidth, displayWidth(name));
  const rows = speakers.map((s, i) => {
    const cells = talk.get(s) ?? [];
    const bar = cells.map((ms) => (ms >= slice / 3 ? '█' : ms > 0 ? '▓' : '·')).join('');
    const share = `${Math.round(((totals.get(s) ?? 0) / allTalk) * 100)}%`.padStart(4);
    const name = names[i] ?? '';
    return `${name}${' '.repeat(nameWidth - displayWidth(name))}  ${bar} ${share}`;
  });
  const from = formatClock(start);
  const to = formatClock(end);
  const axis = `${' '.repeat(nameWidth)}  ${from}${' '.repeat(Math.max(1, width - from.length - to.length))}${to}`;
  return ['Talk time', ...rows, axis].join('\n');
}
