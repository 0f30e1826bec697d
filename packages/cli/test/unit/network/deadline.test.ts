import { describe, expect, it } from 'vitest';
import { CliError } from '../../../src/errors.js';
import { EXIT } from '../../../src/exit-codes.js';
import {
  networkDeadlineMs,
  parseSeconds,
  requestDeadlineMs,
} from '../../../src/network/deadline.js';

// cli.md "Networks": one deadline per request, from `--timeout` or RCS_NETWORK_TIMEOUT; on `upload --wait` and `sessions wait` `--timeout` is the wait, and caps each request.
const BAD = ['0', '0.0', '-1', 'abc', '1e3', '86400.5', '86401', 'Infinity', 'NaN', '5s', '', ' '];

describe('RCS_NETWORK_TIMEOUT', () => {
  it('is 60 s when unset or blank', () => {
    expect(networkDeadlineMs({})).toBe(60_000);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '  ' })).toBe(60_000);
  });

  it('takes whole and decimal seconds, up to a day', () => {
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '5' })).toBe(5_000);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: ' 2.5 ' })).toBe(2_500);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '0.1' })).toBe(100);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '86400' })).toBe(86_400_000);
  });

  it.each(BAD.filter((raw) => raw.trim() !== ''))(
    '%j is a usage error naming the variable and the value',
    (raw) => {
      expect(() => networkDeadlineMs({ RCS_NETWORK_TIMEOUT: raw })).toThrow(
        `RCS_NETWORK_TIMEOUT must be a number of seconds greater than 0 and at most 86400 (a day), got ${JSON.stringify(raw)}`,
      );
    },
  );
});

describe('--timeout SECONDS', () => {
  it('absent: nothing to say', () => {
    expect(parseSeconds('--timeout', undefined)).toBeUndefined();
  });

  it('takes whole and decimal seconds greater than 0, up to a day', () => {
    expect(parseSeconds('--timeout', '2')).toBe(2);
    expect(parseSeconds('--timeout', '0.5')).toBe(0.5);
    expect(parseSeconds('--timeout', '86400')).toBe(86_400);
  });

  it.each(BAD)('%j is a usage error (exit 2) naming the flag and the value', (raw) => {
    let error: unknown;
    try {
      parseSeconds('--timeout', raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    expect((error as CliError).message).toBe(
      `--timeout must be a number of seconds greater than 0 and at most 86400 (a day), got ${JSON.stringify(raw)}`,
    );
  });
});

describe("each request's deadline", () => {
  it('is RCS_NETWORK_TIMEOUT (or 60 s) when the command has no --timeout', () => {
    expect(requestDeadlineMs({}, undefined)).toBe(60_000);
    expect(requestDeadlineMs({ RCS_NETWORK_TIMEOUT: '7' }, undefined)).toBe(7_000);
  });

  it('is --timeout where that is the network deadline: the flag wins over the variable, longer or shorter', () => {
    expect(requestDeadlineMs({ RCS_NETWORK_TIMEOUT: '7' }, { timeoutSeconds: 2 })).toBe(2_000);
    expect(requestDeadlineMs({ RCS_NETWORK_TIMEOUT: '7' }, { timeoutSeconds: 90 })).toBe(90_000);
    expect(requestDeadlineMs({}, { timeoutSeconds: 0.25 })).toBe(250);
  });

  it('a flag leaves a malformed variable unread (the flag is what the user meant now)', () => {
    expect(requestDeadlineMs({ RCS_NETWORK_TIMEOUT: 'soon' }, { timeoutSeconds: 3 })).toBe(3_000);
  });

  it('is never past the wait of upload --wait and sessions wait: the shorter of the two', () => {
    expect(requestDeadlineMs({}, { waitSeconds: 2 })).toBe(2_000);
    expect(requestDeadlineMs({}, { waitSeconds: 600 })).toBe(60_000);
    expect(requestDeadlineMs({ RCS_NETWORK_TIMEOUT: '1.5' }, { waitSeconds: 600 })).toBe(1_500);
    expect(() => requestDeadlineMs({ RCS_NETWORK_TIMEOUT: 'soon' }, { waitSeconds: 9 })).toThrow(
      /RCS_NETWORK_TIMEOUT must be/,
    );
  });
});
