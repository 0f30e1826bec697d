import { parseTranscript, serializeSrt, storedTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

describe('storedTranscript (D16)', () => {
  it('takes out removed labels and keeps e-mail labels, byte for byte otherwise', () => {
    const text =
      '\ufeff1\r\n00:00:00,000 --> 00:00:02,000\r\n  Client:  Hi there \r\nsecond: line stays\r\n\r\n' +
      '2\r\n00:00:02,000 --> 00:00:04,000\r\nrep@acme.com: Hello\r\n\r\n3\r00:00:04,000 --> 00:00:05,000\rAt 10:30: ok\r\r4\n00:00:05,000 --> 00:00:06,000\nAgent:\tok\n';
    expect(storedTranscript(text)).toBe(
      '\ufeff1\r\n00:00:00,000 --> 00:00:02,000\r\nHi there \r\nsecond: line stays\r\n\r\n' +
        '2\r\n00:00:02,000 --> 00:00:04,000\r\nrep@acme.com: Hello\r\n\r\n3\r00:00:04,000 --> 00:00:05,000\rAt 10:30: ok\r\r4\n00:00:05,000 --> 00:00:06,000\nok\n',
    );
  });

  it('keeps external e-mail labels too (only non-email labels are removed, R6)', () => {
    const text = '1\n00:00:00,000 --> 00:00:01,000\nbuyer@other.org: hi\n';
    expect(storedTranscript(text, { emailDomains: ['acme.com'] })).toBe(text);
  });

  it('uses a transcript the caller has already parsed instead of parsing again', () => {
    const text =
      '1\n00:00:00,000 --> 00:00:01,000\nClient: hi\n\n2\n00:00:01,000 --> 00:00:02,000\nrep@acme.com: yo\n';
    const parsed = parseTranscript(text, { emailDomains: ['acme.com'] });
    expect(storedTranscript(text, parsed)).toBe(storedTranscript(text));
    expect(storedTranscript(text, parsed)).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\nhi\n\n2\n00:00:01,000 --> 00:00:02,000\nrep@acme.com: yo\n',
    );
    // Proof that it is the given parse that is read: a cue marked removed by hand is cut.
    const edited = {
      ...parsed,
      cues: parsed.cues.map((c) =>
        c.index === 2 ? { ...c, speaker: { kind: 'removed' as const } } : c,
      ),
    };
    expect(storedTranscript(text, edited)).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\nhi\n\n2\n00:00:01,000 --> 00:00:02,000\nyo\n',
    );
    // Untyped callers: null options still mean "no options".
    expect(storedTranscript(text, null as never)).toBe(storedTranscript(text));
  });

  it('returns plain text and label-free SRT unchanged', () => {
    const plain = 'Client: plain text keeps its labels (R4 is about SRT).\n';
    expect(storedTranscript(plain)).toBe(plain);
    const srt = '1\n00:00:00,000 --> 00:00:01,000\n10:30 works\n';
    expect(storedTranscript(srt)).toBe(srt);
    // Plain text with lines shaped like labels, a BOM and mixed line endings: every byte kept.
    const turns = '\ufeffClient: Hello there\r\nAgent: Hi\r\rClient: bye\n';
    expect(storedTranscript(turns)).toBe(turns);
    expect(storedTranscript(turns, parseTranscript(turns))).toBe(turns);
  });

  it('stores nothing for a transcript that is not a string', () => {
    expect(storedTranscript(42 as never)).toBe('');
    expect(storedTranscript(null as never, {})).toBe('');
  });
});

describe('serializeSrt', () => {
  it('writes canonical SRT with labels re-attached and round-trips through parseTranscript', () => {
    const p = parseTranscript(
      '7\n0:00:01.5 --> 0:00:02,000\n  AGENT :  hello <i>there</i>\n\nmore\n\n00:00:03,000 --> 00:00:04,000\nrep@acme.com:\n',
    );
    const out = serializeSrt(p.cues);
    expect(out).toBe(
      '1\n00:00:01,500 --> 00:00:02,000\nagent: hello <i>there</i>\nmore\n\n2\n00:00:03,000 --> 00:00:04,000\nrep@acme.com:\n',
    );
    const again = parseTranscript(out);
    expect(again.diagnostics.map((d) => d.code)).toEqual(['markup_stripped', 'empty_cue']);
    expect(again.cues.map((c) => [c.startMs, c.endMs, c.label, c.text])).toEqual(
      p.cues.map((c) => [c.startMs, c.endMs, c.label, c.text]),
    );
  });

  it('skips what is not a cue and never throws on odd input', () => {
    expect(serializeSrt(null as never)).toBe('');
    expect(serializeSrt([null, 42, { startMs: 1000, endMs: 'x', text: 'hi' }] as never)).toBe(
      '1\n00:00:01,000 --> 00:00:00,000\nhi\n',
    );
  });

  it('serialises cues built from text and label (importers) and writes null or negative times as 0', () => {
    expect(
      serializeSrt([{ startMs: null, endMs: -5, text: 'hi\n\nthere', label: 'Ana@Acme.com' }]),
    ).toBe('1\n00:00:00,000 --> 00:00:00,000\nana@acme.com: hi\nthere\n');
  });

  it('writes a label alone when a cue has neither lines nor text', () => {
    expect(serializeSrt([{ startMs: 0, endMs: 1000, label: 'Rep@Acme.com' }])).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\nrep@acme.com:\n',
    );
    expect(serializeSrt([{ startMs: 0, endMs: 1000, text: 42 as never }])).toBe(
      '1\n00:00:00,000 --> 00:00:01,000\n',
    );
  });
});
