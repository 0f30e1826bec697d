/**
 * `@rcs/client`: what README.md documents, nothing else. Plumbing shared with the sibling
 * packages is in `./internal` (internal.ts), not for users.
 */
export { apiErrorFrom, type ParsedBody, parseErrorBody } from './api-error.js';
export type { BackoffOptions } from './backoff.js';
export type { ByteStream } from './bounded-body.js';
export { CertificateError, type CertificateProblem } from './certificate.js';
export { createRcsClient, type RcsClient, type RcsClientOptions } from './client.js';
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
  type ProxyInUse,
  RequestNotSentError,
} from './network-failure.js';
export { PageBody } from './page-body.js';
export {
  type ExportIterable,
  type ExportStats,
  type Page,
  type PageInfo,
  type PageMeta,
  type PageReader,
  type PaginateOptions,
  paginate,
} from './paginate.js';
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
  type FetchFunction,
  type FetchResponse,
  type Logger,
  type RequestOptions,
  type RequestStats,
} from './transport.js';
export type * from './types.js';
