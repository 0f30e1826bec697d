/**
 * Replaces every occurrence of a credential in `text`, and the credentials of any URL in it, by
 * `[REDACTED]`. Errors are built from the response only, never from request headers; this is the
 * second line of defence for a service or proxy that echoes the key or token back in its body.
 * The CLI uses this one redactor too, for its messages and its ledger. @internal
 */
export type Redactor = (text: string) => string;

/** @internal */
export function makeRedactor(secrets: ReadonlyArray<string | undefined>): Redactor {
  // Very short strings would redact ordinary words; real keys and JWTs are long. Each secret is
  // matched in every form a message can carry it in (see `forms`), longest first, so that a
  // shorter form never leaves part of a longer one behind.
  const list = [
    ...new Set(
      secrets
        .filter((s): s is string => typeof s === 'string' && s.length >= 4)
        .flatMap(forms)
        .filter((s) => s.length >= 4),
    ),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of list) out = out.split(secret).join('[REDACTED]');
    // And the `user:password@` of any URL (a proxy's, or a base URL typed with them).
    return out.replace(USERINFO, '$1[REDACTED]@');
  };
}

/**
 * The forms a secret takes in text: as is; JSON-escaped (a body or a ledger line quotes it: `\n`,
 * `\"`, `\u001b`; and with all but ASCII as `\u` escapes), and that escaped again (JSON inside JSON); with control characters shown as
 * visible escapes (`\x1b`, the terminal-safe form of output/sanitize.ts in the CLI); and
 * URL-encoded (a query string or a redirect echoes it: `%0A`, lower-case hex too, and `+` for a
 * space as forms encode it).
 */
function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const uri = encodeURIComponent(secret);
  return [
    secret,
    json,
    JSON.stringify(json).slice(1, -1),
    // As serializers that keep to ASCII write it (`\u00e9`, `\u001b`).
    json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    secret.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
      const code = c.charCodeAt(0);
      if (c === '\n') return '\\n';
      if (c === '\t') return '\\t';
      if (c === '\r') return '\\r';
      return `\\x${code.toString(16).padStart(2, '0')}`;
    }),
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    new URLSearchParams({ k: secret }).toString().slice(2),
  ];
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
