import { HEX24_PATTERN, isValidEmail, UUID_PATTERN } from '@rcs/transcript';
import { usageError } from '../errors.js';

/** Flag checks shared by commands; each failure is a usage error (exit 2) naming the flag. */

/** `--timeout` of `upload --wait` and `sessions wait`, in seconds. */
export const DEFAULT_WAIT_SECONDS = 600;

export function parsePositiveInt(
  flag: string,
  raw: string | undefined,
  max: number,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw).trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw usageError(`${flag} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return n;
}

export function parseNonNegativeNumber(
  flag: string,
  raw: string | undefined,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(n) || n < 0 || n > max) {
    throw usageError(`${flag} must be a number from 0 to ${max}, got "${raw}"`);
  }
  return n;
}

/** R1, D5: exactly one of --email / --user-id designates the rep. */
export function repDesignator(
  opts: { email?: string | undefined; userId?: string | undefined },
  required: boolean,
) {
  if (opts.email !== undefined && opts.userId !== undefined) {
    throw usageError('pass either --email or --user-id to name the rep, not both');
  }
  if (required && opts.email === undefined && opts.userId === undefined) {
    throw usageError(
      'name the rep with --email EMAIL or --user-id UUID: every upload names its rep',
    );
  }
  if (opts.email !== undefined && !isValidEmail(opts.email.trim())) {
    throw usageError(`--email "${opts.email}" is not a valid e-mail address`);
  }
  if (opts.userId !== undefined && !UUID_PATTERN.test(opts.userId)) {
    throw usageError(`--user-id "${opts.userId}" is not a UUID`);
  }
  return {
    email: opts.email?.trim(),
    userId: opts.userId,
  };
}

export function hex24(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!HEX24_PATTERN.test(raw)) {
    throw usageError(`${flag} must be 24 lowercase hexadecimal characters, got "${raw}"`);
  }
  return raw;
}

export function sessionIdArg(raw: string): string {
  if (!UUID_PATTERN.test(raw)) {
    throw usageError(
      `"${raw}" is not a session id (a UUID such as 3f2a…-…); copy it from rcs upload`,
    );
  }
  return raw;
}
