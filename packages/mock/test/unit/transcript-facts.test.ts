import { describe, expect, it } from 'vitest';
import {
  allLines,
  kpisOf,
  repLines,
  repSpeaksIn,
  transcriptFacts,
} from '../../src/transcript-facts.js';

/** What the mock reads from an upload (rules 4–8 through @rcs/transcript), cue by cue. */
const cue = (n: number, text: string) => {
  const t = (s: number) => `00:00:${String(s).padStart(2, '0')},000`;
  return `${n}\n${t(n * 5)} --> ${t(n * 5 + 4)}\n${text}\n`;
};
const LABELED = [
  cue(0, 'rep@acme.com:    Hello there   '),
  cue(1, 'client@other.com: Hi, what does it cost?'),
  cue(2, 'REP@acme.com:  '),
  cue(3, 'no label on this one'),
  cue(4, 'boss@acme.com: I will join later.'),
].join('\n');

describe('transcriptFacts', () => {
  it('internal speakers: emails of the organization’s domains only, in first-speaking order', () => {
    const facts = transcriptFacts(LABELED, ['acme.com']);
    expect(facts.speakerLabeled).toBe(true);
    expect(facts.internalSpeakers).toEqual(['rep@acme.com', 'boss@acme.com']);
    // The organization's domains decide: with another domain list, nobody here is internal.
    expect(transcriptFacts(LABELED, ['globex.com']).internalSpeakers).toEqual([]);
  });

  it('a transcript without labels is not speaker-labeled', () => {
    const facts = transcriptFacts('We talked about the budget.\nThen the next step.', ['acme.com']);
    expect(facts.speakerLabeled).toBe(false);
    expect(facts.internalSpeakers).toEqual([]);
  });
});

describe('repLines (D19, R7)', () => {
  const facts = transcriptFacts(LABELED, ['acme.com']);

  it('the rep’s own cues, any case of the email, trimmed, empty ones dropped', () => {
    expect(repLines(facts, ' Rep@Acme.com ')).toEqual(['Hello there']);
  });

  it('no rep: no lines of a labeled transcript (unlabeled cues are nobody’s)', () => {
    expect(repLines(facts, null)).toEqual([]);
  });

  it('without labels, every non-empty line is the rep’s', () => {
    const plain = transcriptFacts('  We talked about the budget.  \n\nThen the next step.', []);
    expect(repLines(plain, 'rep@acme.com')).toEqual([
      'We talked about the budget.',
      'Then the next step.',
    ]);
  });

  it('allLines keeps every cue as parsed, whoever says it', () => {
    expect(allLines(facts)).toHaveLength(5);
    expect(allLines(facts)[1]).toBe('Hi, what does it cost?');
  });

  it('repSpeaksIn (R8)', () => {
    expect(repSpeaksIn(facts, 'rep@acme.com')).toBe(true);
    expect(repSpeaksIn(facts, 'someone@acme.com')).toBe(false);
  });
});

describe('kpisOf (D21, D18)', () => {
  const facts = transcriptFacts(LABELED, ['acme.com']);
  it('KPIs of the rep when the transcript is timed and the rep speaks', () => {
    const k = kpisOf(facts, 'rep@acme.com');
    expect(k).not.toBeNull();
    expect(k!.listenRatio).toBeGreaterThan(0);
    expect(k!.longestMonologue).toBeGreaterThan(0);
  });
  it('null (SKIPPED) without a rep, without timing, or when the rep never speaks', () => {
    expect(kpisOf(facts, null)).toBeNull();
    expect(kpisOf(transcriptFacts('Just notes.', []), 'rep@acme.com')).toBeNull();
    expect(kpisOf(facts, 'nobody@acme.com')).toBeNull();
  });
  it('a rep whose cues have no duration still gets the ratios (talk speed unknown)', () => {
    const zero = `1\n00:00:01,000 --> 00:00:01,000\nrep@acme.com: Hello\n\n2\n00:00:02,000 --> 00:00:06,000\nclient@other.com: Hi there\n`;
    const k = kpisOf(transcriptFacts(zero, ['acme.com']), 'rep@acme.com');
    expect(k).not.toBeNull();
    expect(k!.talkSpeed).toBeNull();
    expect(k!.listenRatio).toBe(1);
  });
});

describe('an almost-timing line, as the service reads it (D11)', () => {
  it('is text of the cue before: the label after it attributes nobody', () => {
    const text = [
      '1',
      '00:00:01,000 --> 00:00:03,000',
      'ana@acme.com: First.',
      '',
      '2',
      '00:00:04：000 --> 00:00:06,000',
      'ben@acme.com: Second.',
      '',
    ].join('\n');
    expect(transcriptFacts(text, ['acme.com']).internalSpeakers).toEqual(['ana@acme.com']);
  });
});
