import { describe, expect, it } from 'vitest';
import { apiErrorFrom, ERROR_BODY_SCAN, parseErrorBody } from '../src/api-error.js';
import { makeRedactor, type Redactor } from '../src/redact.js';

// An error body is the peer's to choose: whatever it holds, reading it costs time in proportion
// to what is read, and no more than ERROR_BODY_SCAN of it is read at all. No timings: the
// quadratic patterns these replace take minutes on these inputs, far past the test's timeout.
describe('hostile error bodies', () => {
  const redact = makeRedactor(['sk_live_0123456789']);

  it('the redactor reads `a-a-…` once, and still redacts the userinfo of a URL after it', () => {
    const text = `${'a-'.repeat(100_000)} https://user:pw@proxy.example/ x://a:b@c`;
    const out = redact(text);
    expect(out).not.toContain('pw@');
    expect(out.endsWith(' https://[REDACTED]@proxy.example/ x://[REDACTED]@c')).toBe(true);
  }, 20_000);

  it('reads at most the first ERROR_BODY_SCAN characters of a body, whatever follows', () => {
    const parsed = parseErrorBody(
      `${'a-'.repeat(10_000)} https://user:sk_live_0123456789@host/`,
      redact,
    );
    expect(parsed.body).toBe('a-'.repeat(ERROR_BODY_SCAN / 2));
    expect(parsed.summary).toBe(`${'a-'.repeat(100)}…`);
  }, 20_000);

  it('parses a problem+json body whole, however long: its code and issues are kept', () => {
    const errors = Array.from({ length: 500 }, (_, i) => ({
      path: `/items/${i}`,
      message: `item ${i} is not valid: https://user:sk_live_0123456789@host/`,
    }));
    const text = JSON.stringify({ status: 400, code: 'validation_failed', errors });
    expect(text.length).toBeGreaterThan(ERROR_BODY_SCAN * 4);
    const parsed = parseErrorBody(text, redact);
    expect(parsed.code).toBe('validation_failed');
    expect(parsed.errors).toHaveLength(500);
    expect(JSON.stringify(parsed.body)).not.toContain('sk_live_0123456789');
  }, 20_000);

  it('finds the <title> of a page full of `<title` in the part it reads', () => {
    const page = `<html>${'<title'.repeat(200_000)}`;
    expect(parseErrorBody(page).summary).toBe(
      'an HTML page (a proxy or gateway answered, not the API)',
    );
    expect(parseErrorBody('<html><title lang="en">Bad Gateway</title>').summary).toBe(
      'an HTML page "Bad Gateway" (a proxy or gateway answered, not the API)',
    );
    expect(parseErrorBody('<html><TITLE>502</TITLE>').summary).toContain('"502"');
  }, 20_000);

  it('scans each part of a JSON error body once, through the redactor', () => {
    let scanned = 0;
    const counting: Redactor = (text) => {
      scanned += text.length;
      return redact(text);
    };
    const body = JSON.stringify({ errors: ['a-'.repeat(2000)], detail: 'no' });
    const error = apiErrorFrom({ status: 400, statusText: '', headers: new Headers() }, body, {
      method: 'GET',
      url: 'https://api.example/api/v1/x',
      redact: counting,
    });
    expect(error.message).toContain('a-a-a-');
    // The body's text once, and the few characters of the status line and URL.
    expect(scanned).toBeLessThan(body.length + 100);
  });

  it('redacts a credential in a JSON body however it is escaped, names included', () => {
    const parsed = parseErrorBody(
      '{"detail":"see https:\\/\\/u:pw\\u0040host/","sk_live_0123456789":1}',
      redact,
    );
    expect(JSON.stringify(parsed.body)).toBe(
      '{"detail":"see https://[REDACTED]@host/","[REDACTED]":1}',
    );
  });
});
