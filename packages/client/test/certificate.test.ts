import { CertificateError, createRcsClient } from '@rcs/client';
import { describe, expect, it } from 'vitest';
import { certificateFailure } from '../src/certificate.js';
import { API_KEY, SESSION_ID } from './helpers.js';

// A certificate error is final (not retried) and says what to do.

const tlsFailure = (code: string) =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error(`certificate problem ${code}`), { code }),
  });

describe('certificate failures', () => {
  it.each([
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'untrusted-issuer', /does not trust.*NODE_EXTRA_CA_CERTS=/],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted-issuer', /does not trust.*NODE_EXTRA_CA_CERTS=/],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'untrusted-issuer', /NODE_EXTRA_CA_CERTS=/],
    ['UNABLE_TO_GET_ISSUER_CERT', 'untrusted-issuer', /does not trust.*NODE_EXTRA_CA_CERTS=/],
    ['CERT_UNTRUSTED', 'untrusted-issuer', /does not trust.*NODE_EXTRA_CA_CERTS=/],
    ['CERT_SIGNATURE_FAILURE', 'untrusted-issuer', /does not trust.*NODE_EXTRA_CA_CERTS=/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed', /is self-signed.*NODE_EXTRA_CA_CERTS=/],
    ['CERT_HAS_EXPIRED', 'expired', /has expired or is not valid yet.*clock/],
    ['CERT_NOT_YET_VALID', 'expired', /has expired or is not valid yet.*clock/],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'wrong-host', /was issued for another host name.*base URL/],
    ['HOSTNAME_MISMATCH', 'wrong-host', /was issued for another host name.*base URL/],
  ])('%s is %s, named in one line with its remedy', (code, problem, says) => {
    const e = certificateFailure(tlsFailure(code), 'api.example.com');
    expect(e).toBeInstanceOf(CertificateError);
    expect(e?.name).toBe('CertificateError');
    expect(e?.problem).toBe(problem);
    expect(e?.code).toBe(code);
    expect(e?.message).toMatch(says);
    expect(e?.message).toContain('api.example.com');
    expect(e?.message).not.toContain('\n');
    if (problem === 'expired' || problem === 'wrong-host') {
      expect(e?.message).not.toContain('NODE_EXTRA_CA_CERTS');
    }
  });

  it('keeps the failure it read as its cause', () => {
    const failure = tlsFailure('CERT_HAS_EXPIRED');
    expect(certificateFailure(failure, 'h')?.cause).toBe(failure);
  });

  it('anything else is not a certificate failure', () => {
    expect(certificateFailure(tlsFailure('ECONNRESET'), 'h')).toBeUndefined();
    expect(certificateFailure(new Error('x'), 'h')).toBeUndefined();
    expect(certificateFailure(undefined, 'h')).toBeUndefined();
  });

  it('the client does not retry it, whatever maxRetries says', async () => {
    let calls = 0;
    const rcs = createRcsClient({
      baseUrl: 'https://api.example.com',
      apiKey: API_KEY,
      maxRetries: 5,
      initialDelayMs: 1,
      maxDelayMs: 1,
      fetch: (async () => {
        calls++;
        throw tlsFailure('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      }) as typeof fetch,
    });
    await expect(rcs.sessions.get(SESSION_ID)).rejects.toBeInstanceOf(CertificateError);
    expect(calls).toBe(1);
  });
});
