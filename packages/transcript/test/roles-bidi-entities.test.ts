import {
  decodeTranscriptBytes,
  importTranscript,
  parseTranscript,
  roleLabels,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// Speaker labels that name roles (a hint for the speaker map), invisible bidi controls in names,
// Teams' escaped angle brackets, and NUL bytes for a caller that leaves the judgement to the
// service.

const srt = (labels: string[]) =>
  labels
    .map((l, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i},900\n${l}: Words of turn ${i}.\n`)
    .join('\n');

describe('roleLabels', () => {
  it('finds role labels in first-speaking order, as written, with their side and line', () => {
    const parsed = parseTranscript(srt(['Client', 'Agent', 'Client', 'Speaker 1']));
    expect(roleLabels(parsed)).toEqual([
      { label: 'Client', side: 'customer', line: 3 },
      { label: 'Agent', side: 'rep', line: 7 },
      { label: 'Speaker 1', side: 'unknown', line: 15 },
    ]);
  });

  it.each([
    ['REP', 'rep'],
    ['Sales', 'rep'],
    ['sales rep', 'rep'],
    ['Customer', 'customer'],
    ['SPEAKER_01', 'unknown'],
    ['Speaker A', 'unknown'],
    ['Participant #2', 'unknown'],
    ['Kunde', 'customer'],
    ['Vendedor', 'rep'],
    ['Conseiller', 'rep'],
    ['\u200fלקוח', 'customer'],
    ['נציג', 'rep'],
    ['Agent (Ana)', 'rep'],
  ])('%j is a role (%s)', (label, side) => {
    expect(roleLabels(parseTranscript(srt([label, 'Ana Ruiz'])))[0]?.side).toBe(side);
  });

  it('names, and transcripts that already carry e-mail labels, give none', () => {
    expect(roleLabels(parseTranscript(srt(['Ana Ruiz', 'Representative Smith'])))).toEqual([]);
    expect(roleLabels(parseTranscript(srt(['Agent', 'ana@acme.com'])))).toEqual([]);
    expect(roleLabels(parseTranscript(srt(['Reps', 'Re'])))).toEqual([]);
  });
});

describe('bidirectional controls in speaker names', () => {
  it.each(['\u200f', '\u200e', '\u202b', '\u2067'])(
    'a name with U+%s matches the speaker map and is shown without it',
    (mark) => {
      const code = mark.codePointAt(0)!.toString(16).toUpperCase();
      const text = srt([`${mark}לקוח`, 'Ana']);
      const r = importTranscript(text, {
        source: 'srt',
        speakers: { לקוח: 'buyer@client.example', Ana: 'ana@acme.com' },
      });
      expect(
        r.diagnostics.filter((d) => d.severity === 'error'),
        code,
      ).toEqual([]);
      expect(r.speakers[0]).toEqual({ name: 'לקוח', email: 'buyer@client.example', cueCount: 1 });
      const unmapped = importTranscript(text, { source: 'srt', speakers: { Ana: 'ana@acme.com' } });
      const message = unmapped.diagnostics.find((d) => d.code === 'unmapped_speaker')?.message;
      expect(message).toContain('Speaker "לקוח"');
      expect(message).not.toContain(mark);
    },
  );
});

describe("Teams' escaped angle brackets", () => {
  it('&lt;Thursday&gt; stays words in the converted SRT, not a tag that is stripped', () => {
    const vtt =
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz>Let us meet &lt;Thursday&gt; at ten.</v>\n';
    const r = importTranscript(vtt, { source: 'teams-vtt', speakers: { 'Ana Ruiz': 'a@x.io' } });
    const [cue] = parseTranscript(r.srt).cues;
    expect(cue?.text).toContain('Thursday');
    expect(r.srt).toContain('&lt;Thursday&gt;');
  });

  it('other entities are still decoded, and markup is still stripped', () => {
    const vtt =
      'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana Ruiz><i>Q&amp;A</i> at 2 &lt; 3 &gt; 1</v>\n';
    const r = importTranscript(vtt, { source: 'teams-vtt', speakers: { 'Ana Ruiz': 'a@x.io' } });
    expect(parseTranscript(r.srt).cues[0]?.text).toBe('Q&A at 2 < 3 > 1');
  });
});

describe('decodeTranscriptBytes with allowControlBytes', () => {
  const bytes = new TextEncoder().encode('1\n00:00:01,000 --> 00:00:02,000\nhi\u0000 there\n');

  it('keeps a NUL byte as a character instead of refusing the file as binary', () => {
    expect(decodeTranscriptBytes(bytes)).toMatchObject({ error: { code: 'binary_content' } });
    const kept = decodeTranscriptBytes(bytes, { allowControlBytes: true });
    expect(kept).toMatchObject({ text: '1\n00:00:01,000 --> 00:00:02,000\nhi\u0000 there\n' });
  });

  it('still refuses bytes that are not UTF-8', () => {
    const bad = new Uint8Array([...bytes, 0xff, 0x00]);
    expect(decodeTranscriptBytes(bad, { allowControlBytes: true })).toMatchObject({
      error: { code: 'invalid_utf8' },
    });
  });
});
