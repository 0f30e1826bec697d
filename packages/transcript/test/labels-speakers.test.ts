import {
  classifySpeakers,
  extractLabel,
  MAX_LABEL_LENGTH,
  parseTranscript,
  removedLabels,
  repSpeaks,
  speakerSummary,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// D12 labels at their edges, the organization's domains (D6, D13) as a user may type them, and
// the speaker summaries `rcs check` prints.

const srt = (...cues: string[]) =>
  cues.map((text, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i + 1},000\n${text}\n`).join('\n');

describe('extractLabel (D12)', () => {
  it('needs text before the colon', () => {
    expect(extractLabel(': hello')).toBeNull();
    expect(extractLabel('   : hello')).toBeNull();
    expect(extractLabel('a: hello')).toEqual({ label: 'a', cut: 3 });
  });

  it('finds no label in a line without a colon, even one starting with a space', () => {
    expect(extractLabel(' hello there')).toBeNull();
    expect(extractLabel('')).toBeNull();
    expect(extractLabel(' ')).toBeNull();
  });

  it('takes labels up to 64 characters (code points, after trimming)', () => {
    expect(MAX_LABEL_LENGTH).toBe(64);
    const at = 'a'.repeat(MAX_LABEL_LENGTH);
    expect(extractLabel(`  ${at}  : hi`)).toEqual({ label: at, cut: MAX_LABEL_LENGTH + 6 });
    expect(extractLabel(`${at}b: hi`)).toBeNull();
    // 33 emoji are 66 UTF-16 units but 33 characters: a label.
    const emoji = '😀'.repeat(33);
    expect(extractLabel(`${emoji}: hi`)?.label).toBe(emoji);
    expect(extractLabel(`${'😀'.repeat(MAX_LABEL_LENGTH + 1)}: hi`)).toBeNull();
  });

  it('cuts the label, the colon and every whitespace after it, up to the end of the line', () => {
    expect(extractLabel('Ann:\t \u00a0 text')).toEqual({ label: 'ann', cut: 8 });
    expect(extractLabel('Ann:')).toEqual({ label: 'ann', cut: 4 });
    expect(extractLabel('Ann:   ')).toEqual({ label: 'ann', cut: 7 });
  });
});

describe('organization domains (D6, D13)', () => {
  const text = srt('rep@acme.com: hi', 'x@ac.me: hello');
  const kinds = (emailDomains: unknown) =>
    parseTranscript(text, { emailDomains: emailDomains as string[] }).cues.map(
      (c) => c.speaker.kind,
    );

  it('treats no domains, an empty list and a list of blanks alike: every e-mail is internal', () => {
    expect(kinds(undefined)).toEqual(['internal', 'internal']);
    expect(kinds([])).toEqual(['internal', 'internal']);
    expect(kinds([' ', '', '@'])).toEqual(['internal', 'internal']);
  });

  it('trims, lowercases and drops one leading "@" of each domain, and skips non-strings', () => {
    expect(kinds([' @ACME.com '])).toEqual(['internal', 'external']);
    expect(kinds([42, null, 'acme.com'])).toEqual(['internal', 'external']);
    // Only a leading "@" is dropped: "ac@.me" is no domain of x@ac.me.
    expect(kinds(['ac@.me'])).toEqual(['external', 'external']);
    expect(kinds('acme.com')).toEqual(['internal', 'internal']);
  });

  it('classifySpeakers re-classifies a parsed transcript the same way, leaving it unchanged', () => {
    const parsed = parseTranscript(text);
    const again = classifySpeakers(parsed, { emailDomains: ['@ac.me'] });
    expect(again.cues.map((c) => c.speaker)).toEqual([
      { kind: 'external', email: 'rep@acme.com' },
      { kind: 'internal', email: 'x@ac.me' },
    ]);
    expect(parsed.cues.map((c) => c.speaker.kind)).toEqual(['internal', 'internal']);
    expect(classifySpeakers(parsed, { emailDomains: [' '] }).cues[1]?.speaker.kind).toBe(
      'internal',
    );
  });
});

describe('speaker summaries', () => {
  // Parsed inside each test (not while collecting): mutation testing attributes coverage per test.
  const parsed = () =>
    parseTranscript(srt('Ann: hi', 'rep@acme.com: hello', 'Ann: again', 'no label'));

  it('gives a removed label no email key, and counts every cue of a label', () => {
    const p = parsed();
    expect(speakerSummary(p)).toStrictEqual([
      { label: 'ann', kind: 'removed', firstLine: 3, cueCount: 2 },
      {
        label: 'rep@acme.com',
        kind: 'internal',
        email: 'rep@acme.com',
        firstLine: 7,
        cueCount: 1,
      },
    ]);
    expect(removedLabels(p)).toStrictEqual([
      { label: 'ann', line: 3 },
      { label: 'ann', line: 11 },
    ]);
  });

  it('repSpeaks is false for a rep that is not a string (untyped callers)', () => {
    const p = parsed();
    expect(repSpeaks(p, ' REP@acme.com ')).toBe(true);
    expect(repSpeaks(p, 42 as never)).toBe(false);
    expect(repSpeaks(p, null as never)).toBe(false);
  });
});
