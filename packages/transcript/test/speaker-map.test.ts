import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { codes, fireflies, labeledSrt, times } from './support/imports.js';

// The speaker map (name → e-mail) a user gives the importer: how a name in the export is matched
// to it, what the user reads when it is incomplete or wrong, and the label an unmapped name gets
// in the SRT (removable, R6).

describe('matching speaker names to the map', () => {
  it('ignores a blank speaker name and trims the others', () => {
    const r = fireflies([
      { speaker_name: '   ', start_time: 0, end_time: 1, text: 'a' },
      { speaker_name: '', start_time: 1, end_time: 2, text: 'b' },
      { speaker_name: ' Ana Ruiz ', start_time: 2, end_time: 3, text: 'c' },
    ]);
    expect(r.speakers).toEqual([{ name: 'Ana Ruiz', email: null, cueCount: 1 }]);
    expect(times(r).map((t) => t[2])).toEqual([null, null, 'ana ruiz']);
  });

  it('writes the e-mails of the map trimmed and lowercased (D6)', () => {
    const r = importTranscript('Ana Ruiz: hi', { speakers: { 'Ana Ruiz': ' Ana@X.IO ' } });
    expect(r.speakers).toEqual([{ name: 'Ana Ruiz', email: 'ana@x.io', cueCount: 1 }]);
    expect(times(r).map((t) => t[2])).toEqual(['ana@x.io']);
  });

  it('matches names with entities decoded and runs of spaces as one, but not without spaces', () => {
    const r = importTranscript('Mar&#237;a  L\u00f3pez  0:01\nhola\nAnaRuiz  0:05\nhi\n', {
      source: 'otter-txt',
      speakers: { 'maría lópez': 'm@x.io', 'Ana Ruiz': 'a@x.io' },
    });
    expect(r.speakers).toEqual([
      { name: 'Mar&#237;a  López', email: 'm@x.io', cueCount: 1 },
      { name: 'AnaRuiz', email: null, cueCount: 1 },
    ]);
  });

  it.each(['\u200f', '\u200e', '\u202b', '\u2067'])(
    'a name with U+%s matches the speaker map and is shown without it',
    (mark) => {
      const code = mark.codePointAt(0)!.toString(16).toUpperCase();
      const text = labeledSrt([`${mark}לקוח`, 'Ana']);
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

  it('tolerates a speaker map that is null or not an object', () => {
    expect(codes(importTranscript('Ana: hi', { speakers: null as never }))).toEqual([
      'timing_estimated',
      'unmapped_speaker',
    ]);
    expect(codes(importTranscript('Ana: hi', { speakers: 'x' as never }))).toEqual([
      'timing_estimated',
      'unmapped_speaker',
    ]);
  });
});

describe('an incomplete or wrong speaker map, in words', () => {
  it('names an unmapped speaker with its cue count and first line', () => {
    const r = importTranscript('Ana Ruiz: hi\nBob: one\nBob: two', { source: 'plain' });
    expect(r.diagnostics.filter((d) => d.code === 'unmapped_speaker')).toEqual([
      {
        code: 'unmapped_speaker',
        severity: 'error',
        line: 1,
        message:
          'Speaker "Ana Ruiz" (1 cue, first at line 1) has no e-mail in the speaker map; their turns would stay unattributed. Map "Ana Ruiz" to an e-mail.',
      },
      {
        code: 'unmapped_speaker',
        severity: 'error',
        line: 2,
        message:
          'Speaker "Bob" (2 cues, first at line 2) has no e-mail in the speaker map; their turns would stay unattributed. Map "Bob" to an e-mail.',
      },
    ]);
    // JSON turns have no line: none is named.
    const gong = importTranscript(
      JSON.stringify({ callTranscripts: [{ transcript: [{ speakerId: 9, sentences: [{}] }] }] }),
      { source: 'gong-json' },
    );
    expect(gong.diagnostics.find((d) => d.code === 'unmapped_speaker')?.message).toBe(
      'Speaker "9" (1 cue) has no e-mail in the speaker map; their turns would stay unattributed. Map "9" to an e-mail.',
    );
  });

  it('names a bad e-mail in the map with its JSON value, including a value that is no string', () => {
    const r = importTranscript('Ana Ruiz: hi', {
      source: 'plain',
      speakers: { 'Ana Ruiz': 42 as never, Bob: 'bob' },
    });
    expect(r.diagnostics.filter((d) => d.code === 'invalid_speaker_email')).toEqual([
      {
        code: 'invalid_speaker_email',
        severity: 'error',
        line: 0,
        message: 'The speaker map gives "Ana Ruiz" the value 42, which is not a valid e-mail.',
      },
      {
        code: 'invalid_speaker_email',
        severity: 'error',
        line: 0,
        message: 'The speaker map gives "Bob" the value "bob", which is not a valid e-mail.',
      },
    ]);
  });
});

describe('the label an unmapped name gets in the SRT', () => {
  it('writes an unmapped name as a label: colons to spaces, runs of spaces as one', () => {
    const r = importTranscript('Ana:Ruiz  von   Bo  0:01\nhi\n', { source: 'otter-txt' });
    expect(parseTranscript(r.srt).cues[0]?.lines[0]).toBe('ana ruiz von bo: hi');
  });

  it('writes an unmapped name without colons as the label, or "speaker" when nothing is left', () => {
    const r = importTranscript('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v ::>hi\n', {
      source: 'teams-vtt',
    });
    expect(parseTranscript(r.srt).cues[0]?.lines[0]).toBe('speaker: hi');
    const long = importTranscript(
      `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v ${'n'.repeat(70)}>hi\n`,
      {
        source: 'teams-vtt',
      },
    );
    expect(parseTranscript(long.srt).cues[0]?.label).toBe('n'.repeat(64));
  });
});
