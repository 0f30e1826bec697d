/**
 * `@rcs/client/internal`: plumbing the client shares with its sibling packages (the mock, the
 * export engine, the `rcs` command), published so that they import it through the package's
 * `exports` rather than its files. Not for users: no semver promise, and it may change in any
 * release. Everything a user needs is in `@rcs/client` (README.md).
 */
export { sleep } from './backoff.js';
export { readBounded } from './bounded-body.js';
export { withoutTrailingSlashes } from './client.js';
export { DATE_TIME, dateTimeProblem, instantOf } from './date-time.js';
export { ProxiedFailure, ProxyTunnelError, proxyOf } from './network-failure.js';
export { checkNumber, type NumberRange } from './number-option.js';
export {
  type Anomaly,
  type EngineOptions,
  type EngineResult,
  type IdTracker,
  type Limiter,
  runPages,
} from './page-engine.js';
export { makeRedactor, type Redactor } from './redact.js';
export { isLoopbackHost } from './transport.js';
