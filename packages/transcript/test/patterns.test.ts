import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  codePointLength,
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
    expect(description).toContain(`pattern \`${UUID_PATTERN.source}\``);
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
    ]) {
      expect(isValidEmail(bad), String(bad)).toBe(false);
    }
  });

  it('UUID pattern takes versions 1–8 and the nil/max UUIDs', () => {
    expect(UUID_PATTERN.test('4f1c2a9e-0d3b-4c55-9a8e-2b7d6e1f0a11')).toBe(true);
    expect(UUID_PATTERN.test('00000000-0000-0000-0000-000000000000')).toBe(true);
    expect(UUID_PATTERN.test('4f1c2a9e-0d3b-9c55-9a8e-2b7d6e1f0a11')).toBe(false);
    expect(UUID_PATTERN.test('4f1c2a9e-0d3b-4c55-7a8e-2b7d6e1f0a11')).toBe(false);
  });

  it('emailDomain and codePointLength', () => {
    expect(emailDomain(' Ana@Sub.Acme.COM ')).toBe('sub.acme.com');
    expect(emailDomain('nobody')).toBe('');
    expect(codePointLength('a😀é')).toBe(3);
    expect(codePointLength('\ud800x')).toBe(2); // a lone surrogate counts as one
  });
});
