/**
 * Replaces every occurrence of a credential in `text`, and the credentials of any URL in it, by
 * `[REDACTED]`. Errors are built from the response only, never from request headers; this is the
 * second line of defence for a service or proxy that echoes the key or token back in its body.
 * The CLI uses this one redactor too, for its messages and its ledger.
 */
export type Redactor = (text: string) => string;

export function makeRedactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  // Very short strings would redact ordinary words; real keys and JWTs are long.
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  return (text) => {
    let out = text;
    for (const secret of list) out = out.split(secret).join('[REDACTED]');
    // And the `user:password@` of any URL (a proxy's, or a base URL typed with them, issue 11).
    return out.replace(USERINFO, '$1[REDACTED]@');
  };
}

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/** Deep-redacts a parsed JSON value (strings anywhere inside). */
export function redactValue(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, redact);
    return out;
  }
  return value;
}
