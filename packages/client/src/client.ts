import createClientImport, { type Client } from 'openapi-fetch';
import { createRatePacer } from './adaptive-rate.js';
import { type BackoffOptions, DEFAULT_BACKOFF } from './backoff.js';
import { RcsError } from './errors.js';
import { type AnyExportAccessor, createExports, type ExportsApi } from './exports.js';
import type { paths } from './generated/openapi.js';
import { defaultExport } from './interop.js';
import { checkNumber } from './number-option.js';
import { makeRedactor } from './redact.js';
import { createSessions, type SessionsApi } from './sessions.js';
import type { ClientTracing } from './tracing.js';
import {
  assertSecureTransport,
  createTransport,
  type FetchFunction,
  type Logger,
  type RequestStats,
} from './transport.js';
import { CLIENT_VERSION } from './version.js';

const createClient = defaultExport(createClientImport);

export interface RcsClientOptions extends BackoffOptions {
  /** The service origin, e.g. `https://api.example.com` (paths carry `/api/v1`). */
  baseUrl: string;
  /** Sent as `X-API-KEY`. */
  apiKey?: string | undefined;
  /** A JWT, sent as `Authorization: Bearer …`. */
  token?: string | undefined;
  /**
   * A fetch to use instead of the global one (tests, proxies, other runtimes), called once per
   * attempt with a `Request`. The contract (README "A fetch of your own"):
   * - resolve with the answer, whatever its status, content codings undone; with
   *   `redirect: 'manual'` (a request with credentials) give a 3xx back unfollowed: the client
   *   follows it within the same origin only;
   * - abort when the request's signal fires (the client also stops reading at its deadline);
   * - reject when no answer came: `classifyNetworkFailure` reads the error's cause chain; a
   *   `RequestNotSentError` in it says the request never left this machine (retried, even a
   *   create POST); anything it does not know may have reached the service (a create POST is
   *   then not repeated: `mayHaveBeenCreated`);
   * - throw an `RcsError` to stop: it reaches the caller as it is, never retried.
   * The platform's `fetch` fits; of the answer, the client reads `FetchResponse`.
   */
  fetch?: FetchFunction | undefined;
  /** Retries after the first attempt (default 2); see README for which failures retry. */
  maxRetries?: number | undefined;
  /** Per attempt (default 60 000 ms). */
  timeoutMs?: number | undefined;
  /**
   * The most one request may take, all its attempts and the waits between them included
   * (default: none, each attempt has `timeoutMs`). The CLI sets it: one deadline per request.
   */
  deadlineMs?: number | undefined;
  userAgent?: string | undefined;
  /** Receives one line per request and per retry; never a credential. */
  logger?: Logger | undefined;
  /** Allow credentials over plain http to a non-loopback host. Off by default. */
  allowInsecureHttp?: boolean | undefined;
  /**
   * Retries after a refused connection or an unknown host while the service has never answered,
   * which usually means a wrong `baseUrl` (default 1, as in `rcs`: a typo fails in a second).
   */
  unreachableRetries?: number | undefined;
  /**
   * How long a request keeps trying while the service is down or cannot be reached (no
   * connection, a gateway's 502/503/504), from its first failure in a row; not counted against
   * `deadlineMs`. Default 0, as `rcs --retry-for`. Each attempt is a line on `logger.warn`, else
   * `console.warn`: never a silent wait.
   */
  retryForMs?: number | undefined;
  /** The largest answer body read (default 32 MiB, far above a page of 100 records). */
  maxResponseBytes?: number | undefined;
  /**
   * Pace requests after a 429: the shared rate shrinks on each 429 (waiting out `Retry-After`)
   * and grows back while answers are good (AIMD). Default true; nothing is paced until a 429.
   */
  adaptiveRate?: boolean | undefined;
  /**
   * The answer header that names the service's request id, carried by every `ApiError` and
   * logged per request. Default `x-request-id` (then `request-id`).
   */
  requestIdHeader?: string | undefined;
  /**
   * Spans for every request, pagination and wait: `openTelemetry()` from
   * `@rcs/client/otel` (an OpenTelemetry tracer, given or global). Default none: no cost.
   */
  tracing?: ClientTracing | undefined;
}

export interface RcsClient {
  /** The raw typed openapi-fetch methods (no exceptions on non-2xx; retries still apply). */
  readonly GET: Client<paths>['GET'];
  readonly POST: Client<paths>['POST'];
  readonly sessions: SessionsApi;
  readonly exports: ExportsApi;
  /** The accessor of an export by its path name (`track-assignments`), for run-time choices. */
  exportsByResource(resource: string): AnyExportAccessor;
  readonly baseUrl: string;
  /** What this client's requests came to so far: attempts, retries, 429s, waits, bytes. */
  readonly stats: Readonly<RequestStats>;
}

const OPTION_KEYS: readonly string[] = [
  'baseUrl',
  'apiKey',
  'token',
  'fetch',
  'maxRetries',
  'timeoutMs',
  'deadlineMs',
  'userAgent',
  'logger',
  'allowInsecureHttp',
  'initialDelayMs',
  'maxDelayMs',
  'maxRetryAfterMs',
  'unreachableRetries',
  'retryForMs',
  'maxResponseBytes',
  'adaptiveRate',
  'requestIdHeader',
  'tracing',
];

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_USER_AGENT = `rcs-client/${CLIENT_VERSION}`;
const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

function normaliseBaseUrl(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') {
    throw new RcsError('baseUrl is required, e.g. https://api.example.com');
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new RcsError(`baseUrl is not an absolute URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RcsError(`baseUrl must be http or https, got ${url.protocol}`);
  }
  if (url.username || url.password) {
    // fetch refuses such a URL anyway; saying so here keeps the secret out of its message.
    url.username = '';
    url.password = '';
    throw new RcsError(
      `baseUrl must not contain credentials (user:password@); use apiKey or token: ${url.origin}`,
    );
  }
  // Every path already starts with /api/v1; accept a base URL that repeats it.
  return withoutTrailingSlashes(url.href).replace(/\/api\/v1$/, '');
}

/** `s` without the slashes it ends with: a loop, as every pattern for it backtracks on `//…/x`. */
export function withoutTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '/') end--;
  return s.slice(0, end);
}

/** A header name as fetch's Headers accepts it (RFC 9110 token), or undefined for the default. */
function headerName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(raw)) {
    throw new RcsError(`requestIdHeader must be a header name such as x-request-id, got ${raw}`);
  }
  return raw;
}

export function createRcsClient(options: RcsClientOptions): RcsClient {
  if (options === null || typeof options !== 'object') {
    throw new RcsError('createRcsClient needs options: { baseUrl, apiKey? | token? }');
  }
  for (const key of Object.keys(options)) {
    // A mistyped `apikey` would otherwise surface later as a puzzling 401.
    if (!OPTION_KEYS.includes(key)) {
      throw new RcsError(
        `createRcsClient: unknown option "${key}"; expected one of ${OPTION_KEYS.join(', ')}`,
      );
    }
  }
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const hasCredentials = Boolean(options.apiKey || options.token);
  // Fail at construction, not at the first request, when credentials would go out in clear.
  assertSecureTransport(new URL(baseUrl), hasCredentials, options.allowInsecureHttp);
  const maxRetries = checkNumber('maxRetries', options.maxRetries ?? DEFAULT_MAX_RETRIES, {
    min: 0,
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RcsError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}`);
  }
  const deadlineMs = options.deadlineMs;
  if (deadlineMs !== undefined && (!Number.isFinite(deadlineMs) || deadlineMs <= 0)) {
    throw new RcsError(`deadlineMs must be a positive number of milliseconds, got ${deadlineMs}`);
  }
  const maxResponseBytes = checkNumber(
    'maxResponseBytes',
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    { min: 1 },
  );
  const unreachableRetries = checkNumber('unreachableRetries', options.unreachableRetries ?? 1, {
    min: 0,
  });
  const retryForMs = checkNumber('retryForMs', options.retryForMs ?? 0, { min: 0, fraction: true });
  const requestIdHeader = headerName(options.requestIdHeader);
  const redact = makeRedactor([options.apiKey, options.token]);
  // The options as given (fetch, credentials, logger, backoff, tracing), the checked ones over them.
  const transport = createTransport({
    ...options,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    maxRetries,
    timeoutMs,
    deadlineMs,
    redact,
    unreachableRetries,
    retryForMs,
    maxResponseBytes,
    pacer: options.adaptiveRate === false ? undefined : createRatePacer(),
    requestIdHeader,
  });
  const api = createClient<paths>({ baseUrl, fetch: transport() });
  const deps = { api, transport, redact, requestIdHeader, baseUrl, tracing: options.tracing };
  const { exports, exportsByResource } = createExports(deps);
  return {
    GET: api.GET,
    POST: api.POST,
    sessions: createSessions({
      ...deps,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_BACKOFF.maxRetryAfterMs,
    }),
    exports,
    exportsByResource,
    baseUrl,
    get stats() {
      return { ...transport.stats };
    },
  };
}
