/**
 * A date-time that exists (D29's check), for every package that reads one: the export engine
 * (values that cannot be true fail the run), the mock's fixture, and `rcs upload`'s lookup of
 * unknown outcomes (D28). `Date.parse` alone would roll 2026-02-30 over to 2026-03-02.
 */

/** RFC 3339 date-time (what `format: date-time` means), its fields captured. */
export const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Why `text` is not a date-time that exists, or undefined when it is one. */
export function dateTimeProblem(text: string): string | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return 'not an RFC 3339 date-time';
  // Every value of a timestamp column passes here (the CPU figure): no arrays per value.
  const month = Number(m[2]);
  const second = Number(m[6]);
  if (month < 1 || month > 12) return 'a date-time that does not exist (no such month)';
  const day = Number(m[3]);
  if (day < 1 || day > daysIn(Number(m[1]), month)) {
    return 'a date-time that does not exist (no such day in that month)';
  }
  if (Number(m[4]) > 23 || Number(m[5]) > 59) {
    return 'a date-time that does not exist (no such time of day)';
  }
  if (second === 60) return 'a leap second, which no export format can hold';
  if (second > 59) return 'a date-time that does not exist (no such second)';
  // (With Z there is no offset: Number(undefined) is NaN, which passes both.)
  if (Number(m[7]) > 23 || Number(m[8]) > 59) {
    return 'a date-time that does not exist (no such UTC offset)';
  }
  return undefined;
}

/** The instant `text` names in ms since the epoch, or undefined when it is not a date-time that exists. */
export function instantOf(text: unknown): number | undefined {
  return typeof text === 'string' && dateTimeProblem(text) === undefined
    ? Date.parse(text)
    : undefined;
}
