import { describe, expect, it } from 'vitest';
import { safeLine, safeText } from '../../../src/output/sanitize.js';

describe('control-character neutralisation', () => {
  it('makes ESC sequences, BEL, C1 and bidi overrides visible instead of active', () => {
    const evil = 'a\u001b[2Jb\u0007c\u009bd\u202ee\u0000f';
    expect(safeLine(evil)).toBe('a\\x1b[2Jb\\x07c\\x9bd\\u202ee\\x00f');
    expect(safeLine(evil)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it('safeLine keeps output on one line; safeText keeps newlines and tabs', () => {
    expect(safeLine('one\ntwo\tthree\r')).toBe('one\\ntwo\\tthree\\r');
    expect(safeText('one\ntwo\tthree\r')).toBe('one\ntwo\tthree\\r');
  });

  it('leaves ordinary text, including emoji and CJK, untouched', () => {
    const s = 'Grüße 你好 👋 rep@acme.com: 10:30 works';
    expect(safeLine(s)).toBe(s);
  });
});
