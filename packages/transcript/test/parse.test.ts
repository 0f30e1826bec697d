import { classifySpeakers, parseTranscript, speakerEmails, speakerSummary } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

const srt = (...cues: string[]) =>
  cues.map((text, i) => `${i + 1}\n00:00:0${i},000 --> 00:00:0${i + 1},000\n${text}\n`).join('\n');

const codes = (text: string) => parseTranscript(text).diagnostics.map((d) => d.code);

describe('formats (D11)', () => {
  it('is SRT when there is a cue timing line, labeled SRT only with an e-mail label', () => {
    expect(parseTranscript(srt('Client: hi', 'Agent: hello')).format).toBe('srt');
    expect(parseTranscript(srt('Client: hi', 'rep@acme.com: hello')).format).toBe('labeled-srt');
    expect(parseTranscript('Client: hi\nrep@acme.com: hello').format).toBe('plain');
  });

  it('accepts "." milliseconds, 1–3 hour digits, surrounding spaces, CRLF and CR', () => {
    const text =
      '1\r00:00:01.500 --> 0:00:02,000  \r\rhello\r\r2\r\n  100:00:00,000 --> 100:00:01,000\r\nbye\r\n';
    const p = parseTranscript(text.replace('\r\rhello', '\rhello'));
    expect(p.format).toBe('srt');
    expect(p.cues.map((c) => [c.startMs, c.endMs, c.text])).toEqual([
      [1500, 2000, 'hello'],
      [360_000_000, 360_001_000, 'bye'],
    ]);
    // Mixed line endings are no problem, only worth an info.
    expect(p.diagnostics.map((d) => [d.code, d.severity, d.message])).toEqual([
      ['line_endings', 'info', 'Line endings: CRLF, CR; all are read as line breaks.'],
    ]);
  });

  it('reads tolerated timing shapes with a warning naming the line', () => {
    const p = parseTranscript('1\n00:01:39 --> 00:01:41,04 X1:40\ntext\n');
    expect(p.cues[0]).toMatchObject({ startMs: 99_000, endMs: 101_040 });
    const d = p.diagnostics.map((x) => [x.code, x.line, x.severity]);
    expect(d).toContainEqual(['timing_tolerated', 2, 'warning']);
    expect(d).toContainEqual(['timing_settings_ignored', 2, 'warning']);
  });

  it('keeps negative times negative (never turns -00:00:01 into +1 s)', () => {
    const p = parseTranscript(
      '1\n-00:00:01,000 --> 00:00:02,000\na\n\n2\n00:00:-5,000 --> 00:00:06,000\nb\n',
    );
    expect(p.cues.map((c) => c.startMs)).toEqual([-1000, -5000]);
    expect(p.diagnostics.filter((d) => d.code === 'negative_timestamp')).toHaveLength(2);
  });

  it('plain text: one cue per non-blank line, no timing, no labels, a hint when lines look labeled', () => {
    const p = parseTranscript('Client: hi\n\n  \nAgent: hello there\n');
    expect(p.cues.map((c) => [c.line, c.startMs, c.label, c.text, c.speaker.kind])).toEqual([
      [1, null, null, 'Client: hi', 'none'],
      [4, null, null, 'Agent: hello there', 'none'],
    ]);
    expect(p.diagnostics.map((d) => [d.code, d.line, d.severity])).toEqual([
      ['plain_text_labels_ignored', 1, 'info'],
    ]);
  });

  it('reports empty, BOM-only and whitespace-only text', () => {
    for (const t of ['', '\ufeff', ' \n\t\r\n']) {
      const p = parseTranscript(t);
      expect(p.cues).toEqual([]);
      expect(p.diagnostics.map((d) => d.code)).toContain('empty_transcript');
    }
  });

  it('flags NUL (UTF-16 read as bytes) as an error and U+FFFD as a warning', () => {
    expect(parseTranscript('1\u0000\n').diagnostics[0]).toMatchObject({
      code: 'nul_character',
      severity: 'error',
    });
    expect(codes(srt('caf\ufffd'))).toContain('replacement_character');
  });
});

describe('cue structure', () => {
  it('takes the line before a timing line as the index only at a block start or when numeric', () => {
    const p = parseTranscript(
      '1\n00:00:00,000 --> 00:00:01,000\nAgent: the log said\n00:00:10,000 --> 00:00:12,000\nodd\n5\n00:00:12,000 --> 00:00:13,000\nnext\n',
    );
    expect(p.cues.map((c) => [c.id, c.startMs, c.lines])).toEqual([
      ['1', 0, ['Agent: the log said']],
      [null, 10_000, ['odd']],
      ['5', 12_000, ['next']],
    ]);
    // After a cue without index the sequence restarts, so '5' is not reported as out of order.
    expect(p.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['missing_index', 4],
      ['missing_blank_line', 6],
    ]);
    expect(
      codes('3\n00:00:00,000 --> 00:00:01,000\na\n\n7\n00:00:01,000 --> 00:00:02,000\nb\n'),
    ).toEqual(['index_out_of_sequence']);
  });

  it('appends text after a blank line to the current cue, with a warning', () => {
    const p = parseTranscript('1\n00:00:00,000 --> 00:00:01,000\none\n\ntwo\n');
    expect(p.cues[0]?.lines).toEqual(['one', 'two']);
    expect(p.diagnostics).toMatchObject([{ code: 'orphan_text', line: 5 }]);
  });

  it('numbers cues 1..n and keeps the identifier as written', () => {
    const p = parseTranscript(
      '007\n00:00:00,000 --> 00:00:01,000\na\n\n9.\n00:00:01,000 --> 00:00:02,000\nb\n',
    );
    expect(p.cues.map((c) => [c.index, c.id])).toEqual([
      [1, '007'],
      [2, '9.'],
    ]);
    expect(p.diagnostics.map((d) => d.code)).toEqual(['non_numeric_index']);
  });

  it('warns about empty cues, end before start, and "-->" lines that are not timing', () => {
    const p = parseTranscript(
      '1\n00:00:05,000 --> 00:00:01,000\n\n2\n00:00:06,000 --> 00:00:07,000\n00:00:07 -> later --> x\nsee a --> b\n',
    );
    // Diagnostics come in line order.
    expect(p.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['end_before_start', 2],
      ['empty_cue', 2],
      ['malformed_timing', 6],
    ]);
    // Only lines that start like a timestamp are checked; "see a --> b" is ordinary text.
    expect(p.cues[1]?.text).toBe('00:00:07 -> later --> x\nsee a --> b');
  });

  it('caps repeated diagnostics and summarises the rest', () => {
    const many = Array.from(
      { length: 80 },
      (_, i) => `00:00:0${i % 10},000 --> 00:00:0${i % 10},500\nx\n`,
    ).join('\n');
    const missing = parseTranscript(many).diagnostics.filter((d) => d.code === 'missing_index');
    expect(missing).toHaveLength(51);
    expect(missing.at(-1)?.message).toMatch(/30 more .* \(80 in total\)/);
  });
});

describe('labels (R4–R6, D12)', () => {
  it('recognises a label only before a colon followed by whitespace or the line end', () => {
    const lines = [
      '10:30 works for me.',
      'https://example.com/pricing has the details.',
      'Re:Budget',
      'The ratio is 3:1.',
      'mailto:someone@example.com is the address.',
      ':) no problem',
      `${'x'.repeat(65)}: too long for a label`,
    ];
    const p = parseTranscript(srt(...lines));
    expect(p.cues.map((c) => c.label)).toEqual(lines.map(() => null));
    expect(p.cues.map((c) => c.text)).toEqual(lines);
  });

  it('trims and lowercases the label and removes it with the colon and following whitespace', () => {
    const p = parseTranscript(
      srt(
        '  AGENT :\tCertainly.',
        'Client:',
        `${'y'.repeat(64)}: ok`,
        'Client: at 10:30 see https://x.io/a:b',
      ),
    );
    expect(p.cues.map((c) => [c.label, c.text])).toEqual([
      ['agent', 'Certainly.'],
      ['client', ''],
      ['y'.repeat(64), 'ok'],
      ['client', 'at 10:30 see https://x.io/a:b'],
    ]);
  });

  it('reads the label on the first content line only', () => {
    const p = parseTranscript(srt('Hello there\nClient: not a label here'));
    expect(p.cues[0]).toMatchObject({ label: null, text: 'Hello there\nClient: not a label here' });
  });

  it('strips HTML/ASS markup from text but not from lines, and warns when markup hides a label', () => {
    const p = parseTranscript(
      srt('<i>Client:</i> Can you hear me?', '{\\an8}top {\\i1}x{\\i0} 2<3 and 5>4'),
    );
    expect(p.cues[0]).toMatchObject({
      label: null,
      text: 'Client: Can you hear me?',
      lines: ['<i>Client:</i> Can you hear me?'],
    });
    expect(p.cues[1]?.text).toBe('top x 2<3 and 5>4');
    expect(p.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['label_in_markup', 3],
      ['markup_stripped', 3],
      ['markup_stripped', 7],
    ]);
  });

  it('warns when a label has "@" but is not an e-mail (it is removed, not attributed)', () => {
    const p = parseTranscript(srt('bob@localhost: hi'));
    expect(p.cues[0]?.speaker).toEqual({ kind: 'removed' });
    expect(p.diagnostics.map((d) => d.code)).toEqual(['label_not_email']);
  });
});

describe('classifySpeakers (D13, D6)', () => {
  const text = srt(
    'Rep@Acme.com: hi',
    'client@other.org: hello',
    'Client: hm',
    'no label',
    'rep@acme.com: again',
  );

  it('with no domains configured, every e-mail label is internal', () => {
    expect(parseTranscript(text).cues.map((c) => c.speaker)).toEqual([
      { kind: 'internal', email: 'rep@acme.com' },
      { kind: 'internal', email: 'client@other.org' },
      { kind: 'removed' },
      { kind: 'none' },
      { kind: 'internal', email: 'rep@acme.com' },
    ]);
  });

  it('with domains, a non-matching domain is external; domains compare case-insensitively', () => {
    const p = classifySpeakers(parseTranscript(text), { emailDomains: [' ACME.com '] });
    expect(p.cues.map((c) => c.speaker.kind)).toEqual([
      'internal',
      'external',
      'removed',
      'none',
      'internal',
    ]);
    // A subdomain is another domain (D13 says "one of the organization's domains").
    const sub = classifySpeakers(parseTranscript(srt('a@sales.acme.com: x')), {
      emailDomains: ['acme.com'],
    });
    expect(sub.cues[0]?.speaker.kind).toBe('external');
  });

  it('does not change its input', () => {
    const p = parseTranscript(text);
    classifySpeakers(p, { emailDomains: ['acme.com'] });
    expect(p.cues[1]?.speaker.kind).toBe('internal');
  });

  it('lists speakers in first-speaking order with kinds, first line and cue count', () => {
    const p = classifySpeakers(parseTranscript(text), { emailDomains: ['acme.com'] });
    expect(speakerEmails(p)).toEqual(['rep@acme.com', 'client@other.org']);
    expect(speakerSummary(p)).toEqual([
      { label: 'rep@acme.com', kind: 'internal', email: 'rep@acme.com', firstLine: 3, cueCount: 2 },
      {
        label: 'client@other.org',
        kind: 'external',
        email: 'client@other.org',
        firstLine: 7,
        cueCount: 1,
      },
      { label: 'client', kind: 'removed', firstLine: 11, cueCount: 1 },
    ]);
  });
});
