import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeInvalidUtf8 } from '../src/utf8-escape.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const text = (chunks: Uint8Array[]) =>
  Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8');

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The escape as its definition says: each byte that starts no valid sequence becomes \\udcXX. */
function reference(input: number[]): string {
  let out = '';
  for (let i = 0; i < input.length; ) {
    const n = [1, 2, 3, 4].find((length) => {
      if (i + length > input.length) return false;
      try {
        return [...strict.decode(Uint8Array.from(input.slice(i, i + length)))].length === 1;
      } catch {
        return false;
      }
    });
    if (n === undefined) {
      out += `\\udc${input[i]!.toString(16)}`;
      i++;
    } else {
      out += Buffer.from(input.slice(i, i + n)).toString('utf8');
      i += n;
    }
  }
  return out;
}

describe('escapeInvalidUtf8 (D29: bytes that are not UTF-8 are not silently U+FFFD)', () => {
  it('returns valid UTF-8 as it is, even split across chunks (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat(), (s, cut) => {
        const all = Buffer.from(s, 'utf8');
        const at = all.length === 0 ? 0 : cut % all.length;
        const chunks = [all.subarray(0, at), all.subarray(at)];
        expect(escapeInvalidUtf8(chunks)).toBe(chunks);
      }),
    );
  });

  it('escapes each byte that is not part of a valid sequence as \\udcXX, keeping the valid ones', () => {
    const quote = 0x22;
    const cases: [Uint8Array, string][] = [
      [bytes(quote, 0x61, 0xff, 0x62, quote), '"a\\udcffb"'],
      // A lone continuation byte, a truncated sequence, an overlong form, an encoded surrogate.
      [bytes(0x80), '\\udc80'],
      [bytes(0xe2, 0x82), '\\udce2\\udc82'],
      [bytes(0xc0, 0xaf), '\\udcc0\\udcaf'],
      [bytes(0xed, 0xa0, 0x80), '\\udced\\udca0\\udc80'],
      [bytes(0xe2, 0x82, 0xac, 0xf4, 0x90, 0x80, 0x80), '€\\udcf4\\udc90\\udc80\\udc80'],
    ];
    for (const [input, expected] of cases) {
      expect(text(escapeInvalidUtf8([input]))).toBe(expected);
    }
  });

  it('chunks are joined in order before escaping', () => {
    expect(text(escapeInvalidUtf8([bytes(0x61), bytes(0xff, 0x62), bytes(0x63)]))).toBe(
      'a\\udcffbc',
    );
  });

  it('agrees with a strict UTF-8 decoder on every lead byte, at every boundary of the bytes after it, whole or cut short', () => {
    // Each case is a lead and up to three bytes after it, apart from the next case by a space
    // (which no sequence takes in). The bytes after it sit at the edges of RFC 3629's ranges.
    const seconds = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff];
    const cases: number[][] = [];
    for (let lead = 0; lead < 256; lead++) {
      for (const second of seconds) {
        const full = [lead, second, 0x80, 0xbf];
        for (let length = 1; length <= 4; length++) cases.push(full.slice(0, length));
        cases.push(
          [lead, second, 0x7f, 0x80],
          [lead, second, 0xc0, 0x80],
          [lead, second, 0x80, 0xc0],
        );
      }
    }
    const input = Uint8Array.from(cases.flatMap((c) => [...c, 0x20]));
    const expected = cases.map((c) => `${reference(c)} `).join('');
    expect(text(escapeInvalidUtf8([input]))).toBe(expected);
  });

  it('a sequence at the end of the answer: whole, kept; cut short, each of its bytes escaped, nothing read past the end', () => {
    const seconds = [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0];
    for (let lead = 0x80; lead < 256; lead++) {
      for (const second of seconds) {
        // After a byte that is never UTF-8, so that the answer is escaped whatever the end.
        for (const cut of [[lead], [lead, second], [lead, second, 0x80]]) {
          expect(text(escapeInvalidUtf8([Uint8Array.from([0xff, ...cut])]))).toBe(
            reference([0xff, ...cut]),
          );
        }
      }
    }
  });

  it('in a JSON string, an escaped byte parses as a lone surrogate, which is not well-formed text', () => {
    const parsed = JSON.parse(text(escapeInvalidUtf8([bytes(0x22, 0x61, 0xfe, 0x22)]))) as string;
    expect(parsed).toBe('a\udcfe');
    expect(/\p{Surrogate}/u.test(parsed)).toBe(true);
  });
});
