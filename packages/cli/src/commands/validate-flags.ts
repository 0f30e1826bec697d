import { HEX24_PATTERN, isValidEmail, UUID_PATTERN } from '@rcs/transcript';
import { usageError } from '../errors.js';

/** Flag checks shared by commands; each failure is a usage error (exit 2) naming the flag. */

/** `--timeout` of `upload --wait` and `sessions wait`, in seconds. */
export const DEFAULT_WAIT_SECONDS = 600;

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
