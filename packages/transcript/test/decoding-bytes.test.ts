import { decodeTranscriptBytes } from '@rcs/transcript';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The edges of reading a transcript file's bytes: which byte-order marks win, where UTF-16 is
// sniffed, what counts as binary, and exactly which byte is reported as the first bad UTF-8 one.
const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(
    parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)),
  );
const codeOf = (r: ReturnType<typeof decodeTranscriptBytes>) =>
  'error' in r ? r.error.code : r.encoding;

/** UTF-16 code units as bytes, little or big endian, no BOM. */
function units(codes: number[], le: boolean): number[] {
  return codes.flatMap((c) => (le ? [c & 0xff, c >> 8] : [c >> 8, c & 0xff]));
}

describe('byte-order marks', () => {
  it('a UTF-32 BOM of exactly four bytes is refused, both byte orders', () => {
    expect(decodeTranscriptBytes(bytes([0xff, 0xfe, 0, 0]))).toMatchObject({
      error: { code: 'unsupported_encoding', message: expect.stringMatching(/UTF-32.*UTF-8/) },
    });
    expect(codeOf(decodeTranscriptBytes(bytes([0, 0, 0xfe, 0xff])))).toBe('unsupported_encoding');
  });

  it('a UTF-16 LE BOM followed by one NUL character is UTF-16, not UTF-32', () => {
    // FF FE 00 00 would be UTF-32; FF FE 00 41 is U+4100 in UTF-16 LE.
    expect(decodeTranscriptBytes(bytes([0xff, 0xfe, 0x00, 0x41]))).toMatchObject({
      text: '\u4100',
      encoding: 'utf-16le',
    });
    expect(decodeTranscriptBytes(bytes([0xff, 0xfe, 0x41, 0x00]))).toMatchObject({ text: 'A' });
    // 00 00 FE FF is UTF-32 BE; 00 00 FE 00 and 01 00 FE FF are not.
    expect(codeOf(decodeTranscriptBytes(bytes([0, 0, 0xfe, 0])))).not.toBe('unsupported_encoding');
    expect(codeOf(decodeTranscriptBytes(bytes([1, 0, 0xfe, 0xff])))).not.toBe(
      'unsupported_encoding',
    );
    expect(codeOf(decodeTranscriptBytes(bytes([0, 1, 0xfe, 0xff])))).not.toBe(
      'unsupported_encoding',
    );
    expect(codeOf(decodeTranscriptBytes(bytes([0xff, 0xfe, 0, 1])))).toBe('utf-16le');
  });

  it('a lone BOM is an empty transcript in its encoding', () => {
    expect(decodeTranscriptBytes(bytes([0xff, 0xfe]))).toEqual({
      text: '',
      encoding: 'utf-16le',
      diagnostics: [],
    });
    expect(decodeTranscriptBytes(bytes([0xfe, 0xff]))).toEqual({
      text: '',
      encoding: 'utf-16be',
      diagnostics: [],
    });
    expect(decodeTranscriptBytes(bytes([0xef, 0xbb, 0xbf]))).toEqual({
      text: '',
      encoding: 'utf-8-bom',
      diagnostics: [],
    });
    expect(decodeTranscriptBytes(bytes([]))).toEqual({
      text: '',
      encoding: 'utf-8',
      diagnostics: [],
    });
  });

  it('half a BOM is not a BOM', () => {
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0xfe])))).toBe('invalid_utf8');
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0xff])))).toBe('invalid_utf8');
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0xbb, 0xbf])))).toBe('invalid_utf8');
    // Two NULs after anything but a UTF-32 BOM are binary, not UTF-32.
    for (const head of [
      [0x41, 0x42],
      [0xff, 0x41],
      [0x41, 0xfe],
    ]) {
      expect(codeOf(decodeTranscriptBytes(bytes([...head, 0, 0])))).toBe('binary_content');
    }
    for (const tail of [
      [0x41, 0xff],
      [0xfe, 0x41],
    ]) {
      expect(codeOf(decodeTranscriptBytes(bytes([0, 0, ...tail])))).toBe('binary_content');
    }
    expect(codeOf(decodeTranscriptBytes(bytes([0xff, 0x41])))).toBe('invalid_utf8');
    expect(codeOf(decodeTranscriptBytes(bytes([0xfe, 0x41])))).toBe('invalid_utf8');
    expect(codeOf(decodeTranscriptBytes(bytes([0xef, 0xbb, 0x41])))).toBe('invalid_utf8');
    expect(codeOf(decodeTranscriptBytes(bytes([0xef, 0x41, 0xbf])))).toBe('invalid_utf8');
  });

  it('a UTF-16 BOM with a broken surrogate names the encoding it started like', () => {
    const r = decodeTranscriptBytes(bytes([0xfe, 0xff, 0xd8, 0x00, 0x00, 0x41]));
    expect(r).toMatchObject({
      error: {
        code: 'invalid_utf16',
        severity: 'error',
        line: 0,
        message:
          'The file starts like UTF-16BE but is not valid UTF-16BE (odd length or broken surrogate pairs).',
      },
    });
  });

  it('a BOM is never part of the text', () => {
    expect(decodeTranscriptBytes(bytes([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], 'A'))).toMatchObject({
      text: '\ufeffA', // a second UTF-8 BOM is content (a zero-width no-break space)
      encoding: 'utf-8-bom',
    });
    expect(decodeTranscriptBytes(bytes([0xef, 0xbb, 0xbf], 'hi'))).toMatchObject({ text: 'hi' });
    expect(decodeTranscriptBytes(bytes([0xfe, 0xff, 0xfe, 0xff, 0, 0x41]))).toMatchObject({
      text: '\ufeffA', // only the first BOM is the mark; a second one is content
    });
  });
});

describe('UTF-16 without a BOM (the NUL pattern)', () => {
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

  it('needs at least two code units', () => {
    // One unit 'A\0' is too little to tell: it is read as binary (it has a NUL).
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0])))).toBe('binary_content');
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0, 0x42])))).toBe('binary_content');
    expect(decodeTranscriptBytes(bytes(units(ascii('AB'), true)))).toMatchObject({
      text: 'AB',
      encoding: 'utf-16le',
      diagnostics: [
        {
          code: 'utf16_without_bom',
          severity: 'warning',
          line: 0,
          message:
            'The file has no byte-order mark but its NUL bytes show UTF-16LE; it was decoded as such.',
        },
      ],
    });
    expect(decodeTranscriptBytes(bytes(units(ascii('AB'), false)))).toMatchObject({
      text: 'AB',
      encoding: 'utf-16be',
    });
  });

  it('an SRT saved as UTF-16 without a BOM reads back as the same text, in any script', () => {
    // Letters whose UTF-16 units have no NUL byte (Cyrillic, CJK, Hangul, Arabic, an emoji's
    // surrogates) besides ASCII and Latin-1: what transcripts hold around their timings.
    const letter = fc.constantFrom(...'aZé ж中文한ا😊,.?'.split(/(?=[\s\S])/u));
    const cue = fc.record({
      speaker: fc.constantFrom('Alice', 'Bob', 'Rep', 'Клиент', '客户'),
      words: fc.array(letter, { minLength: 1, maxLength: 40 }).map((w) => w.join('')),
    });
    fc.assert(
      fc.property(fc.array(cue, { minLength: 1, maxLength: 40 }), fc.boolean(), (cues, le) => {
        const srt = cues
          .map(
            (c, i) =>
              `${i + 1}\r\n00:00:${String(i % 60).padStart(2, '0')},000 --> 00:01:00,000\r\n${c.speaker}: ${c.words}\r\n`,
          )
          .join('\r\n');
        const codes = [...srt].flatMap((ch) => {
          const cp = ch.codePointAt(0)!;
          if (cp < 0x10000) return [cp];
          const v = cp - 0x10000;
          return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
        });
        expect(decodeTranscriptBytes(bytes(units(codes, le)))).toMatchObject({
          text: srt,
          encoding: le ? 'utf-16le' : 'utf-16be',
        });
      }),
    );
  });

  it('a mostly-CJK transcript is sniffed at exactly 30 % NUL units on one side and 2 % on the other', () => {
    // 100 units: `latin` ASCII ones (NUL in their high byte), `yi` U+4E00 (NUL in its low byte),
    // the rest U+4E2D (no NUL byte at all).
    const text = (latin: number, yi: number) =>
      `Ana: ${'中'.repeat(100 - latin - yi)}${'一'.repeat(yi)}${'.'.repeat(latin - 5)}`;
    const decode = (t: string, le: boolean) => decodeTranscriptBytes(bytes(units(ascii(t), le)));
    for (const le of [true, false]) {
      const encoding = le ? 'utf-16le' : 'utf-16be';
      expect(decode(text(30, 2), le)).toMatchObject({ text: text(30, 2), encoding });
      // One NUL unit fewer on the ASCII side, or one more on the other: not sure enough, so the
      // NULs make it binary.
      expect(codeOf(decode(text(29, 2), le))).toBe('binary_content');
      expect(codeOf(decode(text(30, 3), le))).toBe('binary_content');
    }
  });

  it('an odd trailing byte is outside the sniffed pairs, and makes the UTF-16 invalid', () => {
    expect(codeOf(decodeTranscriptBytes(bytes([0x41, 0, 0x42, 0, 0])))).toBe('invalid_utf16');
  });
});

describe('binary content', () => {
  it('a NUL among the text is binary', () => {
    expect(decodeTranscriptBytes(bytes('hello', [0], 'world'))).toMatchObject({
      error: {
        code: 'binary_content',
        line: 0,
        message:
          'The file is not text (it contains NUL or other control bytes): upload a transcript (.srt, .vtt, .txt).',
      },
    });
  });

  it('a single NUL is binary however long the text around it', () => {
    // One stray control in 100 bytes is tolerated; one NUL is not.
    expect(codeOf(decodeTranscriptBytes(bytes('a'.repeat(60), [0x01], 'b'.repeat(39))))).toBe(
      'utf-8',
    );
    expect(codeOf(decodeTranscriptBytes(bytes('a'.repeat(60), [0], 'b'.repeat(39))))).toBe(
      'binary_content',
    );
  });

  it('only the first 8 KiB are looked at for NULs', () => {
    const withNulAt = (offset: number) => bytes('a'.repeat(offset), [0], 'b'.repeat(100));
    expect(codeOf(decodeTranscriptBytes(withNulAt(8191)))).toBe('binary_content');
    // Past the sample the NUL is text for the parser to report (nul_character, with its line).
    expect(decodeTranscriptBytes(withNulAt(8192))).toMatchObject({
      text: `${'a'.repeat(8192)}\u0000${'b'.repeat(100)}`,
      encoding: 'utf-8',
    });
  });

  it('files that are not text (an image, an archive, audio) are refused as such', () => {
    const starts = {
      png: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52],
      jpeg: [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01],
      zip: [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00],
      gzip: [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03],
      mp3: [0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x76],
    };
    for (const [kind, start] of Object.entries(starts)) {
      // The header, then bytes as random as compressed data: 4 KiB of a fixed pseudo-random run.
      let x = 7;
      const rest = Array.from({ length: 4096 }, () => {
        x = (x * 1103515245 + 12345) & 0x7fffffff;
        return (x >> 16) & 0xff;
      });
      expect([kind, codeOf(decodeTranscriptBytes(bytes(start, rest)))]).toEqual([
        kind,
        'binary_content',
      ]);
    }
  });

  it('tab, LF, VT, FF, CR and ESC are text; other C0 controls count', () => {
    expect(decodeTranscriptBytes(bytes([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b]))).toMatchObject({
      text: '\t\n\v\f\r\u001b',
    });
    for (const c of [0x01, 0x08, 0x0e, 0x1a, 0x1c, 0x1f]) {
      expect(codeOf(decodeTranscriptBytes(bytes([c, 0x41])))).toBe('binary_content');
    }
    expect(decodeTranscriptBytes(bytes([0x20, 0x41]))).toMatchObject({ text: ' A' });
  });

  it('a few stray controls in a long text are tolerated: more than 1 in 50 bytes is binary', () => {
    // 1 control in 50 bytes: 1 × 50 > 50 is false, so it is text.
    expect(codeOf(decodeTranscriptBytes(bytes([0x01], 'a'.repeat(49))))).toBe('utf-8');
    expect(codeOf(decodeTranscriptBytes(bytes([0x01], 'a'.repeat(48))))).toBe('binary_content');
    expect(codeOf(decodeTranscriptBytes(bytes([0x01, 0x02], 'a'.repeat(98))))).toBe('utf-8');
    expect(codeOf(decodeTranscriptBytes(bytes([0x01, 0x02], 'a'.repeat(97))))).toBe(
      'binary_content',
    );
  });
});

describe('the first bad UTF-8 byte (Unicode Table 3-7)', () => {
  const at = (...b: (number[] | string)[]) => {
    const r = decodeTranscriptBytes(bytes(...b));
    if (!('error' in r)) return 'ok';
    const m = /offset (\d+), line (\d+)/.exec(r.error.message);
    return m ? `${m[1]}:${m[2]}:${r.error.line}` : r.error.code;
  };

  it.each([
    ['C2 80 (U+0080)', [0xc2, 0x80]],
    ['DF BF (U+07FF)', [0xdf, 0xbf]],
    ['E0 A0 80 (U+0800)', [0xe0, 0xa0, 0x80]],
    ['E1 80 80', [0xe1, 0x80, 0x80]],
    ['EC BF BF', [0xec, 0xbf, 0xbf]],
    ['ED 9F BF (U+D7FF)', [0xed, 0x9f, 0xbf]],
    ['EE 80 80 (U+E000)', [0xee, 0x80, 0x80]],
    ['EF BF BF', [0xef, 0xbf, 0xbf]],
    ['F0 90 80 80 (U+10000)', [0xf0, 0x90, 0x80, 0x80]],
    ['F1 80 80 80', [0xf1, 0x80, 0x80, 0x80]],
    ['F3 BF BF BF', [0xf3, 0xbf, 0xbf, 0xbf]],
    ['F4 8F BF BF (U+10FFFF)', [0xf4, 0x8f, 0xbf, 0xbf]],
  ])('%s is well-formed, and a bad byte after it is reported at its own offset', (_name, seq) => {
    expect(at('ab', seq, 'cd')).toBe('ok');
    expect(at('ab\n', seq, [0xff])).toBe(`${3 + seq.length}:2:2`);
    expect(at('ab\n', seq, [0x80])).toBe(`${3 + seq.length}:2:2`);
  });

  it.each([
    ['80 (a lone continuation)', [0x80]],
    ['BF', [0xbf]],
    ['80 80 80 (continuations are no lead)', [0x80, 0x80, 0x80]],
    ['C1 80 80 80', [0xc1, 0x80, 0x80, 0x80]],
    ['C0 80 (overlong)', [0xc0, 0x80]],
    ['C1 BF (overlong)', [0xc1, 0xbf]],
    ['C2 7F', [0xc2, 0x7f]],
    ['C2 C0', [0xc2, 0xc0]],
    ['DF (truncated)', [0xdf]],
    ['E0 9F 80 (overlong)', [0xe0, 0x9f, 0x80]],
    ['E0 A0 7F', [0xe0, 0xa0, 0x7f]],
    ['E0 A0 C0', [0xe0, 0xa0, 0xc0]],
    ['E1 7F 80', [0xe1, 0x7f, 0x80]],
    ['E1 C0 80', [0xe1, 0xc0, 0x80]],
    ['ED A0 80 (surrogate)', [0xed, 0xa0, 0x80]],
    ['EF BF (truncated)', [0xef, 0xbf]],
    ['F0 8F BF BF (overlong)', [0xf0, 0x8f, 0xbf, 0xbf]],
    ['F0 90 80 C0', [0xf0, 0x90, 0x80, 0xc0]],
    ['F4 90 80 80 (above U+10FFFF)', [0xf4, 0x90, 0x80, 0x80]],
    ['F4 8F BF C0', [0xf4, 0x8f, 0xbf, 0xc0]],
    ['F5 80 80 80', [0xf5, 0x80, 0x80, 0x80]],
    ['FF', [0xff]],
  ])('%s is reported at its lead byte', (_name, seq) => {
    // "ab\n" puts the bad sequence at offset 3 on line 2.
    expect(at('ab\n', seq, 'cd')).toBe('3:2:2');
  });

  it('counts every LF before the bad byte, and only those', () => {
    expect(at('a\nb\n\nc', [0xff], '\n\n')).toBe('6:4:4');
    expect(at([0xff], '\n')).toBe('0:1:1');
    expect(at('€😀x', [0xe0, 0x80])).toBe('8:1:1');
  });

  it('names the likely cause and the remedy', () => {
    const r = decodeTranscriptBytes(bytes('caf', [0xe9]));
    expect(r).toMatchObject({
      error: {
        code: 'invalid_utf8',
        severity: 'error',
        message:
          'The file is not valid UTF-8 (first bad byte at offset 3, line 1); it is probably in a legacy encoding such as Windows-1252 or GB2312. Re-save it as UTF-8.',
      },
    });
  });
});

describe('decodeTranscriptBytes with allowControlBytes', () => {
  const bytes = new TextEncoder().encode('1\n00:00:01,000 --> 00:00:02,000\nhi\u0000 there\n');

  it('keeps a NUL byte as a character instead of refusing the file as binary', () => {
    expect(decodeTranscriptBytes(bytes)).toMatchObject({ error: { code: 'binary_content' } });
    const kept = decodeTranscriptBytes(bytes, { allowControlBytes: true });
    expect(kept).toMatchObject({ text: '1\n00:00:01,000 --> 00:00:02,000\nhi\u0000 there\n' });
  });

  it('still refuses bytes that are not UTF-8', () => {
    const bad = new Uint8Array([...bytes, 0xff, 0x00]);
    expect(decodeTranscriptBytes(bad, { allowControlBytes: true })).toMatchObject({
      error: { code: 'invalid_utf8' },
    });
  });
});
