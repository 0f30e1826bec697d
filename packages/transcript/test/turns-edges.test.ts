import { importTranscript, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// Each meeting-tool reader at the edges of its format: how a turn's text is assembled, which
// lines are left out, how a chat line is recognised, and the line a speaker is reported at.

const MAP = { 'Ana Ruiz': 'a@x.io', 'Ben Okafor': 'b@x.io' };
const imp = (text: string, source: string, speakers: Record<string, string> = MAP) =>
  importTranscript(text, { source: source as never, speakers });
const cues = (r: { srt: string }) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.label, c.text]);
const texts = (r: { srt: string }) => parseTranscript(r.srt).cues.map((c) => c.text);
const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);
const skipped = (r: { diagnostics: { code: string; line: number }[] }) =>
  r.diagnostics.filter((d) => d.code === 'skipped_line').map((d) => d.line);
const firstLine = (r: { diagnostics: { code: string; line: number }[] }) =>
  r.diagnostics.find((d) => d.code === 'unmapped_speaker')?.line;

describe('WebVTT', () => {
  const cue = (lines: string) => `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${lines}\n`;

  it('keeps the reader warnings but not the markup notes of voice spans', () => {
    const r = imp('00:00:01.000 --> 00:00:02.000\n<v Ana Ruiz>hi\n', 'teams-vtt');
    expect(codes(r)).toEqual(['missing_webvtt_header']);
  });

  it('decodes entities in the text of every cue, with a voice, a name or neither', () => {
    expect(
      texts(imp(cue('<v Ana Ruiz>Tom &amp; Jerry\nand &quot;more&quot;'), 'teams-vtt')),
    ).toEqual(['Tom & Jerry\nand "more"']);
    expect(cues(imp(cue('Ana Ruiz: hi &amp; bye\nsecond &quot;line&quot;'), 'zoom-vtt'))).toEqual([
      [1000, 'a@x.io', 'hi & bye\nsecond "line"'],
    ]);
    expect(cues(imp(cue('Tom &amp; Jerry'), 'webvtt'))).toEqual([[1000, null, 'Tom & Jerry']]);
  });

  it('reads a voice span after leading spaces; "<v.class>" alone names nobody', () => {
    expect(cues(imp(cue('   <v Ana Ruiz>hi'), 'teams-vtt'))).toEqual([[1000, 'a@x.io', 'hi']]);
    const r = imp(cue('<v.loud>hi'), 'teams-vtt');
    expect(r.speakers).toEqual([]);
    expect(cues(r)).toEqual([[1000, null, 'hi']]);
    // Text that merely has a '>' after its third character is no voice span.
    expect(imp(cue('ab c> d'), 'webvtt').speakers).toEqual([]);
  });
});

describe('SRT with name labels', () => {
  it('keeps the lines after the label line and leaves entities alone', () => {
    const r = imp('1\n00:00:01,000 --> 00:00:02,000\nAna Ruiz: Tom &amp; Jerry\nsecond\n', 'srt');
    expect(cues(r)).toEqual([[1000, 'a@x.io', 'Tom &amp; Jerry\nsecond']]);
  });
});

describe('Teams docx legacy', () => {
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
});

describe('Otter and Teams docx text', () => {
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
});

describe('Google Meet', () => {
  it('reads the first line as speech, continues turns with trimmed lines, reports the line', () => {
    const r = imp('Ana Ruiz: hi\n\n   more words  \nBob: ho', 'meet-txt');
    expect(cues(r).map((c) => c.slice(1))).toEqual([
      ['a@x.io', 'hi\nmore words'],
      ['bob', 'ho'],
    ]);
    expect(skipped(r)).toEqual([]);
    expect(firstLine(r)).toBe(4);
  });

  it('leaves out the attendees block, the title and the disclaimer wherever they stand', () => {
    const r = imp(
      'Ana Ruiz: hi\nAttendees\nAna Ruiz, Ben Okafor\nWeekly sync (2024-01-01) - Transcript\n' +
        'This editable transcript was computer generated and might contain errors.\nBen Okafor: ho',
      'meet-txt',
    );
    expect(texts(r)).toEqual(['hi', 'ho']);
    expect(skipped(r)).toEqual([2, 3, 4, 5]);
  });
});

describe('Zoom chat', () => {
  it('recognises a chat line by a clock of 5 to 8 characters that parses', () => {
    expect(imp('12:34 From Ana Ruiz : hi', 'zoom-txt').speakers).toHaveLength(1);
    expect(imp('1:02:03 From Ana Ruiz : hi', 'zoom-txt').speakers).toHaveLength(1);
    for (const line of [
      '1:05 From Ana Ruiz : hi',
      '100:00:00 From Ana Ruiz : hi',
      'ab:cd From Ana Ruiz : hi',
      '10:00:00 From Ana Ruiz hello',
      '00:01:05 Ana Ruiz hi',
    ]) {
      const r = imp(line, 'zoom-txt');
      expect(r.speakers).toEqual([]);
      expect(skipped(r)).toEqual([1]);
    }
  });

  it('splits sender and message at " : ", trims both, collapses spaces in the name', () => {
    const r = imp(
      '10:00:00 From Ana Ruiz : see below:\n10:00:05 From  Ben   Okafor  to  Ana Ruiz(Direct Message) :   ok  \n',
      'zoom-txt',
    );
    expect(r.speakers.map((s) => s.name)).toEqual(['Ana Ruiz', 'Ben Okafor']);
    expect(cues(r)).toEqual([
      [0, 'a@x.io', 'see below:'],
      [5000, 'b@x.io', 'ok'],
    ]);
    expect(firstLine(imp('\n\n10:00:00 From Cy : hi', 'zoom-txt'))).toBe(3);
  });

  it('reads a two-line message head with trailing spaces', () => {
    const r = imp('10:00:00 From Ana Ruiz:  \n\thello\n', 'zoom-txt');
    expect(cues(r)).toEqual([[0, 'a@x.io', 'hello']]);
  });

  it('keeps cloud elapsed times as they are (no wall clock), trimming sender and message', () => {
    const r = imp('00:01:05\tAna Ruiz :\t hi \n00:01:09\tBen Okafor:\tho\n', 'zoom-txt');
    expect(cues(r)).toEqual([
      [65_000, 'a@x.io', 'hi'],
      [69_000, 'b@x.io', 'ho'],
    ]);
  });

  it('a reaction is dropped with its continuation lines; a message with text is kept', () => {
    const r = imp(
      '10:00:00 From Ana Ruiz : hello\nReacted to "a long\nquote" with 👍\n10:00:05 From Ben Okafor : hi\n',
      'zoom-txt',
    );
    expect(cues(r)).toEqual([
      [0, 'a@x.io', 'hello'],
      [5000, 'b@x.io', 'hi'],
    ]);
    expect(skipped(r)).toEqual([2, 3]);
    const head = imp('10:00:09 From Ben Okafor : Reacted to "sure" with ❤️   \n', 'zoom-txt');
    expect(head.diagnostics[0]?.message).toBe(
      'Line 1 is not speech (title, date, attendees or a tool notice) and is left out: "10:00:09 From Ben Okafor : Reacted to "sure" with ❤️".',
    );
  });
});

describe('plain text turns', () => {
  it('continues the previous turn with unlabeled lines (trimmed) and reports each turn’s line', () => {
    const r = imp('\nAna Ruiz: hi\n  continued  \nBob: ho\n', 'plain');
    expect(cues(r).map((c) => c.slice(1))).toEqual([
      ['a@x.io', 'hi\ncontinued'],
      ['bob', 'ho'],
    ]);
    expect(firstLine(r)).toBe(4);
    const unlabeled = imp('  just words  \nmore', 'plain');
    expect(texts(unlabeled)).toEqual(['just words\nmore']);
  });
});

describe('JSON exports', () => {
  it('Fireflies: a speaker name that is not a string is no speaker; times must be finite numbers', () => {
    const r = imp(
      '{"sentences":[{"speaker_name":5,"start_time":"1.5","end_time":1e999,"text":"hi"}]}',
      'fireflies-json',
    );
    expect(r.speakers).toEqual([]);
    // Both times unusable: estimated from the start (0) at 150 words per minute (1 s at least).
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs])).toEqual([[0, 1000]]);
    expect(codes(imp('{"sentences": 5}', 'fireflies-json'))).toEqual(['no_speech']);
    expect(codes(imp('null', 'fireflies-json'))).toEqual(['no_speech']);
  });

  it('Gong: a time that is not a number is estimated', () => {
    const r = imp(
      JSON.stringify({
        callTranscripts: [
          { transcript: 5 },
          { transcript: [{ speakerId: 1, sentences: [{ start: 100, end: '900', text: 'hi' }] }] },
        ],
      }),
      'gong-json',
      { '1': 'a@x.io' },
    );
    expect(parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label])).toEqual([
      [100, 1100, 'a@x.io'],
    ]);
  });
});
