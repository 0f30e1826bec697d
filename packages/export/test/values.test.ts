import { dateTimeProblem } from '@rcs/client/internal';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRecordValues, ImpossibleValueError } from '../src/values.js';

const session = (extra: Record<string, unknown>) => ({
  id: 's-1',
  createdAt: '2026-02-28T10:00:00Z',
  ...extra,
});

describe('D29: values that cannot be true', () => {
  it('a date-time that exists passes, in any RFC 3339 spelling', () => {
    for (const ok of [
      '2026-02-28T23:59:59Z',
      '2024-02-29T00:00:00.123Z',
      '2000-02-29t12:00:00+02:00',
      '2026-12-31 23:59:59.5-23:59',
    ]) {
      expect(dateTimeProblem(ok), ok).toBeUndefined();
    }
  });

  it('a date-time that does not exist, a leap second or no date-time at all is named', () => {
    expect(dateTimeProblem('2026-02-30T00:00:00Z')).toMatch(/no such day/);
    expect(dateTimeProblem('1900-02-29T00:00:00Z')).toMatch(/no such day/);
    expect(dateTimeProblem('2026-13-01T00:00:00Z')).toMatch(/no such month/);
    expect(dateTimeProblem('2026-01-01T24:00:00Z')).toMatch(/no such time/);
    expect(dateTimeProblem('2016-12-31T23:59:60Z')).toMatch(/leap second/);
    expect(dateTimeProblem('2026-01-01T00:00:00+24:00')).toMatch(/no such UTC offset/);
    expect(dateTimeProblem('yesterday')).toMatch(/not an RFC 3339 date-time/);
  });

  it('names each field out of its range, at both ends', () => {
    const cases: [string, RegExp][] = [
      ['2026-00-10T00:00:00Z', /no such month/],
      ['2026-01-00T00:00:00Z', /no such day/],
      ['2026-01-01T00:60:00Z', /no such time of day/],
      ['2026-01-01T00:00:61Z', /no such second/],
      ['2026-01-01T00:00:00+00:60', /no such UTC offset/],
      ['2026-01-01T00:00:00-23:59', /^$/],
      ['2026-12-31T23:59:59+23:59', /^$/],
    ];
    for (const [text, why] of cases) expect(dateTimeProblem(text) ?? '', text).toMatch(why);
  });

  it('knows the length of every month, in leap years, common years and centuries', () => {
    for (const year of [2024, 2026, 1900, 2000]) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 28; day <= 31; day++) {
          const text = `${year}-${String(month).padStart(2, '0')}-${day}T00:00:00Z`;
          const rolledOver =
            new Date(text.replace(/-\d+T/, '-01T')).getUTCMonth() !==
            new Date(Date.UTC(year, month - 1, day)).getUTCMonth();
          expect(dateTimeProblem(text) !== undefined, text).toBe(rolledOver);
        }
      }
    }
  });

  it('agrees with Date for every real day (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(0), max: new Date('2200-01-01'), noInvalidDate: true }),
        (d) => {
          expect(dateTimeProblem(d.toISOString())).toBeUndefined();
        },
      ),
    );
  });

  it('names a day past the end of its month exactly when Date would roll it over (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const pad = (n: number, w = 2) => String(n).padStart(w, '0');
          const text = `${pad(year, 4)}-${pad(month)}-${pad(day)}T00:00:00Z`;
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          const rolledOver = date.getUTCDate() !== day;
          expect(dateTimeProblem(text) !== undefined, text).toBe(rolledOver);
        },
      ),
    );
  });

  it('fails the page naming the export, the record id, the field and the value', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { createdAt: '2026-02-30T00:00:00Z' },
        /record "s-1": createdAt is "2026-02-30T00:00:00Z", a date-time that does not exist/,
      ],
      [
        { analysis: { score: Number.POSITIVE_INFINITY } },
        /record "s-1": analysis\.score is Infinity, a number that is not finite/,
      ],
      [
        { transcript: 'a\ud800b' },
        /record "s-1": transcript is "a\\ud800b", text that is not valid Unicode/,
      ],
      [
        { analysis: { items: [{ name: 'ok' }, { name: '\udc00' }] } },
        /analysis\.items\[1\]\.name is/,
      ],
    ];
    for (const [extra, message] of cases) {
      const error = (() => {
        try {
          checkRecordValues('real-call-sessions', [session({}), session(extra)]);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ImpossibleValueError);
      expect((error as Error).message).toMatch(/^real-call-sessions: /);
      expect((error as Error).message).toMatch(message);
      // The line itself is valid text.
      expect((error as Error).message).not.toMatch(/\p{Surrogate}/u);
    }
  });

  it('says which kind of invalid text: bytes that were not UTF-8 (escaped by the client) or a lone surrogate', () => {
    const why = (text: string) => {
      try {
        checkRecordValues('real-call-sessions', [session({ transcript: text })]);
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(why('a\udcffb')).toMatch(/bytes that are not UTF-8 on the wire, shown as \\udcXX/);
    expect(why('a\ud800b')).toMatch(/text that is not valid Unicode \(a lone surrogate\)$/);
  });

  it('the error is an ImpossibleValueError by name too (the CLI tells errors apart by name)', () => {
    const error = (() => {
      try {
        checkRecordValues('real-call-sessions', [session({ createdAt: 'soon' })]);
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).name).toBe('ImpossibleValueError');
  });

  it('a long value is shown cut at 80 characters; one of exactly 80 whole', () => {
    const message = (createdAt: string) => {
      try {
        checkRecordValues('real-call-sessions', [session({ createdAt })]);
      } catch (e) {
        return (e as Error).message;
      }
    };
    const long = `2026-${'9'.repeat(100)}`;
    expect(message(long)).toContain(`createdAt is ${JSON.stringify(long).slice(0, 77)}..., not`);
    const eighty = 'x'.repeat(78); // 80 with its quotes
    expect(message(eighty)).toContain(`createdAt is "${eighty}", not`);
  });

  it('a value nested 1000 levels deep passes; one level more is refused, naming the field cut at 80 characters', () => {
    const lists = (levels: number): unknown => (levels === 0 ? 1 : [lists(levels - 1)]);
    const objects = (levels: number): unknown => (levels === 0 ? 1 : { a: objects(levels - 1) });
    // The record is level 0, so its field `deep` starts at level 1.
    for (const nest of [lists, objects]) {
      expect(() =>
        checkRecordValues('real-call-sessions', [session({ deep: nest(999) })]),
      ).not.toThrow();
    }
    const refusal = (deep: unknown) => {
      try {
        checkRecordValues('real-call-sessions', [session({ deep })]);
      } catch (e) {
        expect(e).toBeInstanceOf(ImpossibleValueError);
        return (e as Error).message;
      }
    };
    const why = 'a value nested deeper than 1000 levels, which no export format is made to hold';
    expect(refusal(lists(1000))).toBe(
      `real-call-sessions: record "s-1": ${`deep${'[0]'.repeat(999)}`.slice(0, 77)}... is […], ${why}`,
    );
    expect(refusal(objects(1000))).toBe(
      `real-call-sessions: record "s-1": ${`deep${'.a'.repeat(999)}`.slice(0, 77)}... is {…}, ${why}`,
    );
  });

  it('a field path of 80 characters is shown whole; a longer one is cut to 77 and ...', () => {
    const path = (key: string) => {
      try {
        checkRecordValues('real-call-sessions', [session({ [key]: Number.NaN })]);
      } catch (e) {
        return (e as Error).message.split(': ')[2]?.split(' is ')[0];
      }
    };
    expect(path('k'.repeat(80))).toBe('k'.repeat(80));
    expect(path('k'.repeat(81))).toBe(`${'k'.repeat(77)}...`);
  });

  it('a property name that is not valid Unicode is named as such', () => {
    let message = '';
    try {
      checkRecordValues('real-call-sessions', [session({ analysis: { 'k\ud800': 1 } })]);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(
      'real-call-sessions: record "s-1": analysis."k\\ud800" is "k\\ud800", a property name that is not valid Unicode',
    );
  });

  it('fields the record shapes do not know are checked too, however deep, and pass when valid', () => {
    const extra = { note: 'fine', nested: { deeper: ['a', 1, { x: 'y' }] } };
    expect(() => checkRecordValues('real-call-sessions', [session(extra)])).not.toThrow();
    expect(() =>
      checkRecordValues('real-call-sessions', [
        session({ nested: { deeper: [{ x: Number.POSITIVE_INFINITY }] } }),
      ]),
    ).toThrow(/nested\.deeper\[0\]\.x is Infinity, a number that is not finite/);
  });

  it('a surrogate pair is valid text; a string that only looks like a date outside a date-time field passes', () => {
    expect(() =>
      checkRecordValues('real-call-sessions', [session({ transcript: '😀 2026-02-30T00:00:00Z' })]),
    ).not.toThrow();
  });
});
