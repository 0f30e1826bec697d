import { describe, expect, it } from 'vitest';
import { networkDeadlineMs } from '../../src/context.js';

// RCS_NETWORK_TIMEOUT (cli.md "Networks"): the seconds one request may take in all.
describe('RCS_NETWORK_TIMEOUT', () => {
  it('is 60 s when unset or blank', () => {
    expect(networkDeadlineMs({})).toBe(60_000);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '  ' })).toBe(60_000);
  });

  it('takes whole and decimal seconds', () => {
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '5' })).toBe(5_000);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '2.5' })).toBe(2_500);
    expect(networkDeadlineMs({ RCS_NETWORK_TIMEOUT: '86400' })).toBe(86_400_000);
  });

  it.each(['0', '-1', 'abc', '1e3', '86401', 'Infinity', '5s'])(
    '%j is a usage error naming the variable and the value',
    (raw) => {
      expect(() => networkDeadlineMs({ RCS_NETWORK_TIMEOUT: raw })).toThrow(
        `RCS_NETWORK_TIMEOUT must be a number of seconds from 0.1 to 86400, got ${JSON.stringify(raw)}`,
      );
    },
  );
});
