/**
 * The first `code` in an error's cause chain that `wanted` accepts. fetch wraps the system error
 * (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, …) up to four levels deep: `TypeError('fetch failed')`
 * → undici's error → the socket's.
 */
export function causeCode(error: unknown, wanted: (code: string) => boolean): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && wanted(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
