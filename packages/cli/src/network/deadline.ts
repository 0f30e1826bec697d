/**
 * How long one request may take (cli.md "Networks": one deadline for every
 * network wait), from a command's `--timeout` or RCS_NETWORK_TIMEOUT.
 */
import { usageError } from '../errors.js';

/** The network deadline of one request when neither `--timeout` nor RCS_NETWORK_TIMEOUT says. */
const DEFAULT_NETWORK_TIMEOUT_SECONDS = 60;

/**
 * The longest `--timeout` and RCS_NETWORK_TIMEOUT take: a day. Node's timers hold at most
 * 2^31-1 ms (24.8 days) and fire at once past it, so a larger value would end a wait at once
 * instead of later.
 */
const MAX_SECONDS = 86_400;

/**
 * Seconds as given on the command line or in the environment (`--timeout 90`, `--timeout 1.5`,
 * RCS_NETWORK_TIMEOUT=30): a decimal number greater than 0 and at most a day; anything else is a
 * usage error (exit 2) naming `name`, the flag or variable.
 */
export function parseSeconds(name: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : secondsOf(name, raw);
}

function secondsOf(name: string, raw: string): number {
  const text = raw.trim();
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(seconds > 0) || seconds > MAX_SECONDS) {
    throw usageError(
      `${name} must be a number of seconds greater than 0 and at most ${MAX_SECONDS} (a day), got ${JSON.stringify(raw)}`,
    );
  }
  return seconds;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, '': 1_000 };

/**
 * `--retry-for`, RCS_RETRY_FOR, `retry-for` in milliseconds: `90s`, `10m`, `1h`, `500ms` or bare
 * seconds, 0 to a day; anything else is a usage error (exit 2) naming `name`.
 */
export function parseDuration(name: string, raw: string): number {
  const [, amount, unit = ''] = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(raw.trim()) ?? [];
  const ms = Math.round(Number(amount) * (UNIT_MS[unit] as number));
  if (amount === undefined || ms > MAX_SECONDS * 1000) {
    throw usageError(
      `${name} must be a duration such as 90s, 10m or 1h (at most a day), got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/**
 * What a command's `--timeout` means for its requests: on a command without a wait for DONE it
 * is the network deadline (`timeoutSeconds`, instead of RCS_NETWORK_TIMEOUT); on `upload --wait`
 * and `sessions wait` it is the wait (`waitSeconds`), and no request runs past it either.
 */
export type RequestDeadline = { timeoutSeconds: number } | { waitSeconds: number };

/** RCS_NETWORK_TIMEOUT in milliseconds, or the default (60 s) when it is unset or blank. */
export function networkDeadlineMs(env: NodeJS.ProcessEnv): number {
  const raw = env.RCS_NETWORK_TIMEOUT;
  const seconds =
    raw === undefined || raw.trim() === ''
      ? DEFAULT_NETWORK_TIMEOUT_SECONDS
      : secondsOf('RCS_NETWORK_TIMEOUT', raw);
  return toMs(seconds);
}

/**
 * The deadline of each request of this run, in milliseconds: the flag wins over the variable;
 * a wait for DONE caps it (a request is cut at the end of the wait anyway).
 */
export function requestDeadlineMs(
  env: NodeJS.ProcessEnv,
  deadline: RequestDeadline | undefined,
): number {
  if (deadline && 'timeoutSeconds' in deadline) return toMs(deadline.timeoutSeconds);
  const network = networkDeadlineMs(env);
  return deadline ? Math.min(network, toMs(deadline.waitSeconds)) : network;
}

/** At least a millisecond, so that a timer still runs and fails the request. */
function toMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}
