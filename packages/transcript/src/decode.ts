import type { Diagnostic } from './types.js';

export type DecodeResult =
  | {
      text: string;
      encoding: 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be';
      diagnostics: Diagnostic[];
    }
  | { error: Diagnostic };

/** How decodeTranscriptBytes treats control bytes. */
export interface DecodeOptions {
  /**
   * Keep NUL and other control bytes as characters instead of refusing the file as binary
   * (valid UTF-8 is still required): for a caller that leaves the judgement to the service.
   */
  allowControlBytes?: boolean;
}

/**
 * Bytes of a transcript file to text. UTF-8 (a BOM is dropped), UTF-16 LE/BE with a BOM, and
 * UTF-16 LE/BE without a BOM when the NUL pattern makes it unambiguous (warning). Invalid UTF-8
 * and binary data are rejected with a diagnostic instead of being read as garbage cues: a guessed
 * 8-bit code page would silently change names and e-mail labels (R4).
 */
export function decodeTranscriptBytes(
  bytes: Uint8Array,
  options: DecodeOptions = {},
): DecodeResult {
  // Reading past the end gives undefined, which equals no byte value: no length checks needed.
  const [b0, b1, b2, b3] = bytes;
  if (
    (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0) ||
    (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff)
  ) {
    return fail(
      'unsupported_encoding',
      'The file is UTF-32, which is not supported: re-save it as UTF-8.',
    );
  }
  if (b0 === 0xff && b1 === 0xfe) return utf16(bytes.subarray(2), 'utf-16le', []);
  if (b0 === 0xfe && b1 === 0xff) return utf16(bytes.subarray(2), 'utf-16be', []);
  const bom = b0 === 0xef && b1 === 0xbb && b2 === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;

  const sniffed = sniffUtf16(body);
  if (sniffed !== null) {
    return utf16(body, sniffed, [
      {
        code: 'utf16_without_bom',
        severity: 'warning',
        line: 0,
        message: `The file has no byte-order mark but its NUL bytes show ${sniffed.toUpperCase()}; it was decoded as such.`,
      },
    ]);
  }
  if (!options.allowControlBytes && looksBinary(body)) {
    return fail(
      'binary_content',
      'The file is not text (it contains NUL or other control bytes): upload a transcript (.srt, .vtt, .txt).',
    );
  }
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    return { text, encoding: bom ? 'utf-8-bom' : 'utf-8', diagnostics: [] };
  } catch {
    const at = firstInvalidUtf8(body);
    return fail(
      'invalid_utf8',
      `The file is not valid UTF-8 (first bad byte at offset ${at.offset}, line ${at.line}); it is probably in a legacy encoding such as Windows-1252 or GB2312. Re-save it as UTF-8.`,
      at.line,
    );
  }
}

function utf16(
  body: Uint8Array,
  enc: 'utf-16le' | 'utf-16be',
  diagnostics: Diagnostic[],
): DecodeResult {
  try {
    const text = new TextDecoder(enc, { fatal: true, ignoreBOM: true }).decode(body);
    return { text, encoding: enc, diagnostics };
  } catch {
    return fail(
      'invalid_utf16',
      `The file starts like ${enc.toUpperCase()} but is not valid ${enc.toUpperCase()} (odd length or broken surrogate pairs).`,
    );
  }
}

function fail(code: string, message: string, line = 0): DecodeResult {
  return { error: { code, message, line, severity: 'error' } };
}

/** UTF-16 without a BOM: in the first 4 KiB, NULs sit (almost) only at odd or only at even offsets. */
function sniffUtf16(b: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(b.length, 4096) & ~1;
  if (n < 4) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i++) {
    if (b[i] === 0) {
      if (i & 1) odd++;
      else even++;
    }
  }
  const pairs = n / 2;
  if (odd >= pairs * 0.3 && even <= pairs * 0.02) return 'utf-16le';
  if (even >= pairs * 0.3 && odd <= pairs * 0.02) return 'utf-16be';
  return null;
}

/** The C0 control bytes that text may hold: tab, LF, VT, FF, CR, ESC. */
const TEXT_CONTROLS = [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b];

/** NUL or C0 control bytes other than tab, LF, VT, FF, CR, ESC in the first 8 KiB. */
function looksBinary(b: Uint8Array): boolean {
  const n = Math.min(b.length, 8192);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c === 0) return true;
    if (c < 0x20 && !TEXT_CONTROLS.includes(c)) controls++;
  }
  return controls * 50 > n;
}

/**
 * The offset (of the lead byte) and line of the first ill-formed sequence, per the Unicode
 * Standard's table of well-formed UTF-8 byte sequences (Table 3-7): the second byte's range is
 * narrower after E0 (A0–BF, no overlong), ED (80–9F, no surrogates), F0 (90–BF, no overlong) and
 * F4 (80–8F, nothing above U+10FFFF); every other continuation byte is 80–BF.
 */
function firstInvalidUtf8(b: Uint8Array): { offset: number; line: number } {
  let line = 1;
  let i = 0;
  // Ends at the first ill-formed sequence, which exists: this runs only after TextDecoder refused
  // the bytes. (Past the end reads as 0xFF, which is never a UTF-8 byte: the loop ends there too.)
  for (;;) {
    const c = b[i] ?? 0xff;
    if (c < 0x80) {
      if (c === 0x0a) line++;
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return { offset: i, line };
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined || d < lo || d > hi) return { offset: i, line };
      lo = 0x80;
      hi = 0xbf;
    }
    i += need + 1;
  }
}
