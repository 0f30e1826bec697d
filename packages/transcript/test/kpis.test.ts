import { computeKpis, countWords, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

const cue = (i: number, start: string, end: string, text: string) =>
  `${i}\n00:${start} --> 00:${end}\n${text}\n`;
const REP = 'rep@acme.com';

describe('computeKpis (D21)', () => {
  it('computes listen ratio, longest monologue and talk speed from rep-labeled cues', () => {
    const text = [
      cue(1, '00:00,000', '00:10,000', 'rep@acme.com: one two three four five'),
      // 1.5 s gap: the run continues (gaps under 2 s).
      cue(2, '00:11,500', '00:20,000', 'REP@acme.com: six seven eight nine ten'),
      cue(3, '00:20,000', '00:30,000', 'client@x.org: a b c'),
      // 3 s gap after the client's cue; a new, shorter run.
      cue(4, '00:33,000', '00:38,000', 'rep@acme.com: eleven twelve'),
      cue(5, '00:38,000', '00:40,000', 'Client: ok'),
    ].join('\n');
    const k = computeKpis(parseTranscript(text), REP);
    // Speaking time 10 + 8.5 + 10 + 5 + 2 = 35.5 s, rep 23.5 s → listen 12/35.5 = 0.338.
    // Longest run: 0 → 20 s. Rep words 12 in 23.5 s → 30.6 wpm.
    expect(k).toEqual({ listenRatio: 0.338, longestMonologue: 20, talkSpeed: 30.6 });
  });

  it('breaks a run at another speaker even without a gap', () => {
    const text = [
      cue(1, '00:00,000', '00:05,000', 'rep@acme.com: a'),
      cue(2, '00:05,000', '00:06,000', 'client@x.org: b'),
      cue(3, '00:06,000', '00:09,000', 'rep@acme.com: c'),
    ].join('\n');
    expect(computeKpis(parseTranscript(text), REP).longestMonologue).toBe(5);
  });

  it('ignores empty cues and counts reversed cues as zero time', () => {
    const text = [
      cue(1, '00:00,000', '00:04,000', 'rep@acme.com: hello there'),
      cue(2, '00:04,000', '00:09,000', ''),
      cue(3, '00:09,000', '00:05,000', 'client@x.org: backwards'),
    ].join('\n');
    expect(computeKpis(parseTranscript(text), REP)).toEqual({
      listenRatio: 0,
      longestMonologue: 4,
      talkSpeed: 30,
    });
  });

  it('is all null without timing (plain text) or without a rep-labeled cue (D18 SKIPPED)', () => {
    const none = { listenRatio: null, longestMonologue: null, talkSpeed: null };
    expect(computeKpis(parseTranscript('rep@acme.com: hello there'), REP)).toEqual(none);
    expect(
      computeKpis(parseTranscript(cue(1, '00:00,000', '00:01,000', 'Agent: hi')), REP),
    ).toEqual(none);
    // Rep-labeled, but no speaking time anywhere (zero-length cues).
    const silent = cue(1, '00:01,000', '00:01,000', 'rep@acme.com: hi');
    expect(computeKpis(parseTranscript(silent), REP)).toEqual(none);
  });

  it('counts words as tokens with a letter or digit', () => {
    expect(countWords('Hello, world — 42 … ok?')).toBe(4);
    expect(countWords('  ')).toBe(0);
    expect(countWords('日本語 です')).toBe(2);
  });

  it('a rep cue without words neither starts nor extends a monologue', () => {
    // Only the label: no speech, so no 60 s monologue (and no rep speaking time).
    const labelOnly = [
      cue(1, '00:00,000', '01:00,000', 'rep@acme.com:'),
      cue(2, '01:00,000', '01:05,000', 'client@x.org: anyone there?'),
    ].join('\n');
    expect(computeKpis(parseTranscript(labelOnly), REP)).toEqual({
      listenRatio: 1,
      longestMonologue: 0,
      talkSpeed: null,
    });
    // Between two short spoken rep cues, a silent one must not bridge them into one run.
    const bridged = [
      cue(1, '00:00,000', '00:05,000', 'rep@acme.com: one two'),
      cue(2, '00:05,000', '00:59,000', 'rep@acme.com:'),
      cue(3, '01:00,000', '01:03,000', 'rep@acme.com: three'),
    ].join('\n');
    expect(computeKpis(parseTranscript(bridged), REP).longestMonologue).toBe(5);
  });

  it('treats every Unicode space as whitespace, for words and for speech', () => {
    expect(countWords('hello\u2003world')).toBe(2);
    expect(countWords('a\u2009b\u202fc\u1680d\u00a0e')).toBe(5);
    // A cue whose text is only an em space (once its tags are stripped) is not speech.
    const text = [
      cue(1, '00:00,000', '00:04,000', 'rep@acme.com: hello there'),
      cue(2, '00:04,000', '00:14,000', '<i>\u2003</i>'),
    ].join('\n');
    expect(computeKpis(parseTranscript(text), REP)).toEqual({
      listenRatio: 0,
      longestMonologue: 4,
      talkSpeed: 30,
    });
  });
});

describe('countWords: what is a word (D21 talk speed), at the edges of each character range', () => {
  it('counts a token with an ASCII letter or digit, at each edge of the ranges', () => {
    for (const ch of ['0', '9', 'A', 'Z', 'a', 'z']) expect(countWords(`${ch}`)).toBe(1);
    for (const ch of ['/', ':', '@', '[', '`', '{', '\u007f']) expect(countWords(ch)).toBe(0);
  });

  it('counts non-ASCII letters, not general punctuation (U+2000–U+206F)', () => {
    expect(countWords('\u0080 é 日 \u1fff \u2070')).toBe(5);
    expect(countWords('\u2010 \u2026 \u206f \u2014')).toBe(0);
  });

  it('splits at every space, at each edge of the ranges; a zero-width space is none and no word', () => {
    expect(countWords('a\u000bb\u000cc\u2000d\u200ae')).toBe(5); // VT, FF, en quad, hair space
    expect(countWords('a\u200bb')).toBe(1);
    expect(countWords('\u200b \u200b')).toBe(0);
  });

  it('needs whitespace between words, and nothing before the first counts', () => {
    expect(countWords(' hi')).toBe(1);
    expect(countWords('\thi there ')).toBe(2);
    expect(countWords('— hi —')).toBe(1);
    expect(countWords('')).toBe(0);
  });
});

describe('computeKpis: where a monologue run starts and ends', () => {
  it('starts the first monologue at the first rep cue, however early', () => {
    const text = '1\n00:00:01,000 --> 00:00:03,000\nrep@acme.com: hello there\n';
    expect(computeKpis(parseTranscript(text), 'rep@acme.com').longestMonologue).toBe(2);
  });

  it('a gap of exactly 2 s starts a new run; just under continues it', () => {
    const at = (gapStart: string) =>
      computeKpis(
        parseTranscript(
          [
            cue(1, '00:00,000', '00:01,000', 'rep@x.io: a'),
            cue(2, gapStart, '00:04,000', 'rep@x.io: b'),
          ].join('\n'),
        ),
        'rep@x.io',
      ).longestMonologue;
    expect(at('00:03,000')).toBe(1);
    expect(at('00:02,999')).toBe(4);
  });

  it("another speaker's cue without words does not end the rep's run", () => {
    const text = [
      cue(1, '00:00,000', '00:01,000', 'rep@x.io: a'),
      cue(2, '00:01,000', '00:01,500', 'client@y.io:'),
      cue(3, '00:01,500', '00:03,000', 'rep@x.io: b'),
    ].join('\n');
    expect(computeKpis(parseTranscript(text), 'rep@x.io').longestMonologue).toBe(3);
  });

  it('is all null when no cue is the rep’s, even with speech', () => {
    const text = cue(1, '00:00,000', '00:01,000', 'client@y.io: hello');
    expect(computeKpis(parseTranscript(text), 'rep@x.io')).toEqual({
      listenRatio: null,
      longestMonologue: null,
      talkSpeed: null,
    });
  });
});
