/**
 * `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). D2: the mock sends
 * seconds; a real service or proxy may send a date. Returns milliseconds to wait, or undefined
 * when the header is absent or unreadable (then normal backoff applies).
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Every HTTP-date form starts with a day name ("Sun, 06 Nov 1994 08:49:37 GMT"); without this
  // check Date.parse would read "-5" as the year −5.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
