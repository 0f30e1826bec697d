import {
  computeKpis,
  IMPORT_SOURCES,
  importTranscript,
  parseTranscript,
  parseWebVtt,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// importTranscript's own messages and estimates, computeKpis' first run, and the WebVTT reader's
// header and block handling.

const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);
const times = (r: { srt: string }) =>
  parseTranscript(r.srt).cues.map((c) => [c.startMs, c.endMs, c.label]);
const ff = (sentences: unknown[], speakers: Record<string, string> = {}) =>
  importTranscript(JSON.stringify({ sentences }), { source: 'fireflies-json', speakers });

describe('importTranscript messages', () => {
  it('names an unknown source and the known ones, and reads the text as plain', () => {
    const r = importTranscript('Ana: hi', { source: 'docx' as never });
    expect(r.source).toBe('plain');
    expect(r.diagnostics[0]).toEqual({
      code: 'unknown_source',
      severity: 'error',
      line: 0,
      message: `Unknown source "docx"; expected one of ${IMPORT_SOURCES.join(', ')}.`,
    });
    expect(IMPORT_SOURCES).toContain('gong-json');
    expect(times(r)).toEqual([[0, 1000, 'ana']]);
  });

  it('says which JSON source is broken and why', () => {
    const r = importTranscript('{"callTranscripts": [', { source: 'gong-json' });
    expect(r.diagnostics[0]).toMatchObject({ code: 'invalid_json', severity: 'error', line: 0 });
    expect(r.diagnostics[0]?.message).toMatch(/^The gong-json input is not valid JSON: \S/);
  });

  it('warns about turn text that SRT would read differently, naming the turn line', () => {
    const r = importTranscript('Hello there\nNote: this\n00:00:01,000 --> 00:00:02,000', {
      source: 'plain',
    });
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toEqual([
      {
        code: 'timing_estimated',
        severity: 'warning',
        line: 0,
        message:
          'The source gives no start and/or end time for some turns; they were estimated (150 words per minute), so KPIs such as talk speed are approximate.',
      },
      {
        code: 'text_looks_like_timing',
        severity: 'warning',
        line: 2,
        message:
          'The turn at line 2 contains a line that is an SRT timing line; in the SRT it would start a new cue.',
      },
    ]);
    const label = importTranscript(
      JSON.stringify({ sentences: [{ start_time: 0, end_time: 1, text: 'Re: the budget' }] }),
      { source: 'fireflies-json' },
    );
    expect(label.diagnostics).toEqual([
      {
        code: 'text_looks_like_label',
        severity: 'warning',
        line: 0,
        message:
          'The turn at line 0 has no speaker but starts like a label ("Re: the budget"); the service would remove that prefix.',
      },
    ]);
    // A turn with a speaker may start like a label: its own label comes first.
    expect(codes(ff([{ speaker_name: 'Ana', start_time: 0, end_time: 1, text: 'Re: x' }]))).toEqual(
      ['unmapped_speaker'],
    );
  });

  it('reads WebVTT when told to', () => {
    const r = importTranscript('WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nhi\n', {
      source: 'webvtt',
    });
    expect(times(r)).toEqual([[1000, 2500, null]]);
    expect(r.diagnostics).toEqual([]);
  });
});

describe('importTranscript speakers', () => {
  it('ignores a blank speaker name and trims the others', () => {
    const r = ff([
      { speaker_name: '   ', start_time: 0, end_time: 1, text: 'a' },
      { speaker_name: '', start_time: 1, end_time: 2, text: 'b' },
      { speaker_name: ' Ana Ruiz ', start_time: 2, end_time: 3, text: 'c' },
    ]);
    expect(r.speakers).toEqual([{ name: 'Ana Ruiz', email: null, cueCount: 1 }]);
    expect(times(r).map((t) => t[2])).toEqual([null, null, 'ana ruiz']);
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

  it('writes an unmapped name as a label: colons to spaces, runs of spaces as one', () => {
    const r = importTranscript('Ana:Ruiz  von   Bo  0:01\nhi\n', { source: 'otter-txt' });
    expect(parseTranscript(r.srt).cues[0]?.lines[0]).toBe('ana ruiz von bo: hi');
  });

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

describe('importTranscript time estimates (150 words per minute, at least 1 s)', () => {
  it('caps an estimated end at the next start when that is later, not when it is equal or earlier', () => {
    const words = (n: number) => Array.from({ length: n }, () => 'w').join(' ');
    const r = ff([
      { start_time: 1, text: words(10) }, // 4 s, capped at 3 s
      { start_time: 3, text: words(10) }, // 4 s: next starts at the same time, not capped
      { start_time: 3, text: words(10) }, // next starts earlier: not capped
      { start_time: 2, text: words(1) }, // 1 s at least
    ]);
    expect(times(r)).toEqual([
      [1000, 3000, null],
      [3000, 7000, null],
      [3000, 7000, null],
      [2000, 3000, null],
    ]);
  });

  it('estimates a missing start after the latest end, and says so even when the end is known', () => {
    const r = ff([
      { start_time: 0, end_time: 5, text: 'a' },
      { end_time: 9, text: 'b' },
    ]);
    expect(times(r)).toEqual([
      [0, 5000, null],
      [5000, 9000, null],
    ]);
    expect(codes(r)).toEqual(['timing_estimated']);
    expect(codes(ff([{ start_time: 0, end_time: 5, text: 'a' }]))).toEqual([]);
  });
});

describe('computeKpis: the first run', () => {
  it('starts the first monologue at the first rep cue, however early', () => {
    const text = '1\n00:00:01,000 --> 00:00:03,000\nrep@acme.com: hello there\n';
    expect(computeKpis(parseTranscript(text), 'rep@acme.com').longestMonologue).toBe(2);
  });
});

describe('parseWebVtt header and blocks', () => {
  const CUE = '00:00:01.000 --> 00:00:02.000\nhi\n';

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
  });

  it('skips STYLE and REGION blocks after a blank line; a NOTE line inside a cue is text', () => {
    const texts = (between: string) =>
      parseWebVtt(`WEBVTT\n\n${CUE}${between}\n00:00:03.000 --> 00:00:04.000\nho\n`).cues.map(
        (c) => c.text,
      );
    expect(texts('\nSTYLE\n::cue { color: red }\n')).toEqual(['hi', 'ho']);
    expect(texts('\nREGION\nid:fred\n')).toEqual(['hi', 'ho']);
    expect(texts('NOTE to self\n')).toEqual(['hi\nNOTE to self', 'ho']);
  });
});
