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
