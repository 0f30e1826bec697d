import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { cues, firstLine, imp, skipped, texts } from './support/imports.js';

// Otter's text export and Teams' docx transcript (saved as text): turns under "Name  0:01"
// headers, and the tools' own lines around them. Teams' legacy docx layout puts a timing line and
// a speaker line above each turn instead.

describe('Otter and Teams docx text: turns under speaker headers', () => {
  it('joins a turn’s paragraphs line by line, trimmed, and reports the header line', () => {
    const r = imp(
      'Title\n\nAna Ruiz  0:01\n   first paragraph   \nsecond\n\nBob  0:05\nhi\n',
      'otter-txt',
    );
    expect(cues(r)).toEqual([
      [1000, 'a@x.io', 'first paragraph\nsecond'],
      [5000, 'bob', 'hi'],
    ]);
    expect(firstLine(r)).toBe(7);
  });

  it('skips "<Name> stopped transcription" for a known name only, spaces around it allowed', () => {
    const r = imp(
      'Ana Ruiz   0:01\nSo we started transcription\nAna Ruiz  stopped transcription  \n',
      'teams-docx',
    );
    expect(texts(r)).toEqual(['So we started transcription']);
    expect(skipped(r)).toEqual([3]);
  });

  it('Otter / Teams text: only the exact tool footers are skipped, not speech that resembles them', () => {
    const otter = [
      'Ana Ruiz  0:02',
      'Transcribed by hand, these notes are mine.',
      '',
      'Ben Okafor  0:06',
      'Then we started transcription of the contract',
      '',
      'Transcribed by https://otter.ai',
    ].join('\n');
    const o = importTranscript(otter, {
      source: 'otter-txt',
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(parseTranscript(o.srt).cues.map((c) => c.text)).toEqual([
      'Transcribed by hand, these notes are mine.',
      'Then we started transcription of the contract',
    ]);
    expect(o.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line)).toEqual([7]);

    const teams = [
      'Sync-20260615_140212-Meeting Transcript',
      'Cleo Diaz started transcription',
      '',
      'Ana Ruiz   0:03',
      'Yesterday we started transcription',
      '',
      'Ben Okafor   0:11',
      'Sounds good.',
      '',
      'Ana Ruiz stopped transcription',
      'Cleo Diaz stopped transcription',
    ].join('\n');
    const t = importTranscript(teams, {
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(t.source).toBe('teams-docx');
    // A notice names a speaker already seen (a turn's, or Cleo, who started the transcription).
    expect(parseTranscript(t.srt).cues.map((c) => c.text)).toEqual([
      'Yesterday we started transcription',
      'Sounds good.',
    ]);
    expect(t.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line)).toEqual([
      1, 2, 10, 11,
    ]);
  });
});

describe('Teams docx legacy: a timing line and a speaker line above each turn', () => {
  it('takes the trimmed first line as the speaker and the rest, as written, as the text', () => {
    const r = imp(
      '0:0:1.0 --> 0:0:2.0\n  Ana&#32;Ruiz  \nTom &amp; Jerry\n\n0:0:3.0 --> 0:0:4.0\n',
      'teams-docx-legacy',
    );
    expect(r.speakers).toEqual([{ name: 'Ana Ruiz', email: 'a@x.io', cueCount: 1 }]);
    expect(cues(r)).toEqual([
      [1000, 'a@x.io', 'Tom &amp; Jerry'],
      [3000, null, ''],
    ]);
  });

  it('Teams docx legacy: unpadded times are normal, other timing departures are reported', () => {
    const legacy = [
      '0:0:0.0 --> 0:0:4.520',
      'Ana Ruiz',
      'Hello.',
      '',
      '0:0:4.520-->0:0:6.100',
      'Ben Okafor',
      'Hi.',
    ].join('\n');
    const r = importTranscript(legacy, {
      source: 'teams-docx-legacy',
      speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' },
    });
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([['timing_tolerated', 5]]);
    expect(r.diagnostics[0]?.message).toMatch(/no space around "-->"/);
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label])).toEqual([
      [0, 4520, 'a@x.io'],
      [4520, 6100, 'b@x.io'],
    ]);
  });
});
