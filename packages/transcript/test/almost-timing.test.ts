import {
  type Cue,
  decodeTranscriptBytes,
  importTranscript,
  parseTimingLine,
  parseTranscript,
  parseWebVtt,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { listFixtures, readFixture } from './fixtures.js';

// D11 for lines that are almost cue timing lines (a full-width colon from an East Asian input
// method, a field with no digits, another arrow): each starts a cue of its own, without times,
// with an error naming the line; never text of the cue before, where its label would be lost.

/** A line a reader would take for a cue timing line: digits, a colon, an arrow, digits. */
const LOOKS_LIKE_TIMING =
  /^\s*-?[\d\uff10-\uff19]+\s*[:\uff1a][^>→＞]*(?:-->|->|=>|→|＞)\s*-?[\d\uff10-\uff19]/;

const cueText = (cues: Cue[]) => cues.flatMap((c) => c.lines);

function almostShapes(line: string): string[] {
  const colon = line.lastIndexOf(':', line.indexOf('-->'));
  return [
    `${line.slice(0, colon)}\uff1a${line.slice(colon + 1)}`, // full-width colon
    line.replace(/^(\s*\d*):(\d)\d/, '$1:$2').replace(/:(\d):/, '::'), // a field loses digits
    line.replace('-->', '->'), // another arrow
    line.replace('-->', '→'),
  ].filter((v) => v !== line && parseTimingLine(v) === null);
}

const SRT = [
  '1',
  '00:00:01,000 --> 00:00:03,000',
  'ana@acme.com: First.',
  '',
  '2',
  '00:00:04,000 --> 00:00:06,000',
  'ben@client.example: Second.',
  '',
  '3',
  '00:00:07,000 --> 00:00:09,000',
  'ana@acme.com: Third.',
  '',
].join('\n');

describe('almost-timing lines', () => {
  it.each([
    ['00:00:04：000 --> 00:00:06,000', /"：" \(U\+FF1A\)/],
    ['００:００:０４,０００ --> ００:００:０６,０００', /"０" \(U\+FF10\)/],
    ['00:00:,000 --> 00:00:06,000', /a time field has no digits/],
    ['00:00:04,000 -> 00:00:06,000', /the arrow is "->" instead of "-->"/],
    ['00:00:04,000 → 00:00:06,000', /"→" \(U\+2192\)/],
    ['00:00:04,000 ==> 00:00:06,000', /the arrow is "==>"/],
  ])('%j starts its own cue, with no times and an error at its line', (timing, reason) => {
    const text = SRT.replace('00:00:04,000 --> 00:00:06,000', timing);
    const parsed = parseTranscript(text);
    expect(parsed.cues.map((c) => [c.id, c.startMs, c.label])).toEqual([
      ['1', 1000, 'ana@acme.com'],
      ['2', null, 'ben@client.example'],
      ['3', 7000, 'ana@acme.com'],
    ]);
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toEqual([
      {
        code: 'malformed_timing',
        severity: 'error',
        line: 6,
        message: expect.stringMatching(/^Line 6 looks like a cue timing line but is not one: /),
      },
    ]);
    expect(errors[0]?.message).toMatch(reason);
    expect(parsed.diagnostics.map((d) => d.code)).not.toContain('orphan_text');
  });

  it.each([
    '10:30 -> 11:00 works for me',
    '12:00 → lunch',
    '3 --> 4',
    '2024-05-01 --> planning',
    '1:2:3 is not a time -> 4:5:6',
  ])('%j is text, as written', (line) => {
    const text = SRT.replace('ben@client.example: Second.', `ben@client.example: ${line}`);
    const parsed = parseTranscript(text);
    expect(parsed.cues).toHaveLength(3);
    expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  /** The reason given for `line` in place of cue 2's timing line, or null when it is text. */
  const reasonFor = (line: string) => {
    const text = SRT.replace('00:00:04,000 --> 00:00:06,000', line);
    const d = parseTranscript(text).diagnostics.find((x) => x.code === 'malformed_timing');
    return d === undefined ? null : /not one: (.*)\. Its cue/.exec(d.message)?.[1];
  };
  const FIELDS = 'its fields do not form HH:MM:SS,mmm';
  const NO_DIGITS = 'a time field has no digits';
  const char = (c: string, code: string) =>
    `it has the character "${c}" (U+${code}) where the timing rules allow only ASCII digits, ":", "," or "." and "-->"`;

  it.each([
    // The reason names the first thing to fix: a character outside ASCII, an empty field, the arrow.
    ['00:00:04,000 -> 00:00:06,000', 'the arrow is "->" instead of "-->"'],
    [' \t00:00:04,000 -> 00:00:06,000', 'the arrow is "->" instead of "-->"'],
    ['0:00:04,000 -> 0:00:06,000', 'the arrow is "->" instead of "-->"'],
    ['00:00:04,000->00:00:06,000', 'the arrow is "->" instead of "-->"'],
    ['00:00:04,000 ->> 00:00:06,000', 'the arrow is "->>" instead of "-->"'],
    ['00:00:04,000 =-> 00:00:06,000', 'the arrow is "=->" instead of "-->"'],
    ['00:00:-5,000 -> 00:00:01,000', 'the arrow is "->" instead of "-->"'],
    ['00:00:04:000 --> 00:00:06:000', FIELDS],
    ['00:00: --> 00:00:06,000', NO_DIGITS],
    ['00::04,000 --> 00:00:06,000', NO_DIGITS],
    ['00:00:04,000 --> 00:00:,000', NO_DIGITS],
    ['00:00:04,000 --> :00:06,000', NO_DIGITS],
    ['00：00：04 --> 00：00：06', char('：', 'FF1A')],
    ['00:00:04：000 --> 00:00:06,000', char('：', 'FF1A')],
    ['－00:00:04,000 --> 00:00:06,000', char('－', 'FF0D')],
    ['９:００:０４,０００ --> ００:００:０６,０００', char('９', 'FF19')],
    ['00:00:04,000 → 00:00:06,000', char('→', '2192')],
  ])('%j is almost a timing line: %s', (line, reason) => {
    expect(reasonFor(line)).toBe(reason);
  });

  it.each([
    '10:30 -> 11:00', // a time of day: two groups
    '10:30 -> 11:00:00',
    '1,000,000 -> 2,000,000', // no colon
    '1:: -> 2::', // one field with digits
    ':00:04,000 -> 00:00:06,000', // no digit or minus first
    ',00:04,000 -> 00:00:06,000',
    '00:00:04,000 -- 00:00:06,000', // no arrow head
    '00:00:04,000 - 00:00:06,000',
    '00:00:04,000 -> 5 minutes', // the right side is no stamp
    '00:00:04,000 -> 00:00:06,000ms', // text joined to the right stamp
  ])('%j is text, with no timing error', (line) => {
    expect(reasonFor(line)).toBeNull();
  });

  it("read as the service reads it ('text'), the line joins the cue before, label and all (D11)", () => {
    const text = SRT.replace('00:00:04,000 --> 00:00:06,000', '00:00:04：000 --> 00:00:06,000');
    const parsed = parseTranscript(text, { almostTimingLines: 'text' });
    expect(parsed.cues.map((c) => [c.id, c.startMs, c.label])).toEqual([
      ['1', 1000, 'ana@acme.com'],
      ['3', 7000, 'ana@acme.com'],
    ]);
    expect(parsed.cues[0]?.text).toContain('00:00:04：000 --> 00:00:06,000');
  });

  it('a file with no real timing line stays plain text (D11), with the error at its line', () => {
    const parsed = parseTranscript('00:00:01：000 --> 00:00:02,000\nHello there, how are you?\n');
    expect(parsed.format).toBe('plain');
    expect(parsed.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'malformed_timing', severity: 'error', line: 1 }),
    );
  });

  it('in WebVTT too', () => {
    const vtt =
      'WEBVTT\n\n00:01.000 --> 00:02.000\n<v Ana>Hi\n\n00:03：000 --> 00:04.000\n<v Ben>Hello\n';
    const parsed = parseWebVtt(vtt);
    expect(parsed.cues.map((c) => c.startMs)).toEqual([1000, null]);
    expect(parsed.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'malformed_timing', severity: 'error', line: 6 }),
    );
  });
});

const files = listFixtures().filter((f) => /\.(srt|vtt|txt|json)$/.test(f));

describe('every shared fixture: its timing lines, as they say, or an error naming the line', () => {
  it.each(files)('%s: no cue text looks like a timing line', (file) => {
    const decoded = decodeTranscriptBytes(readFixture(file));
    if ('error' in decoded) {
      expect(decoded.error.message).toMatch(/.+/);
      return;
    }
    const meeting = file.includes('/meeting/') && !/\.(srt|vtt)$/.test(file);
    const text = meeting ? importTranscript(decoded.text, { fileName: file }).srt : decoded.text;
    const parsed = file.endsWith('.vtt') ? parseWebVtt(text) : parseTranscript(text);
    const lines = text.split(/\r\n|\r|\n/);
    const named = parsed.diagnostics.filter((d) => d.severity === 'error' && d.line > 0);
    for (const c of parsed.cues) {
      for (const l of c.lines) {
        if (!LOOKS_LIKE_TIMING.test(l)) continue;
        // A timing-like line in a cue's text is allowed only with an error that names its line.
        const where = `${file}: the cue at line ${c.line} holds ${JSON.stringify(l)}`;
        expect(
          named.some((d) => lines[d.line - 1]?.includes(l.trim())),
          where,
        ).toBe(true);
      }
    }
  });

  const srts = files.filter((f) => f.endsWith('.srt'));
  it.each(srts)('%s: each timing line made almost-right starts its own cue, named', (file) => {
    const decoded = decodeTranscriptBytes(readFixture(file));
    if ('error' in decoded) return;
    const parsed = parseTranscript(decoded.text);
    if (parsed.format === 'plain') return;
    const lines = decoded.text.split(/\r\n|\r|\n/);
    const timingLines = parsed.cues.map((c) => c.line).slice(0, 4);
    for (const at of timingLines) {
      for (const variant of almostShapes(lines[at - 1]!)) {
        const changed = [...lines];
        changed[at - 1] = variant;
        const again = parseTranscript(changed.join('\n'));
        const where = `${file} line ${at} as ${JSON.stringify(variant)}`;
        expect(again.diagnostics, where).toContainEqual(
          expect.objectContaining({ code: 'malformed_timing', severity: 'error', line: at }),
        );
        // With its only timing line broken, a file is plain text (D11): the error still names it.
        if (parsed.cues.length === 1) continue;
        expect(again.cues.length, where).toBe(parsed.cues.length);
        expect(again.cues.find((c) => c.line === at)?.startMs, where).toBeNull();
        expect(
          cueText(again.cues).some((l) => LOOKS_LIKE_TIMING.test(l)),
          where,
        ).toBe(false);
      }
    }
  });
});
