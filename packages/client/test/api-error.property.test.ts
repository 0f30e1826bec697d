import { ApiError, apiErrorFrom, parseRetryAfter } from '@rcs/client';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRedactor } from '../src/redact.js';

const SECRET = 'sk_live_9f8e7d6c5b4a';

describe('error bodies (properties)', () => {
  it('any body, any status: a typed error with a non-empty message and no credential', () => {
    const redact = makeRedactor([SECRET]);
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 599 }),
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.string().map((s) => `<html><title>${s}${SECRET}</title></html>`),
          fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}${SECRET}${b}`),
          fc
            .record({ code: fc.string(), detail: fc.string(), title: fc.string() })
            .map((o) => JSON.stringify({ ...o, detail: `${o.detail} ${SECRET}` })),
        ),
        (status, body) => {
          const error = apiErrorFrom({ status, statusText: '', headers: new Headers() }, body, {
            method: 'GET',
            url: 'https://rcs.test/x',
            redact,
          });
          expect(error).toBeInstanceOf(ApiError);
          expect(error.status).toBe(status);
          expect(error.message.length).toBeGreaterThan(0);
          expect(error.message).not.toContain(SECRET);
          expect(JSON.stringify(error)).not.toContain(SECRET);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('parseRetryAfter: seconds → ms, dates → ms from now, anything else → undefined', () => {
    const now = Date.parse('2026-03-01T10:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 86_400 }), (s) => {
        expect(parseRetryAfter(String(s), now)).toBe(s * 1000);
        expect(parseRetryAfter(new Date(now + s * 1000).toUTCString(), now)).toBe(s * 1000);
      }),
    );
    expect(parseRetryAfter(new Date(now - 5_000).toUTCString(), now)).toBe(0);
    for (const junk of ['', ' ', 'soon', '-5', 'NaN', null, undefined]) {
      expect(parseRetryAfter(junk, now)).toBeUndefined();
    }
  });
});
