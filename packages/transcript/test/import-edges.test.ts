import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// The meeting-tool importers at their edges: the shapes of a voice span, the lines that are not
// speech (and which line a skipped-line note names), JSON exports nested or partly filled, and
// the messages a user reads when the speaker map is incomplete.

const cues = (r: { srt: string }) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label, c.text]);
const skippedLines = (r: { diagnostics: { code: string; line: number }[] }) =>
  r.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line);
const MAP = { speakers: { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' } };

describe('WebVTT voice spans', () => {
  const vtt = (first: string) =>
    importTranscript(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${first}\n`, {
      source: 'teams-vtt',
      ...MAP,
    });

  it('reads <v Name>, <v.class Name> and a tab after v; the name with entities decoded', () => {
    expect(cues(vtt('<v Ana Ruiz>hello</v>'))).toEqual([[1000, 2000, 'a@x.io', 'hello']]);
    expect(cues(vtt('<v.loud Ben Okafor>hi'))).toEqual([[1000, 2000, 'b@x.io', 'hi']]);
    expect(cues(vtt('<v\tAna&#32;Ruiz>hey'))).toEqual([[1000, 2000, 'a@x.io', 'hey']]);
  });

  it('a voice span without a name is a turn without speaker; "<vx" is no voice span', () => {
    const r = vtt('<v>hello');
    expect(r.speakers).toEqual([]);
    expect(cues(r)).toEqual([[1000, 2000, null, 'hello']]);
    const v = vtt('<vx Ana Ruiz>hello');
    expect(v.speakers).toEqual([]);
    expect(cues(v)).toEqual([[1000, 2000, null, 'hello']]);
    // "<v Name" with no closing '>' is text.
    expect(vtt('<v Ana Ruiz hello').speakers).toEqual([]);
  });

  it('Zoom "Name: text" cues keep the name as written, entities decoded', () => {
    const r = importTranscript(
      'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nAna&#32;Ruiz: hi &amp; welcome\n',
      MAP,
    );
    expect(r.source).toBe('zoom-vtt');
    expect(cues(r)).toEqual([[1000, 2000, 'a@x.io', 'hi & welcome']]);
  });
});

describe('lines that are not speech', () => {
  it('Meet: a line before any turn is skipped and named by its own line number', () => {
    const r = importTranscript('Weekly sync\n\nsome note\n00:00:05\nAna Ruiz: hello\nmore words', {
      source: 'meet-txt',
      ...MAP,
    });
    expect(skippedLines(r)).toEqual([1, 3]);
    expect(r.diagnostics[0]).toEqual({
      code: 'skipped_line',
      severity: 'info',
      line: 1,
      message:
        'Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "Weekly sync".',
    });
    expect(cues(r)).toEqual([[5000, 6200, 'a@x.io', 'hello\nmore words']]);
  });

  it('Zoom chat: a continuation line before the first message is skipped at its line', () => {
    const r = importTranscript('\n  stray text\n10:00:00 From Ana Ruiz : hi\n', {
      source: 'zoom-txt',
      ...MAP,
    });
    expect(skippedLines(r)).toEqual([2]);
    expect(cues(r)).toEqual([[0, 1000, 'a@x.io', 'hi']]);
  });

  it('clips a long skipped line to 60 characters', () => {
    const long = 'x'.repeat(61);
    const r = importTranscript(`${long}\nAna Ruiz  0:01\nhi`, { source: 'otter-txt', ...MAP });
    expect(r.diagnostics[0]?.message).toBe(
      `Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "${'x'.repeat(60)}…".`,
    );
  });
});

describe('JSON exports', () => {
  it('Fireflies: sentences at the top, under data or under transcript; odd entries tolerated', () => {
    const sentence = { speaker_name: 'Ana Ruiz', start_time: 1.5, end_time: 2.25, text: 'hi' };
    for (const json of [
      { sentences: [sentence] },
      { data: { sentences: [sentence] } },
      { transcript: { sentences: [sentence] } },
    ]) {
      const r = importTranscript(JSON.stringify(json), { source: 'fireflies-json', ...MAP });
      expect(cues(r)).toEqual([[1500, 2250, 'a@x.io', 'hi']]);
    }
    const odd = importTranscript(
      JSON.stringify({ sentences: [null, 7, { speaker_name: 'Ana Ruiz', text: 5 }] }),
      { source: 'fireflies-json', ...MAP },
    );
    expect(odd.speakers).toEqual([{ name: 'Ana Ruiz', email: 'a@x.io', cueCount: 1 }]);
    expect(parseTranscript(odd.srt).cues.map((c) => c.text)).toEqual(['']);
    // Nothing to find: a scalar, or no sentences anywhere.
    for (const text of ['42', '{"data": 5}', '{"data": {"x": []}}', '{"transcript": null}']) {
      expect(
        importTranscript(text, { source: 'fireflies-json' }).diagnostics.map((d) => d.code),
      ).toEqual(['no_speech']);
    }
  });

  it('Gong: numeric and string speaker ids, missing times and text, skipped odd monologues', () => {
    const json = {
      callTranscripts: [
        null,
        { transcript: 'x' },
        {
          transcript: [
            null,
            { speakerId: 42, sentences: [{ start: 100, end: 900, text: 'one' }] },
            { speakerId: '7', sentences: [{ text: 4 }, null] },
            { speakerId: { id: 1 }, sentences: [{ start: 1000, end: 2000, text: 'who' }] },
            { speakerId: 42, sentences: 'none' },
          ],
        },
      ],
    };
    const r = importTranscript(JSON.stringify(json), {
      source: 'gong-json',
      speakers: { '42': 'a@x.io', '7': 'b@x.io' },
    });
    expect(r.speakers).toEqual([
      { name: '42', email: 'a@x.io', cueCount: 1 },
      { name: '7', email: 'b@x.io', cueCount: 2 },
    ]);
    expect(parseTranscript(r.srt).cues.map((c) => [c.label, c.text])).toEqual([
      ['a@x.io', 'one'],
      ['b@x.io', ''],
      ['b@x.io', ''],
      [null, 'who'],
    ]);
  });
});

describe('the speaker map', () => {
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

  it('accepts a non-string input as empty, with no speech', () => {
    expect(importTranscript(42 as never).diagnostics).toEqual([
      {
        code: 'no_speech',
        severity: 'error',
        line: 0,
        message: 'No speech turns were found in the plain input.',
      },
    ]);
  });
});
