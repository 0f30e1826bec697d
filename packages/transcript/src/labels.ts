import { isWhitespace } from './lines.js';
import { codePointLength, emailDomain, isValidEmail } from './patterns.js';
import type { Speaker } from './types.js';

/** Longest label (code points, after trimming) that D12 recognises. */
export const MAX_LABEL_LENGTH = 64;

export interface LabelMatch {
  /** Trimmed, lowercased (R4, D12). */
  label: string;
  /** Characters of the line taken out with the label: label, colon and following whitespace. */
  cut: number;
}

/**
 * D12 / R6: the label is the text before the first ':' of the line, only when that colon is
 * followed by whitespace or ends the line, and the text before it is 1–64 characters after
 * trimming. "10:30 works", "see https://x.io", "Re:Budget" have no label.
 */
export function extractLabel(line: string): LabelMatch | null {
  const colon = line.indexOf(':');
  if (colon < 1) return null; // no colon, or nothing before it
  const after = colon + 1;
  if (after < line.length && !isWhitespace(line.charCodeAt(after))) return null;
  const raw = line.slice(0, colon).trim();
  if (raw.length === 0) return null;
  if (codePointLength(raw) > MAX_LABEL_LENGTH) return null;
  let cut = after;
  // Past the end charCodeAt gives NaN, which is no whitespace: the loop stops there.
  while (isWhitespace(line.charCodeAt(cut))) cut++;
  return { label: raw.toLowerCase(), cut };
}

/** Normalised domain list: trimmed, lowercased, empty entries dropped (D6). */
export function normalizeDomains(domains: readonly string[] | undefined): string[] {
  if (!Array.isArray(domains)) return [];
  return domains
    .filter((d) => typeof d === 'string')
    .map((d) => d.trim().toLowerCase().replace(/^@/, ''))
    .filter((d) => d.length > 0);
}

/**
 * D13: an e-mail label is internal when its domain is one of the organization's domains (exact
 * match, case-insensitive, D6) or when none are configured; otherwise external (R4). Any other
 * label is removed (R6). No label: none.
 */
export function classifyLabel(label: string | null, domains: readonly string[]): Speaker {
  if (label === null) return { kind: 'none' };
  if (!isValidEmail(label)) return { kind: 'removed' };
  const internal = domains.length === 0 || domains.includes(emailDomain(label));
  return { kind: internal ? 'internal' : 'external', email: label };
}
