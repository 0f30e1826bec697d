// Helpers of the importer tests (importTranscript): the speaker map most of them use, the one-cue
// inputs they start from, and the parts of an import's result they compare.
import { importTranscript, parseTranscript } from '@rcs/transcript';

/** The speaker map of the importer tests: two people of a call. */
export const SPEAKERS = { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' };

/** `text` imported as `source`, with SPEAKERS unless another map is given. */
export const imp = (text: string, source: string, speakers: Record<string, string> = SPEAKERS) =>
  importTranscript(text, { source: source as never, speakers });

/** A WebVTT file of one cue, from 1 s to 2 s, holding `lines`. */
export const vttCue = (lines: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${lines}\n`;

/** Fireflies sentences as their JSON export, imported with `speakers` (none unless given). */
export const fireflies = (sentences: unknown[], speakers: Record<string, string> = {}) =>
  importTranscript(JSON.stringify({ sentences }), { source: 'fireflies-json', speakers });

type Imported = { srt: string };
type Diagnosed = { diagnostics: { code: string; line: number }[] };

/** Each cue of the SRT an import wrote: start, label, text. */
export const cues = (r: Imported) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.label, c.text]);

/** Each cue of the SRT an import wrote: start, end, label, text. */
export const timedCues = (r: Imported) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label, c.text]);

/** Each cue of the SRT an import wrote: start, end, label. */
export const times = (r: Imported) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label]);

/** The text of each cue of the SRT an import wrote. */
export const texts = (r: Imported) => parseTranscript(r.srt).cues.map((c) => c.text);

/** The code of each diagnostic, in order. */
export const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);

/** The lines a `skipped_line` note names (lines that are not speech). */
export const skipped = (r: Diagnosed) =>
  r.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line);

/** The line the first `unmapped_speaker` error names: where that speaker's first turn starts. */
export const firstLine = (r: Diagnosed) =>
  r.diagnostics.find((d) => d.code === 'unmapped_speaker')?.line;

/** An SRT of one cue per label, each spoken by that label ("<label>: Words of turn <i>."). */
export const labeledSrt = (labels: string[]) =>
  labels
    .map((l, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i},900\n${l}: Words of turn ${i}.\n`)
    .join('\n');
