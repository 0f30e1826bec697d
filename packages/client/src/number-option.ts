/**
 * The one check of a number option for every package: the client's and the export engine's
 * options, the Parquet writer's, the `rcs` flags (once commander's argParser made them numbers).
 * The message names the option and says what it takes, so no caller needs words of its own.
 */
import { RcsError } from './errors.js';

/** What a number option takes: `min` to `max`, both included; a whole number unless `fraction`. */
export interface NumberRange {
  min: number;
  /** Default: any safe integer. Infinity: any size, Infinity itself included. */
  max?: number;
  fraction?: boolean;
}

/** "a whole number from 1 to 64", "a number of at least 0". */
function rangeText({ min, max, fraction }: NumberRange): string {
  const kind = fraction ? 'a number' : 'a whole number';
  if (max === undefined) return `${kind} of at least ${min}`;
  return max === Number.POSITIVE_INFINITY
    ? `${kind} of at least ${min}, or Infinity`
    : `${kind} from ${min} to ${max}`;
}

/** `value` when it is a number in `range`; else undefined. */
function numberIn(n: unknown, range: NumberRange): number | undefined {
  if (typeof n !== 'number') return undefined;
  const { min, max = Number.MAX_SAFE_INTEGER, fraction } = range;
  if (n === Number.POSITIVE_INFINITY) return max === n ? n : undefined;
  const kind = fraction ? Number.isFinite(n) : Number.isSafeInteger(n);
  return kind && n >= min && n <= max ? n : undefined;
}

/** `value` when it is a number in `range`; else `fail` with a message naming `name`. */
export function checkNumber(
  name: string,
  value: unknown,
  range: NumberRange,
  fail: (message: string) => Error = (message) => new RcsError(message),
): number {
  const n = numberIn(value, range);
  if (n !== undefined) return n;
  const got = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw fail(`${name} must be ${rangeText(range)}, got ${got}`);
}
