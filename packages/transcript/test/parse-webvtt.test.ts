import { parseTranscript, parseWebVtt } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// The WebVTT reader behind the Teams and Zoom importers: where it finds the header, which blocks
// are no cues (NOTE, STYLE, REGION), and the cue settings that are normal in WebVTT.

const CUE = '00:00:01.000 --> 00:00:02.000\nhi\n';

describe('parseWebVtt: the header', () => {
  it('accepts the header after spaces or blank lines (with a warning for blank lines)', () => {
    expect(parseWebVtt(`  WEBVTT\n\n${CUE}`).diagnostics).toEqual([]);
    expect(parseWebVtt(`\n\nWEBVTT\n\n${CUE}`).diagnostics).toEqual([
      {
        code: 'blank_before_webvtt_header',
        severity: 'warning',
        line: 1,
        message: 'Blank lines come before "WEBVTT"; they are ignored.',
      },
    ]);
    // Old Mac line ends (CR only), the file starting with one.
    const mac = parseWebVtt('\r\rWEBVTT\r\r00:00:01.000 --> 00:00:02.000\rhi\r');
    expect(mac.cues.map((c) => [c.line, c.text])).toEqual([[5, 'hi']]);
    expect(mac.diagnostics.map((d) => d.code)).toEqual(['blank_before_webvtt_header']);
    expect(parseWebVtt(`\nTitle\n\n${CUE}`).diagnostics).toEqual([
      {
        code: 'missing_webvtt_header',
        severity: 'warning',
        line: 2,
        message: 'The file does not start with "WEBVTT"; it is read as WebVTT anyway.',
      },
    ]);
  });

  it('keeps the identifier line of the first cue, never the header itself', () => {
    const ids = (text: string) => parseWebVtt(text).cues.map((c) => [c.id, c.text]);
    expect(ids(`WEBVTT\n\nintro\n${CUE}`)).toEqual([['intro', 'hi']]);
    expect(ids(`WEBVTT\nKind: captions\n\n${CUE}`)).toEqual([[null, 'hi']]);
    expect(ids(`WEBVTT\n${CUE}`)).toEqual([[null, 'hi']]);
    expect(ids(`WEBVTT\n\nNOTE a\nb\n\n${CUE}`)).toEqual([[null, 'hi']]);
    // A first cue without text keeps its identifier too.
    expect(ids(`WEBVTT\n\nintro\n00:00:01.000 --> 00:00:02.000\n\n${CUE}`)).toEqual([
      ['intro', ''],
      [null, 'hi'],
    ]);
  });

  it('reads a header without cues, and cues without a header', () => {
    expect(parseWebVtt('WEBVTT\n')).toEqual({ cues: [], diagnostics: [] });
    const bare = parseWebVtt(CUE);
    expect(bare.cues.map((c) => [c.id, c.startMs, c.text])).toEqual([[null, 1000, 'hi']]);
    expect(bare.diagnostics.map((d) => [d.code, d.line])).toEqual([['missing_webvtt_header', 1]]);
  });

  it('numeric identifiers out of order are no news: WebVTT identifiers are free text', () => {
    const r = parseWebVtt(`WEBVTT\n\n7\n${CUE}\n3\n00:00:03.000 --> 00:00:04.000\nho\n\nx\n${CUE}`);
    expect(r.cues.map((c) => c.id)).toEqual(['7', '3', 'x']);
    expect(r.diagnostics).toEqual([]);
  });
});

describe('parseWebVtt: NOTE, STYLE and REGION blocks are no cues', () => {
  it('skips STYLE and REGION blocks after a blank line; a NOTE line inside a cue is text', () => {
    const texts = (between: string) =>
      parseWebVtt(`WEBVTT\n\n${CUE}${between}\n00:00:03.000 --> 00:00:04.000\nho\n`).cues.map(
        (c) => c.text,
      );
    expect(texts('\nSTYLE\n::cue { color: red }\n')).toEqual(['hi', 'ho']);
    expect(texts('\nREGION\nid:fred\n')).toEqual(['hi', 'ho']);
    expect(texts('NOTE to self\n')).toEqual(['hi\nNOTE to self', 'ho']);
    // The keyword starts the line of a block; further on, it is a word of the cue.
    expect(texts('\nsee the NOTE below\n')).toEqual(['hi\nsee the NOTE below', 'ho']);
  });

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

describe('parseWebVtt: cue settings', () => {
  it('WebVTT cue settings are normal there: no warning (an SRT with coordinates still gets one)', () => {
    const vtt = parseWebVtt('WEBVTT\n\n00:01.000 --> 00:02.000 align:start position:10%\nhi\n');
    expect(vtt.diagnostics).toEqual([]);
    expect(vtt.cues[0]).toMatchObject({ startMs: 1000, endMs: 2000, text: 'hi' });
    const srt = parseTranscript('1\n00:00:01,000 --> 00:00:02,000 X1:40 X2:600\nhi\n');
    expect(srt.diagnostics.map((d) => d.code)).toEqual(['timing_settings_ignored']);
  });
});
