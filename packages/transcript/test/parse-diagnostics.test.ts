import { parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

// Every diagnostic of the SRT reader as `rcs check` prints it: code, severity, the line it points
// at and the message (which names that line again, and the cue's timing line where it helps).

const T = '00:00:01,000 --> 00:00:02,000';
const diags = (text: string) =>
  parseTranscript(text).diagnostics.map((d) => [d.code, d.severity, d.line, d.message]);

describe('SRT structure diagnostics', () => {
  it('text before the first cue: its own line, ignored', () => {
    const p = parseTranscript(`intro\n\n1\n${T}\nhi`);
    expect(p.cues.map((c) => [c.id, c.line, c.text])).toEqual([['1', 4, 'hi']]);
    expect(diags(`intro\n\n1\n${T}\nhi`)).toEqual([
      [
        'text_before_first_cue',
        'warning',
        1,
        'Line 1 comes before the first cue timing line and is ignored.',
      ],
    ]);
  });

  it('orphan text: the stray line, and the timing line of the cue that keeps it', () => {
    const text = `1\n${T}\nhi\n\nstray\n`;
    expect(parseTranscript(text).cues[0]?.text).toBe('hi\nstray');
    expect(diags(text)).toEqual([
      [
        'orphan_text',
        'warning',
        5,
        'Line 5 follows a blank line but no timing line; it is kept as text of the cue at line 2.',
      ],
    ]);
  });

  it('a missing blank line before an index: the index line', () => {
    const text = `1\n${T}\nhi\n2\n${T}\nho`;
    expect(parseTranscript(text).cues.map((c) => [c.id, c.line, c.text])).toEqual([
      ['1', 2, 'hi'],
      ['2', 5, 'ho'],
    ]);
    expect(diags(text)).toEqual([
      [
        'missing_blank_line',
        'warning',
        4,
        'No blank line before the cue index at line 4; it is read as the start of a new cue.',
      ],
    ]);
  });

  it('a text line that is not all digits before a timing line stays text of the cue before', () => {
    const text = `1\n${T}\nhi\nnot an index\n${T}\nho`;
    const p = parseTranscript(text);
    expect(p.cues.map((c) => [c.id, c.text])).toEqual([
      ['1', 'hi\nnot an index'],
      [null, 'ho'],
    ]);
    expect(diags(text)).toEqual([
      ['missing_index', 'warning', 5, 'The cue at line 5 has no index line.'],
    ]);
  });

  it('indices: missing, out of sequence (the index line) and not a number (clipped)', () => {
    expect(diags(`${T}\nhi`)).toEqual([
      ['missing_index', 'warning', 1, 'The cue at line 1 has no index line.'],
    ]);
    expect(diags(`1\n${T}\na\n\n3\n${T}\nb`)).toEqual([
      ['index_out_of_sequence', 'warning', 5, 'Cue index 3 at line 5 does not follow 1.'],
    ]);
    // After a cue without a number, any number may follow.
    expect(diags(`1\n${T}\na\n\nx\n${T}\nb\n\n7\n${T}\nc`).map((d) => d[0])).toEqual([
      'non_numeric_index',
    ]);
    expect(diags(`${T}\na\n\n7\n${T}\nb\n\n8\n${T}\nc`).map((d) => d[0])).toEqual([
      'missing_index',
    ]);
    expect(diags(`abc\n${T}\nhi`)).toEqual([
      ['non_numeric_index', 'warning', 1, 'The cue identifier "abc" at line 1 is not a number.'],
    ]);
    const long = 'x'.repeat(41);
    expect(diags(`${long}\n${T}\nhi`)[0]?.[3]).toBe(
      `The cue identifier "${'x'.repeat(40)}…" at line 1 is not a number.`,
    );
  });

  it('reads indices as written: spaces trimmed, leading zeros and long numbers kept', () => {
    const ids = (...idLines: string[]) =>
      parseTranscript(idLines.map((id) => `${id}\n${T}\nhi`).join('\n\n')).cues.map((c) => c.id);
    expect(ids(' 1 ', '02', ' 03', '1000', '12345', '65536')).toEqual([
      '1',
      '02',
      '03',
      '1000',
      '12345',
      '65536',
    ]);
    // Up to 15 digits is a number (in sequence here); 16 digits is an identifier.
    const p = parseTranscript(
      `999999999999999\n${T}\na\n\n1000000000000000\n${T}\nb\n\n1000000000000001\n${T}\nc`,
    );
    expect(p.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['non_numeric_index', 5],
      ['non_numeric_index', 9],
    ]);
  });

  it('a broken timing line: named, kept as text', () => {
    const text = `1\n${T}\nhi\n00:00:0x --> 00:00:01,000`;
    expect(parseTranscript(text).cues[0]?.text).toBe('hi\n00:00:0x --> 00:00:01,000');
    expect(diags(text)).toEqual([
      [
        'malformed_timing',
        'warning',
        4,
        'Line 4 contains "-->" but is not a cue timing line (HH:MM:SS,mmm --> HH:MM:SS,mmm); it is kept as text.',
      ],
    ]);
    // Only a line starting like a time (digit or '-') is checked; an arrow at the very end counts.
    expect(diags(`1\n${T}\nhi\nsee --> there`)).toEqual([]);
    expect(diags(`1\n${T}\nhi\n-- >`)).toEqual([]);
    expect(diags(`1\n${T}\nhi\n1-->`).map((d) => [d[0], d[2]])).toEqual([['malformed_timing', 4]]);
  });

  it('an empty cue: its timing line, with or without markup', () => {
    expect(diags(`1\n${T}\n\n2\n${T}\nhi`)).toEqual([
      ['empty_cue', 'warning', 2, 'The cue at line 2 has no text.'],
    ]);
    expect(diags(`1\n${T}\n<i> </i>`)).toEqual([
      ['empty_cue', 'warning', 2, 'The cue at line 2 has no text.'],
      [
        'markup_stripped',
        'info',
        3,
        'Markup (HTML or ASS tags) in the cue at line 2 is kept in the transcript but left out of its text for KPIs and matching.',
      ],
    ]);
  });
});

describe('label diagnostics', () => {
  it('an "@" label that is no e-mail: removed, named at its line', () => {
    const p = parseTranscript(`1\n${T}\nbob@: hi`);
    expect(p.cues[0]).toMatchObject({ label: 'bob@', labelLine: 3, text: 'hi' });
    expect(diags(`1\n${T}\nbob@: hi`)).toEqual([
      [
        'label_not_email',
        'warning',
        3,
        'The label "bob@" contains "@" but is not a valid e-mail, so it is removed without attribution.',
      ],
    ]);
    // A removed label without "@" is no surprise, and a valid e-mail label is no warning.
    expect(diags(`1\n${T}\nbob: hi\n\n2\n${T}\nbob@acme.com: ho`)).toEqual([]);
  });

  it('a label inside markup stays text, with a warning at the label line', () => {
    const text = `1\n${T}\n\n\n<b>Ann:</b> hi\nmore`;
    const p = parseTranscript(text);
    expect(p.cues[0]).toMatchObject({ label: null, labelLine: null, text: 'Ann: hi\nmore' });
    expect(diags(text).map((d) => [d[0], d[2], d[3]])).toEqual([
      ['orphan_text', 5, expect.stringContaining('Line 5 follows a blank line')],
      [
        'label_in_markup',
        5,
        '"ann:" on the first line of the cue at line 2 sits inside markup; the service reads labels from the raw line, so it stays in the text.',
      ],
      ['markup_stripped', 5, expect.stringContaining('cue at line 2')],
    ]);
    // Markup without a label in it, or markup on a later line only: no label warning.
    expect(diags(`1\n${T}\n<b>Ann</b> hi`).map((d) => d[0])).toEqual(['markup_stripped']);
    expect(diags(`1\n${T}\nhi\n<b>Ann:</b> ho`).map((d) => d[0])).toEqual(['markup_stripped']);
  });
});

describe('timing diagnostics (the timing line)', () => {
  it('lists every tolerated shape, and settings after the end time', () => {
    expect(diags(`1\n00:01.5-->00:02 x\nhi`)).toEqual([
      [
        'timing_tolerated',
        'warning',
        2,
        'Timing line 2 was read leniently: no hours field, milliseconds missing or not three digits, no space around "-->".',
      ],
      [
        'timing_settings_ignored',
        'warning',
        2,
        'Timing line 2 has text after the end time (cue settings or coordinates); it is ignored.',
      ],
    ]);
    expect(diags(`1\n0:0:01,000 --> 00:00:02,000\nhi`)[0]?.[3]).toBe(
      'Timing line 2 was read leniently: minutes/seconds not two digits.',
    );
  });

  it('negative, out of range, and ending before the start', () => {
    expect(diags(`1\n-00:00:01,000 --> 00:00:61,000\nhi`)).toEqual([
      [
        'negative_timestamp',
        'warning',
        2,
        'Timing line 2 has a negative time; it is kept negative.',
      ],
      [
        'timestamp_out_of_range',
        'warning',
        2,
        'Timing line 2 has minutes or seconds of 60 or more; they are added up as written.',
      ],
    ]);
    expect(diags(`\n\n1\n00:00:02,000 --> 00:00:01,000\nhi`)).toEqual([
      ['end_before_start', 'warning', 4, 'The cue at line 4 ends before it starts.'],
    ]);
    expect(diags(`1\n00:00:02,000 --> 00:00:02,000\nhi`)).toEqual([]);
  });
});

describe('whole-text diagnostics', () => {
  it('BOM, line endings in a fixed order, NUL and U+FFFD at their lines (CR, LF and CRLF count once)', () => {
    expect(diags(`\uFEFF1\r\n${T}\rhi\n\n\u0000\ufffd`)).toEqual([
      ['line_endings', 'info', 0, 'Line endings: CRLF, CR, LF; all are read as line breaks.'],
      ['bom_removed', 'info', 1, 'A UTF-8 byte-order mark at the start was ignored.'],
      [
        'nul_character',
        'error',
        5,
        'The text contains NUL characters: it is probably UTF-16 without a byte-order mark, or not a text file. Decode the file with decodeTranscriptBytes or re-save it as UTF-8.',
      ],
      [
        'replacement_character',
        'warning',
        5,
        'The text contains U+FFFD replacement characters: it was decoded from a wrong encoding somewhere.',
      ],
      [
        'orphan_text',
        'warning',
        5,
        'Line 5 follows a blank line but no timing line; it is kept as text of the cue at line 2.',
      ],
    ]);
    // One kind of line ending is no news, unless it is the old Mac CR.
    expect(diags(`1\r\n${T}\r\nhi\r\n`)).toEqual([]);
    expect(diags(`1\n${T}\nhi\n`)).toEqual([]);
    expect(diags(`1\r${T}\rhi\r`)[0]?.[3]).toBe('Line endings: CR; all are read as line breaks.');
    expect(diags(`1\r\n${T}\nhi`)[0]?.[3]).toBe(
      'Line endings: CRLF, LF; all are read as line breaks.',
    );
    expect(diags(`a\u0000`)[0]?.slice(0, 3)).toEqual(['nul_character', 'error', 1]);
    expect(diags(`1\r\n${T}\r\n\ufffd`)[0]?.slice(0, 3)).toEqual([
      'replacement_character',
      'warning',
      3,
    ]);
  });

  it('an empty or blank transcript', () => {
    for (const text of ['', '  \n\t\n', '\uFEFF', '\r\n\r\n']) {
      const p = parseTranscript(text);
      expect(p.format).toBe('plain');
      expect(p.cues).toEqual([]);
      expect(p.diagnostics.filter((d) => d.code === 'empty_transcript')).toEqual([
        {
          code: 'empty_transcript',
          severity: 'warning',
          line: 0,
          message: 'The transcript is empty or only whitespace.',
        },
      ]);
    }
  });

  it('plain text: the first "Name: text" line is pointed out once', () => {
    expect(diags('hello there\n\nAnn: hi\nBob: ho')).toEqual([
      [
        'plain_text_labels_ignored',
        'info',
        3,
        'Line 3 looks like "Name: text", but labels are read only in SRT (text with cue timing lines): plain text is never speaker-labeled. Import it to speaker-labeled SRT to attribute speakers.',
      ],
    ]);
    const p = parseTranscript('\uFEFFhello\n\n<i>Ann</i> hi');
    expect(p.cues.map((c) => [c.index, c.line, c.lines, c.text])).toEqual([
      [1, 1, ['hello'], 'hello'],
      [2, 3, ['<i>Ann</i> hi'], 'Ann hi'],
    ]);
  });

  it('is plain text, not a string error, for any string; names the type of anything else', () => {
    const p = parseTranscript(42 as never);
    expect(p).toEqual({
      format: 'plain',
      cues: [],
      diagnostics: [
        {
          code: 'not_text',
          severity: 'error',
          line: 0,
          message: 'The transcript must be a string, got number.',
        },
      ],
    });
  });
});
