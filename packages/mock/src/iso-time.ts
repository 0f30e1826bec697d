/**
 * `new Date(ms).toISOString()`, faster for the mock's hot paths (issue 11: building the
 * timestamps of export records was 14 % of the mock's CPU in `bench/export/latency.mjs`, and the
 * mock shares the machine with the exporter it serves). The date part of a day is formatted
 * once and kept; the time of day is digits. Same text as `toISOString` for every integer time
 * value of years 1970–9999 (property-tested); any other value goes to `Date` itself (including
 * its RangeError for an invalid time).
 */
const DAY_MS = 86_400_000;
/** Years 1970–9999: `toISOString` writes four digits and no sign. */
const MAX_MS = Date.UTC(10_000, 0, 1);
const DAYS_KEPT = 4096;
const dayPrefixes = new Map<number, string>();

function dayPrefix(day: number): string {
  let prefix = dayPrefixes.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    // Bounded: a long-running mock with times spread over decades does not keep every day.
    if (dayPrefixes.size >= DAYS_KEPT) dayPrefixes.clear();
    dayPrefixes.set(day, prefix);
  }
  return prefix;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= MAX_MS) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  let rest = ms - day * DAY_MS;
  const millis = rest % 1000;
  rest = (rest - millis) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  return `${dayPrefix(day)}${two(hours)}:${two(minutes)}:${two(seconds)}.${three(millis)}Z`;
}
