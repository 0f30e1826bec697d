// "This does not look like a transcript", in the package and in prevalidateUpload.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeTranscriptBytes,
  detectSource,
  importTranscript,
  lookalike,
  prevalidateUpload,
  serializeSrt,
} from '../src/index.js';
import { listFixtures, readFixture } from './fixtures.js';

const request = (transcript: string) => ({
  transcript,
  meetingName: 'Call',
  email: 'rep@acme.com',
});

describe('lookalike: what a text that is no transcript looks like', () => {
  it('a CSV export: a header row and delimited rows, with the header line', () => {
    const text = '\nid,name,email\n1,Ana,ana@acme.com\n2,Ben,ben@client.com\n';
    expect(lookalike(text)).toEqual({
      kind: 'csv',
      line: 2,
      reason:
        'a header row (id,name,email) and 2 rows of 3 comma-separated fields: a spreadsheet or CSV export',
    });
  });

  it('CSV with quoted fields, semicolons, tabs', () => {
    expect(lookalike('"Name","Note"\n"Ana","Hi, there"\n"Ben","a ""quote"""\n')?.kind).toBe('csv');
    expect(lookalike('Name;Amount\nAna;10,5\nBen;3\n')?.reason).toContain(
      '2 rows of 2 semicolon-separated fields',
    );
    expect(lookalike('Start\tSpeaker\tText\n0:01\tAna\tHello\n')?.reason).toContain(
      'tab-separated',
    );
  });

  it('JSON: an object, an array, or a document that starts like one', () => {
    expect(lookalike('{"foo":1}')).toEqual({
      kind: 'json',
      line: 1,
      reason: 'it is a JSON object',
    });
    expect(lookalike('  \n[{"a": 1}, {"a": 2}]\n')).toEqual({
      kind: 'json',
      line: 2,
      reason: 'it is a JSON array',
    });
    expect(lookalike('{"sentences": [{"text": "cut here')?.reason).toBe(
      'it starts like a JSON document (and does not parse as one)',
    );
  });

  it('XML and HTML', () => {
    expect(lookalike('<!DOCTYPE html>\n<html><body>Hi</body></html>')).toEqual({
      kind: 'html',
      line: 1,
      reason: 'it is an HTML page',
    });
    expect(lookalike('<?xml version="1.0"?>\n<tt><p>Hi</p></tt>')?.kind).toBe('xml');
    expect(lookalike('<transcript>\n  <turn who="a">Hi</turn>\n</transcript>\n')).toEqual({
      kind: 'xml',
      line: 1,
      reason: 'it is an XML document: one <transcript> element from start to end',
    });
    expect(lookalike('<div>\nRep: hello\n</div>')?.kind).toBe('html');
  });

  it('binary-looking text, with the line of the first control character', () => {
    const text = `PK\n\u0003\u0004\u0014\u0000\u0008\u0000${'\u0001x'.repeat(20)}`;
    const found = lookalike(text);
    expect(found?.kind).toBe('binary');
    expect(found?.line).toBe(2);
    expect(found?.reason).toMatch(
      /^\d+% of its characters are control characters or undecodable bytes: a binary file, or text in another encoding$/,
    );
    expect(lookalike('\uFFFD\uFFFD\uFFFD caf\uFFFD d\uFFFDj\uFFFD vu')?.kind).toBe('binary');
  });

  it('one long line', () => {
    expect(lookalike('a'.repeat(1001))).toEqual({
      kind: 'one-long-line',
      line: 1,
      reason: 'it is one line of 1001 characters: a transcript has a line per cue or per turn',
    });
    expect(lookalike(`word `.repeat(200).trim())).toBeNull(); // 999 characters
  });

  it('no false alarm on transcripts that carry commas, tags, braces or one short line', () => {
    for (const text of [
      'Hi, how are you?\nFine, thanks.\nGood, let us start.\n',
      'Rep: Hello, thanks for joining.\nBuyer: Sure, happy to.\n',
      '1\n00:00:01,000 --> 00:00:02,000\n<i>Hi</i>, there\n\n2\n00:00:02,000 --> 00:00:03,000\nfine\n',
      '<b>Agent</b>: hi\nClient: hello\n',
      '{laughs} okay, so the budget\nis fine\n',
      'Thanks for the call today, talk soon.',
      '',
      '   \n ',
    ]) {
      expect(lookalike(text), JSON.stringify(text)).toBeNull();
    }
  });

  it('no false alarm on any transcript fixture of test/shared, as the CLI would send it', () => {
    const files = listFixtures().filter((f) => !/\.(md|json)$/.test(f) || /meeting\//.test(f));
    expect(files.length).toBeGreaterThan(80);
    for (const file of files) {
      const decoded = decodeTranscriptBytes(readFixture(file));
      if ('error' in decoded) continue; // refused before any check (invalid UTF-8, GB2312)
      expect(lookalike(decoded.text), `${file} as read`).toSatisfy(
        (found: ReturnType<typeof lookalike>) => found === null || /\.json$/.test(file),
      );
      // A meeting tool's export is converted to speaker-labeled SRT before it is sent (R4).
      const source = detectSource(decoded.text, file);
      const sent =
        source === 'srt' || source === 'plain'
          ? decoded.text
          : importTranscript(decoded.text, { source, fileName: file, speakers: {} }).srt;
      expect(lookalike(sent), `${file} as sent`).toBeNull();
      expect(
        prevalidateUpload(request(sent)).warnings.filter((w) => w.code === 'not_a_transcript'),
        file,
      ).toEqual([]);
    }
  });
});

describe('lookalike: laws', () => {
  const printable = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\p{Cc}\uFFFD]/gu, ''));

  it('SRT written by serializeSrt is never taken for something else', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            startMs: fc.nat({ max: 10_000_000 }),
            duration: fc.nat({ max: 10_000 }),
            lines: fc.array(printable, { minLength: 1, maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (cues) => {
          const srt = serializeSrt(
            cues.map((c) => ({
              startMs: c.startMs,
              endMs: c.startMs + c.duration,
              lines: c.lines,
            })),
          );
          expect(lookalike(srt)).toBeNull();
        },
      ),
    );
  });

  it('never throws; a finding names a line of the text; a BOM changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const found = lookalike(text);
        if (found) {
          expect(found.line).toBeGreaterThanOrEqual(1);
          expect(found.line).toBeLessThanOrEqual(text.split(/\r\n|\r|\n/).length);
          expect(found.reason).not.toBe('');
        }
        expect(lookalike(`\uFEFF${text}`)?.kind).toBe(found?.kind);
      }),
    );
  });
});

describe('prevalidateUpload: the look-alike is a warning, never a problem', () => {
  it('a JSON object sent as a transcript: ok (the service accepts it) with the warning and its line', () => {
    const result = prevalidateUpload(request('{"foo": 1, "bar": 2}'));
    expect(result.ok).toBe(true);
    expect(result.problems).toEqual([]);
    expect(result.notTranscript).toEqual({ kind: 'json', line: 1, reason: 'it is a JSON object' });
    expect(result.warnings).toContainEqual({
      code: 'not_a_transcript',
      field: 'transcript',
      line: 1,
      message: 'This does not look like a transcript: it is a JSON object.',
    });
  });

  it('a transcript: no such warning, notTranscript null', () => {
    const result = prevalidateUpload(
      request('1\n00:00:01,000 --> 00:00:04,000\nrep@acme.com: What budget do you have?\n'),
    );
    expect(result.notTranscript).toBeNull();
    expect(result.warnings).toEqual([]);
  });
});

describe('lookalike: the edges of each test', () => {
  const kindOf = (text: string) => lookalike(text)?.kind ?? null;

  it('control characters: C0 but tab to CR, DEL and C1, U+FFFD; their neighbours are text', () => {
    for (const c of [0x00, 0x08, 0x0e, 0x1f, 0x7f, 0x80, 0x9f, 0xfffd]) {
      expect([c, kindOf(`Rep: hi${String.fromCharCode(c).repeat(5)}`)]).toEqual([c, 'binary']);
    }
    for (const c of [0x09, 0x0b, 0x0c, 0x20, 0x7e, 0xa0, 0xfffc]) {
      expect([c, kindOf(`Rep: hi${String.fromCharCode(c).repeat(5)}`)]).toEqual([c, null]);
    }
  });

  it('the binary share: 5 % of the characters is binary, less is not; only the first 100,000 count', () => {
    expect(kindOf(`\u0001${'a'.repeat(19)}`)).toBe('binary');
    expect(kindOf(`\u0001${'a b '.repeat(5)}`)).toBe(null); // 1 in 21
    // 4,999 controls in the first 100,000 characters, and one just after them: not binary.
    const first = `${'\u0001'.repeat(4999)}${'a b\n'.repeat(23_750)}${'c'.repeat(1)}`;
    expect(first).toHaveLength(100_000);
    expect(lookalike(`${first}\u0001`)).toBeNull();
    expect(lookalike(`\u0001${first}`)?.reason).toBe(
      '5% of its first 100000 characters are control characters or undecodable bytes: a binary file, or text in another encoding',
    );
  });

  it('JSON is a document that starts with [ or {: a lone number, string or literal is not', () => {
    for (const text of ['42', '"just words"', 'true', 'null', '-1.5e3']) {
      expect(lookalike(text), text).toBeNull();
    }
  });

  it('HTML by its doctype or <html> tag, with any spacing and attributes; one element by its name', () => {
    expect(lookalike('<!doctype   html>\n<p>Hi</p>')?.reason).toBe('it is an HTML page');
    expect(lookalike('<html lang="en">\n<body>Hi</body>\n</html>')?.reason).toBe(
      'it is an HTML page',
    );
    expect(lookalike('<div class="x">\nRep: hello\n</div>')?.reason).toBe(
      'it is HTML: one <div> element from start to end',
    );
    expect(lookalike('<transcript version="2">\n<turn>Hi</turn>\n</transcript>')?.reason).toBe(
      'it is an XML document: one <transcript> element from start to end',
    );
    // Names that only start or end like an HTML one are XML.
    for (const name of ['panel', 'sitemap', 'bodyguard', 'tp']) {
      expect(kindOf(`<${name}>\nx\n</${name}>`), name).toBe('xml');
    }
  });

  it('a transcript line that holds a tag, not at its start, is no document', () => {
    expect(lookalike('Rep: hello <b>there</b>')).toBeNull();
    expect(lookalike('Rep: a <note>\nBuyer: fine </note>')).toBeNull();
  });

  it('CSV: empty cells, CR or CRLF line ends, one row, a long header cut at 60 characters', () => {
    expect(lookalike('a,b,c\n,x,y\n1,,3\n')?.reason).toContain('2 rows of 3 comma-separated');
    expect(lookalike('\r\nid,name\r1,Ana\r\n2,Ben')).toMatchObject({
      line: 2,
      reason: expect.stringContaining('(id,name) and 2 rows of 2'),
    });
    expect(lookalike('id\tname\n1\tAna')?.reason).toBe(
      'a header row (id name) and 1 row of 2 tab-separated fields: a spreadsheet or CSV export',
    );
    const header60 = `${'a'.repeat(29)},${'b'.repeat(30)}`;
    expect(header60).toHaveLength(60);
    expect(lookalike(`${header60}\n1,2`)?.reason).toContain(`(${header60})`);
    const header61 = `${header60}c`;
    expect(lookalike(`${header61}\n1,2`)?.reason).toContain(`(${header61.slice(0, 57)}...)`);
    // A byte-order mark before the header does not hide it.
    expect(kindOf('\uFEFFid,name\n1,Ana')).toBe('csv');
  });

  it('CSV needs every row to have the header`s fields, and a name in every header field', () => {
    for (const text of [
      'Name,Email\nAna,ana@acme.com\nBen\n', // a row short
      'Name,Email\n"Ana,ana@acme.com\n', // a quote left open: no row
      'Hi; there\nFine; thanks\n', // prose with semicolons
      '"x""y",b\n1,2\n', // a quote inside a name
    ]) {
      expect(lookalike(text), text).toBeNull();
    }
  });

  it('one long line: more than 1,000 characters', () => {
    expect(lookalike('a'.repeat(1000))).toBeNull();
    expect(kindOf(` ${'a'.repeat(1001)} `)).toBe('one-long-line');
  });
});
