export { apiErrorFrom, type ParsedBody, parseErrorBody } from './api-error.js';
export { type BackoffOptions, DEFAULT_BACKOFF } from './backoff.js';
export { readBounded } from './bounded-body.js';
export {
  CertificateError,
  type CertificateProblem,
  certificateFailure,
  EXTRA_CA_HINT,
} from './certificate.js';
export {
  createRcsClient,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  type RcsClient,
  type RcsClientOptions,
} from './client.js';
export * from './errors.js';
export type {
  AnyExportAccessor,
  ExportAccessor,
  ExportAllOptions,
  ExportListOptions,
  ExportPageOf,
  ExportQueryOf,
  ExportRecordOf,
  ExportsApi,
} from './exports.js';
export * from './exports-table.js';
export {
  classifyNetworkFailure,
  type NetworkFailure,
  type NetworkFailureKind,
  RequestNotSentError,
} from './network-failure.js';
export { PageBody } from './page-body.js';
export {
  type Anomaly,
  type EngineOptions,
  type EngineResult,
  type IdTracker,
  type Limiter,
  runPages,
} from './page-engine.js';
export {
  DEFAULT_CONCURRENCY,
  DEFAULT_DEDUPE_WINDOW,
  DEFAULT_EXPORT_LIMIT,
  type ExportIterable,
  type ExportStats,
  MAX_EXPORT_LIMIT,
  type Page,
  type PageInfo,
  type PageMeta,
  type PageReader,
  type PaginateOptions,
  paginate,
} from './paginate.js';
export { makeRedactor, type Redactor, redactValue } from './redact.js';
export { parseRetryAfter } from './retry-after.js';
export type { SessionsApi, WaitOptions } from './sessions.js';
export type {
  ClientTracing,
  TraceAttributes,
  TraceAttributeValue,
  TracedSpan,
} from './tracing.js';
export {
  emptyRequestStats,
  isLoopbackHost,
  isUnreachable,
  type Logger,
  type RequestOptions,
  type RequestStats,
} from './transport.js';
export type * from './types.js';
