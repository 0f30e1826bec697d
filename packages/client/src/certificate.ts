import { RcsError } from './errors.js';
import { causeCode } from './network-failure.js';

/**
 * TLS certificate failures: final, never retried (a certificate does not fix itself
 * between attempts), and said in one line with what to do. Behind a company proxy that
 * re-signs TLS, or with a private CA, the remedy is Node's `NODE_EXTRA_CA_CERTS`.
 */

export type CertificateProblem = 'untrusted-issuer' | 'self-signed' | 'expired' | 'wrong-host';

const PROBLEMS: Record<string, CertificateProblem> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted-issuer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted-issuer',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted-issuer',
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted-issuer',
  CERT_UNTRUSTED: 'untrusted-issuer',
  CERT_SIGNATURE_FAILURE: 'untrusted-issuer',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'wrong-host',
  HOSTNAME_MISMATCH: 'wrong-host',
};

const EXTRA_CA_HINT = 'NODE_EXTRA_CA_CERTS=/path/to/company-ca.pem';

const SAYS: Record<CertificateProblem, string> = {
  'untrusted-issuer': 'is signed by a certificate authority this machine does not trust',
  'self-signed': 'is self-signed',
  expired: 'has expired or is not valid yet',
  'wrong-host': 'was issued for another host name',
};

/** A TLS certificate the connection refused; `problem` says which kind. */
export class CertificateError extends RcsError {
  override name = 'CertificateError';
  constructor(
    message: string,
    readonly problem: CertificateProblem,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The certificate failure in an error's cause chain, if it is one. */
export function certificateFailure(error: unknown, host: string): CertificateError | undefined {
  const code = causeCode(error, (c) => Object.hasOwn(PROBLEMS, c));
  if (code === undefined) return undefined;
  const problem = PROBLEMS[code] as CertificateProblem;
  const remedy =
    problem === 'untrusted-issuer' || problem === 'self-signed'
      ? `; if your company's proxy or a private certificate authority signs it, trust that authority with ${EXTRA_CA_HINT}`
      : problem === 'wrong-host'
        ? '; check the base URL'
        : '; check the server (and this machine’s clock)';
  return new CertificateError(
    `the TLS certificate of ${host} ${SAYS[problem]} (${code}); not retried${remedy}`,
    problem,
    code,
    { cause: error },
  );
}
