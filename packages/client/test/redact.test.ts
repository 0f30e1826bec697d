import { describe, expect, it } from 'vitest';
import { makeRedactor } from '../src/redact.js';

// A credential is never printed in any form a message can carry it in: as is, quoted in JSON
// (once or twice), with control characters shown as visible escapes, or URL-encoded.
describe('makeRedactor', () => {
  const key = 'sk_live_a/b+c="d\\e\u001b\u00e9 f\n# rotated';
  const redact = makeRedactor([key]);
  const json = JSON.stringify(key).slice(1, -1);
  const forms: [string, string][] = [
    ['as is', key],
    ['JSON-escaped', json],
    ['JSON-escaped twice', JSON.stringify(json).slice(1, -1)],
    ['JSON-escaped, ASCII only', json.replace('\u00e9', '\\u00e9')],
    ['with visible escapes', key.replace('\u001b', '\\x1b').replace('\n', '\\n')],
    ['URL-encoded', encodeURIComponent(key)],
    [
      'URL-encoded, lower-case hex',
      encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    ],
    ['form-encoded', new URLSearchParams({ k: key }).toString().slice(2)],
  ];
  it.each(forms)('%s', (_name, form) => {
    expect(form).not.toBe('');
    const out = redact(`before ${form} after`);
    expect(out).toBe('before [REDACTED] after');
  });

  it('leaves text without the secret alone, and ignores secrets too short to be one', () => {
    expect(redact('nothing to see %2F \\n')).toBe('nothing to see %2F \\n');
    expect(makeRedactor(['abc', undefined])('abc abc')).toBe('abc abc');
  });

  it('a longer form is redacted whole, not left in part by a shorter one', () => {
    const r = makeRedactor(['ab"cd']);
    expect(r('x ab\\\\\\"cd y ab\\"cd z ab"cd')).toBe('x [REDACTED] y [REDACTED] z [REDACTED]');
  });
});
