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
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
