// Shapes built to make a detector or parser backtrack or rescan (a `\s+$` pattern tried from
// every space of a run, an unbounded search from every '&', a whole file split to read 50 lines):
// each must still give the right answer. Their speed is measured in bench/transcript/linear.mjs
// (no timed assertion here); a quadratic path would make these tests take minutes, not ms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntities } from '../src/importers/entities.js';
import {
  importTranscript,
  lookalike,
  parseTranscript,
  prevalidateUpload,
  TRANSCRIPT_MAX_LENGTH,
} from '../src/index.js';
import { listFixtures, readFixture } from './fixtures.js';
import { lookalikeBefore } from './support/lookalike-before.js';

const SPACES = ' '.repeat(80_000);

describe('lookalike on adversarial shapes', () => {
  it('80,000 spaces then `x,y` and a row: no CSV (a header field that starts with spaces is prose)', () => {
    expect(lookalike(`${SPACES}x,y\n1,2\n`)).toBeNull();
    expect(lookalike(`a,${SPACES}x\n1,2\n`)).toBeNull();
    expect(lookalike(`${SPACES}x,y`)).toBeNull();
  });

  it('a header field padded with 80,000 spaces after its name is still a column name', () => {
    const found = lookalike(`id,name${SPACES}\n1,Ana\n2,Ben\n`);
    expect(found?.kind).toBe('csv');
    expect(found?.line).toBe(1);
    expect(found?.reason).toContain('2 rows of 2 comma-separated fields');
    // The tab-separated header is trimmed on both sides.
    expect(lookalike(`${SPACES}id\tname${SPACES}\n1\tAna\n`)?.reason).toContain(
      'tab-separated fields',
    );
  });

  it('80,000 spaces before a JSON object, an XML document, one long line: found on the line they start', () => {
    expect(lookalike(`${SPACES}\n{"a": 1}`)).toMatchObject({ kind: 'json', line: 2 });
    expect(lookalike(`${SPACES}\n<doc>\n<p>x</p>\n</doc>${SPACES}`)).toMatchObject({
      kind: 'xml',
      line: 2,
    });
    expect(lookalike(`\n${SPACES}${'x'.repeat(2000)}${SPACES}`)).toMatchObject({
      kind: 'one-long-line',
      line: 2,
      reason: 'it is one line of 2000 characters: a transcript has a line per cue or per turn',
    });
  });

  it("40,000 closing tags '</' or '</a ': XML only when the last one closes the first", () => {
    expect(lookalike(`<a>\n${'</\n'.repeat(40_000)}`)).toBeNull();
    expect(lookalike(`<a>\n${'</a \n'.repeat(40_000)}`)).toBeNull();
    expect(lookalike(`<a>\n${'</a \n'.repeat(40_000)}</a>`)?.kind).toBe('xml');
    expect(lookalike(`<a>\n${'</a \n'.repeat(40_000)}</b${SPACES}>`)).toBeNull();
    expect(lookalike(`<a>x</a${SPACES}>`)?.kind).toBe('xml');
    // On one line, a text that is no element from start to end is one long line.
    expect(lookalike(`<a>${'</'.repeat(40_000)}`)?.kind).toBe('one-long-line');
  });

  it('a quote left open on an 80,000-character header line: no CSV; quoted fields with 80,000 spaces: CSV', () => {
    expect(lookalike(`"id${SPACES},name\n1,2\n`)).toBeNull();
    expect(lookalike(`"${SPACES}id",name\n1,2\n`)).toBeNull(); // starts with spaces: prose
    expect(lookalike(`"id","full name"${SPACES}\n"1${SPACES}","a ""b"", c"\n`)?.kind).toBe('csv');
  });

  it('80,000 line breaks or U+2028 before a CSV: found on its line', () => {
    expect(lookalike(`${'\n'.repeat(80_000)}id,name\n1,Ana\n`)).toMatchObject({
      kind: 'csv',
      line: 80_001,
    });
    expect(lookalike(`${'\r\n'.repeat(80_000)}id,name\r\n1,Ana\r\n`)?.line).toBe(80_001);
    expect(lookalike(`${'\u2028'.repeat(80_000)}x,y\na,b`)).toBeNull();
  });
});

describe('lookalike on a file over the length limit reads only what it needs', () => {
  it('a CSV export of 2 MB: judged on its first 50 lines', () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => `${i},name${i},n${i}@acme.com`);
    const text = `id,name,email\n${rows.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(20 * TRANSCRIPT_MAX_LENGTH);
    expect(lookalike(text)).toMatchObject({ kind: 'csv', line: 1 });
    expect(lookalike(text)?.reason).toContain('and 49 rows of 3 comma-separated fields');
  });

  it('binary: the share is of the first TRANSCRIPT_MAX_LENGTH characters, and says so', () => {
    const start = `${'\u0001'.repeat(10_000)}${'x'.repeat(TRANSCRIPT_MAX_LENGTH - 10_000)}`;
    expect(lookalike(`${start}${'y'.repeat(1_000_000)}`)).toEqual({
      kind: 'binary',
      line: 1,
      reason:
        '10% of its first 100000 characters are control characters or undecodable bytes: a binary file, or text in another encoding',
    });
    // Within the limit the share is of the whole text, as before.
    expect(lookalike(start)?.reason).toMatch(/^10% of its characters are/);
    // Control characters only past the sample: the start is what a reader sees, and it is text.
    const late = `${'x\n'.repeat(TRANSCRIPT_MAX_LENGTH)}${'\u0001'.repeat(100_000)}`;
    expect(lookalike(late)).toBeNull();
  });

  it('a 16 MB SRT is no look-alike, and a 3 MB JSON array or XML document still is one', () => {
    const srt = '1\n00:00:01,000 --> 00:00:02,000\nrep@acme.com: hello there\n\n'.repeat(300_000);
    expect(srt.length).toBeGreaterThan(16_000_000);
    expect(lookalike(srt)).toBeNull();
    const json = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ id: i, t: 'hi' })));
    expect(lookalike(json)).toMatchObject({ kind: 'json', reason: 'it is a JSON array' });
    const xml = `<tt>\n${'<p begin="1s">hello</p>\n'.repeat(120_000)}</tt>\n`;
    expect(lookalike(xml)).toMatchObject({ kind: 'xml', line: 1 });
  });
});

describe('parsers and importers on adversarial shapes', () => {
  it("'&' × 80,000 with no ';' after: left as written; one reference after them: decoded", () => {
    const amps = '&'.repeat(80_000);
    expect(decodeEntities(amps)).toBe(amps);
    expect(decodeEntities(`${amps}&amp;`)).toBe(`${amps}&`);
    expect(decodeEntities(`${amps}&#233;&lt;x`)).toBe(`${amps}é<x`);
    expect(decodeEntities('&a&lt;&&#x41;&;&amp')).toBe('&a<&A&;&amp');
  });

  it("'&' × 4,000,000 before one ';': the ';' is searched once, not from every '&'", () => {
    // A search per '&' costs the square of the run: at memchr speed that is still only ms for
    // 80,000, but minutes for this run.
    const amps = '&'.repeat(4_000_000);
    expect(decodeEntities(`${amps}&amp;`)).toBe(`${amps}&`);
  });

  it("a Teams voice name of 80,000 '&': read as written", () => {
    const name = '&'.repeat(80_000);
    const vtt = `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v ${name}>hello\n`;
    const r = importTranscript(vtt, { source: 'teams-vtt' });
    expect(r.speakers).toEqual([{ name, email: null, cueCount: 1 }]);
  });

  it('an Otter export with 300,000 lines before the first turn: every skipped line counted, no stack overflow', () => {
    const text = `${'Title\n'.repeat(300_000)}Ana Ruiz  0:01\nhello\n`;
    const r = importTranscript(text, {
      source: 'otter-txt',
      speakers: { 'Ana Ruiz': 'ana@acme.com' },
    });
    expect(r.diagnostics.filter((d) => d.code === 'skipped_line')).toHaveLength(300_000);
    expect(r.srt).toBe('1\n00:00:01,000 --> 00:00:02,000\nana@acme.com: hello\n');
  });

  it('80,000 spaces then `x,y`: parsed as plain text and pre-validated like any text', () => {
    const text = `${SPACES}x,y`;
    expect(parseTranscript(text).cues.map((c) => c.text)).toEqual([text]);
    const r = prevalidateUpload({ transcript: text, meetingName: 'Call', email: 'rep@acme.com' });
    expect(r.ok).toBe(true);
    expect(r.notTranscript).toBeNull();
  });
});

describe('lookalike answers as before on ordinary inputs', () => {
  /** Fragments of CSV, JSON, markup, binary and SRT glued at random: every branch of every test. */
  const fragment = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom(',', ';', '\t', '|', '"', '""', ' ', '  ', '\n', '\r\n', '\r'),
    },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        'id',
        'name',
        'Email Address',
        '_x1',
        '1',
        'Ana',
        'Hi, how are you',
        'rep@acme.com: ',
        '00:00:01,000 --> 00:00:02,000',
        '{',
        '}',
        '[',
        ']',
        '{"a": 1}',
        '[{"a": [1]}]',
        '<',
        '>',
        '</',
        '<root>',
        '</root>',
        '<html>',
        '<!DOCTYPE html>',
        '<?xml ?>',
        '<div ',
        '\u0001',
        '\uFFFD',
        '\u00a0',
        '\u2028',
        '\uFEFF',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(1001), ' '.repeat(50)) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  );
  const ordinary = fc.array(fragment, { maxLength: 60 }).map((parts) => parts.join(''));

  it('random CSV-, JSON-, markup- and SRT-like texts', () => {
    fc.assert(
      fc.property(ordinary, (text) => {
        expect(lookalike(text)).toEqual(lookalikeBefore(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('every transcript fixture', () => {
    for (const file of listFixtures()) {
      const text = new TextDecoder().decode(readFixture(file));
      expect(lookalike(text), file).toEqual(lookalikeBefore(text));
    }
  });
});
