import {
  computeKpis,
  countWords,
  detectSource,
  MAX_PER_CODE,
  parseTranscript,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// What counts as a word (D21 talk speed) at the edges of each character range, how a monologue
// run ends, the severity of a capped code's summary, and a bare <v> voice span in detection.

describe('countWords', () => {
  it('counts a token with an ASCII letter or digit, at each edge of the ranges', () => {
    for (const ch of ['0', '9', 'A', 'Z', 'a', 'z']) expect(countWords(`${ch}`)).toBe(1);
    for (const ch of ['/', ':', '@', '[', '`', '{', '\u007f']) expect(countWords(ch)).toBe(0);
  });

  it('counts non-ASCII letters, not general punctuation (U+2000–U+206F)', () => {
    expect(countWords('\u0080 é 日 \u1fff \u2070')).toBe(5);
    expect(countWords('\u2010 \u2026 \u206f \u2014')).toBe(0);
  });

  it('needs whitespace between words, and nothing before the first counts', () => {
    expect(countWords(' hi')).toBe(1);
    expect(countWords('\thi there ')).toBe(2);
    expect(countWords('— hi —')).toBe(1);
    expect(countWords('')).toBe(0);
  });
});

describe('computeKpis runs', () => {
  const cue = (i: number, start: string, end: string, text: string) =>
    `${i}\n00:00:${start} --> 00:00:${end}\n${text}\n`;

  it('a gap of exactly 2 s starts a new run; just under continues it', () => {
    const at = (gapStart: string) =>
      computeKpis(
        parseTranscript(
          [
            cue(1, '00,000', '01,000', 'rep@x.io: a'),
            cue(2, gapStart, '04,000', 'rep@x.io: b'),
          ].join('\n'),
        ),
        'rep@x.io',
      ).longestMonologue;
    expect(at('03,000')).toBe(1);
    expect(at('02,999')).toBe(4);
  });

  it("another speaker's cue without words does not end the rep's run", () => {
    const text = [
      cue(1, '00,000', '01,000', 'rep@x.io: a'),
      cue(2, '01,000', '01,500', 'client@y.io:'),
      cue(3, '01,500', '03,000', 'rep@x.io: b'),
    ].join('\n');
    expect(computeKpis(parseTranscript(text), 'rep@x.io').longestMonologue).toBe(3);
  });

  it('is all null when no cue is the rep’s, even with speech', () => {
    const text = cue(1, '00,000', '01,000', 'client@y.io: hello');
    expect(computeKpis(parseTranscript(text), 'rep@x.io')).toEqual({
      listenRatio: null,
      longestMonologue: null,
      talkSpeed: null,
    });
  });
});

describe('diagnostic summaries', () => {
  it('take the severity of their own code, not of the first diagnostic listed', () => {
    const cues = Array.from(
      { length: MAX_PER_CODE + 1 },
      (_, i) => `${i + 2}\n00:00:01,000 --> 00:00:02,000\n<i>hi</i>`,
    );
    // The first cue has no index: a warning on line 1, before every markup info.
    const text = ['00:00:00,000 --> 00:00:01,000\nfirst', ...cues].join('\n\n');
    const d = parseTranscript(text).diagnostics;
    expect(d[0]).toMatchObject({ code: 'missing_index', severity: 'warning', line: 1 });
    expect(d.at(-1)).toMatchObject({ code: 'markup_stripped', severity: 'info', line: 0 });
  });
});

describe('detectSource: voice spans', () => {
  it('takes a bare <v> span as a Teams voice', () => {
    expect(detectSource('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v>hi\n')).toBe('teams-vtt');
    expect(detectSource('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<vi>hi\n')).toBe('webvtt');
  });
});
