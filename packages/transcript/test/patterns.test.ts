import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  codePointLength,
  DESCRIPTION_UUID_PATTERN_SOURCE,
  EMAIL_PATTERN,
  EMAIL_PATTERN_SOURCE,
  emailDomain,
  HEX24_PATTERN,
  isValidEmail,
  UUID_PATTERN,
} from '@rcs/transcript';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './fixtures.js';

const description = readFileSync(
  join(FIXTURES, '..', '..', '..', '..', 'docs', 'api-description.md'),
  'utf8',
);

describe('patterns', () => {
  it('are the description text verbatim', () => {
    expect(EMAIL_PATTERN.source).toBe(EMAIL_PATTERN_SOURCE);
    expect(description).toContain(`pattern \`${EMAIL_PATTERN_SOURCE}\``);
    expect(description).toContain(`pattern \`${DESCRIPTION_UUID_PATTERN_SOURCE}\``);
    expect(description).toContain(`(\`${HEX24_PATTERN.source}\`)`);
  });

  it('accept and reject e-mails as the description does', () => {
    for (const ok of [
      'a@b.co',
      "o'brien@sub.example.org",
      'bob+sales@example.co.uk',
      'A_B-c@X-y.COM',
    ]) {
      expect(isValidEmail(ok), ok).toBe(true);
    }
    for (const bad of [
      '.a@b.co',
      'a..b@b.co',
      "a'@b.co",
      'a.@b.co',
      'a@b',
      'a@-b.co',
      'a@b.c',
      ' a@b.co',
      'a@b.co ',
      '',
      42,
      ['ana@acme.com'], // not a string, though it would print as one
      { toString: () => 'ana@acme.com' },
    ]) {
      expect(isValidEmail(bad), String(bad)).toBe(false);
    }
  });

  it('D25: a UUID is 8-4-4-4-12 hex digits, any version and variant, either case', () => {
    for (const ok of [
      '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '3f2a9c1e-5b7d-0e8f-8a1b-0c2d3e4f5a6b', // version digit 0 (the example)
      '4f1c2a9e-0d3b-9c55-9a8e-2b7d6e1f0a11', // version 9
      '4f1c2a9e-0d3b-4c55-7a8e-2b7d6e1f0a11', // variant nibble 7
      '4F1C2A9E-0D3B-4C55-CA8E-2B7D6E1F0A11', // upper case, variant c
    ]) {
      expect(UUID_PATTERN.test(ok), ok).toBe(true);
    }
    for (const bad of [
      '4f1c2a9e0d3b4c559a8e2b7d6e1f0a11', // no dashes
      '{4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11}',
      'urn:uuid:4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11',
      '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a1',
      '4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11 ',
      'gf1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11',
      '4f1c2a9e-0d3b4-c55-9a8e-2b7d6e1f0a11',
    ]) {
      expect(UUID_PATTERN.test(bad), bad).toBe(false);
    }
  });

  it('D25 only widens the description: every id its pattern takes, ours takes', () => {
    const old = new RegExp(DESCRIPTION_UUID_PATTERN_SOURCE);
    const hex = '0123456789abcdefABCDEF';
    for (let i = 0; i < 2000; i++) {
      const id = [8, 4, 4, 4, 12]
        .map((n) =>
          Array.from(
            { length: n },
            () => hex[(i * 7 + n * 13 + Math.floor(Math.random() * 22)) % 22],
          ).join(''),
        )
        .join('-');
      if (old.test(id)) expect(UUID_PATTERN.test(id), id).toBe(true);
    }
  });

  it('emailDomain and codePointLength', () => {
    expect(emailDomain(' Ana@Sub.Acme.COM ')).toBe('sub.acme.com');
    expect(emailDomain('nobody')).toBe('');
    expect(emailDomain('@Acme.com')).toBe('acme.com'); // an '@' at the start still has a domain
    expect(codePointLength('a😀é')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2); // a lone surrogate counts as one
    // The edges of the surrogate ranges: a pair is one code point, anything else counts per unit.
    for (const [s, n] of [
      ['\ud800\udc00', 1], // U+10000
      ['\udbff\udfff', 1], // U+10FFFF
      ['\ud7ff\udc00', 2], // no high surrogate first
      ['\ue000\udc00', 2],
      ['\ud800\udbff', 2], // a high surrogate after a high one
      ['\ud800\ue000', 2],
      ['\udc00\ud800', 2], // low then high: two lone surrogates
      ['x\ud800', 2], // a lone high surrogate at the end
      ['', 0],
    ] as const) {
      expect(codePointLength(s), JSON.stringify(s)).toBe(n);
    }
  });
});
