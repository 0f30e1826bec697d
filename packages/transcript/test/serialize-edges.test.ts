import { parseWebVtt, serializeSrt, storedTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

describe('serializeSrt edges', () => {
  it('writes a label alone when a cue has neither lines nor text', () => {
    expect(serializeSrt([{ startMs: 0, endMs: 1000, label: 'Rep@Acme.com' }])).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\nrep@acme.com:\n',
    );
    expect(serializeSrt([{ startMs: 0, endMs: 1000, text: 42 as never }])).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\n',
    );
  });
});

describe('storedTranscript edges', () => {
  it('stores nothing for a transcript that is not a string', () => {
    expect(storedTranscript(42 as never)).toBe('');
    expect(storedTranscript(null as never, {})).toBe('');
  });
});

describe('parseWebVtt blocks', () => {
  it('skips a NOTE block whose keyword is followed by a tab, space or nothing, but not NOTES', () => {
    const vtt = (note: string) =>
      parseWebVtt(
        `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nhi\n\n${note}\nhidden\n\n00:00:03.000 --> 00:00:04.000\nho\n`,
      ).cues.map((c) => c.text);
    expect(vtt('NOTE\tby the editor')).toEqual(['hi', 'ho']);
    expect(vtt('NOTE by the editor')).toEqual(['hi', 'ho']);
    expect(vtt('NOTE')).toEqual(['hi', 'ho']);
    expect(vtt('NOTES')).toEqual(['hi\nNOTES\nhidden', 'ho']);
  });
});
