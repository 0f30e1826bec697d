// The description's patterns, verbatim (they are the wire contract). EMAIL_PATTERN has no nested
// quantifier over overlapping sets: the local part cannot contain '@' and every domain group ends
// at a '.', so a failing match backtracks at most linearly.

/**
 * The description's e-mail pattern as text, character for character (escapes included), so
 * it can be compared with openapi.yaml. Kept in a variable: a formatter would rewrite a literal.
 */
export const EMAIL_PATTERN_SOURCE = String.raw`^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$`;

/**
 * The session id pattern of the description as text, verbatim: versions 1–8, variant 8–b, nil
 * and max. D25 superseded it (see UUID_PATTERN); kept to show that D25 only widens it.
 */
export const DESCRIPTION_UUID_PATTERN_SOURCE =
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$';

/**
 * D25: a UUID is the RFC 9562 text form, 36 characters, hex digits in groups 8-4-4-4-12, any
 * version and variant, upper or lower case (JSON Schema `format: uuid`). The one definition: the
 * spec (openapi.yaml), pre-validation, the CLI's flags and the mock all use it, so pre-validation
 * never rejects a UUID the mock accepts.
 */
export const UUID_PATTERN_SOURCE =
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** E-mail pattern of the description (request `email`, R4 labels, D13). */
export const EMAIL_PATTERN = new RegExp(EMAIL_PATTERN_SOURCE);

/** A UUID (D25): request `userId`, path `sessionId`, export ids. */
export const UUID_PATTERN = new RegExp(UUID_PATTERN_SOURCE);

/** Mission, track and scorecard ids: 24 lowercase hexadecimal characters. */
export const HEX24_PATTERN = /^[0-9a-f]{24}$/;

/** True when `s` matches the description's e-mail pattern exactly (no trimming: the schema doesn't). */
export function isValidEmail(s: unknown): s is string {
  return typeof s === 'string' && EMAIL_PATTERN.test(s);
}

/** The domain of an e-mail, trimmed and lowercased (D6); '' when there is no '@'. */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : normalizeEmail(email.slice(at + 1));
}

/** Normalised form used for every e-mail comparison: trimmed, lowercased (D6). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Number of Unicode code points (what JSON Schema's minLength/maxLength count, D17). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point (past the end, charCodeAt
    // gives NaN, which is no low surrogate). A hand loop: iterating the string is 3x slower.
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
