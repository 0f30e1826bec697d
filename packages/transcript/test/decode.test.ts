import { decodeTranscriptBytes, parseTranscript } from '@rcs/transcript';
import { describe, expect, it } from 'vitest';

const utf8 = (s: string) => new TextEncoder().encode(s);
function utf16(s: string, le: boolean, bom: boolean): Uint8Array {
  const out = new Uint8Array((s.length + (bom ? 1 : 0)) * 2);
  let o = 0;
  const put = (c: number) => {
    out[o++] = le ? c & 0xff : c >> 8;
    out[o++] = le ? c >> 8 : c & 0xff;
  };
  if (bom) put(0xfeff);
  for (let i = 0; i < s.length; i++) put(s.charCodeAt(i));
  return out;
}
const SRT = '1\r\n00:00:00,000 --> 00:00:01,000\r\nJosé: ¿qué? 😀\r\n';

describe('decodeTranscriptBytes', () => {
  it('decodes UTF-8 and drops a BOM', () => {
    expect(decodeTranscriptBytes(utf8(SRT))).toMatchObject({ text: SRT, encoding: 'utf-8' });
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(SRT)]);
    expect(decodeTranscriptBytes(bom)).toMatchObject({ text: SRT, encoding: 'utf-8-bom' });
  });

  it('decodes UTF-16 LE and BE with a BOM, and sniffs them without one (warning)', () => {
    expect(decodeTranscriptBytes(utf16(SRT, true, true))).toMatchObject({
      text: SRT,
      encoding: 'utf-16le',
    });
    expect(decodeTranscriptBytes(utf16(SRT, false, true))).toMatchObject({
      text: SRT,
      encoding: 'utf-16be',
    });
    const sniffed = decodeTranscriptBytes(utf16(SRT, false, false));
    expect(sniffed).toMatchObject({
      text: SRT,
      encoding: 'utf-16be',
      diagnostics: [{ code: 'utf16_without_bom' }],
    });
    if ('text' in sniffed) expect(parseTranscript(sniffed.text).cues[0]?.text).toBe('¿qué? 😀');
  });

  it('rejects invalid UTF-8 with the offset and line of the first bad byte', () => {
    const bytes = new Uint8Array([...utf8('1\n00:00:00,000 --> 00:00:01,000\ncaf'), 0xe9, 0x0a]);
    const r = decodeTranscriptBytes(bytes);
    expect(r).toMatchObject({ error: { code: 'invalid_utf8', severity: 'error', line: 3 } });
    if ('error' in r) expect(r.error.message).toMatch(/offset 35, line 3.*Re-save it as UTF-8/);
  });

  it('reports the lead byte of a sequence that is ill-formed only by its second-byte range', () => {
    // ED A0 80 encodes a surrogate, E0 80 80 and F0 80 80 80 are overlong, F4 90 80 80 is above
    // U+10FFFF: each looks like lead + continuations but is not UTF-8 (Unicode Table 3-7).
    const bad = [
      [0xed, 0xa0, 0x80],
      [0xe0, 0x80, 0x80],
      [0xf0, 0x80, 0x80, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ];
    for (const seq of bad) {
      // Valid 3- and 4-byte sequences first (€, 😀), so only the bad one can be reported.
      const bytes = new Uint8Array([...utf8('ok €😀\nline '), ...seq, ...utf8(' x\n')]);
      const r = decodeTranscriptBytes(bytes);
      expect(r, seq.join(',')).toMatchObject({ error: { code: 'invalid_utf8', line: 2 } });
      if ('error' in r) expect(r.error.message, seq.join(',')).toMatch(/offset 16, line 2/);
    }
  });

  it('rejects binary data and UTF-32 clearly', () => {
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0,
      1, 0,
    ]);
    expect(decodeTranscriptBytes(png)).toMatchObject({ error: { code: 'binary_content' } });
    expect(decodeTranscriptBytes(new Uint8Array([0xff, 0xfe, 0, 0, 0x31, 0, 0, 0]))).toMatchObject({
      error: { code: 'unsupported_encoding' },
    });
  });

  it('rejects UTF-16 with a BOM but an odd number of bytes', () => {
    const bytes = new Uint8Array([0xff, 0xfe, 0x31, 0x00, 0x32]);
    expect(decodeTranscriptBytes(bytes)).toMatchObject({ error: { code: 'invalid_utf16' } });
  });

  it('decodes empty input to empty text', () => {
    expect(decodeTranscriptBytes(new Uint8Array())).toMatchObject({ text: '' });
  });
});
