/**
 * One error class per failure a caller handles differently (Stainless-style `errors.ts`).
 *
 * Every error is built from what the wire gave us (D1: problem+json when the service follows the
 * decision, anything else when a proxy or another implementation answers) and never from the
 * request headers, so the API key and the token cannot leak into `message`, `toString()` or
 * `toJSON()`. The client's `Redactor` (`makeRedactor`, redact.ts) is applied on top, for a
 * service that echoes credentials back.
 */

import type { ProblemCode } from './types.js';

/**
 * The `code` of an error answer: one of the API's problem codes (D2, D3), typed so that an editor
 * completes them and a `switch` is checked, or any other string a service sent (D1: read
 * leniently), kept as it came. `string & {}` keeps the known codes from collapsing into `string`.
 */
export type ApiErrorCode = ProblemCode | (string & {});

/** One entry of a 400 problem's `errors` list (D1). */
export interface ValidationIssue {
  path: string;
  message: string;
}

const UNPROCESSABLE_REASONS = [
  'rep_not_in_transcript',
  'user_creation_disabled',
  'email_domain_not_allowed',
  'mission_not_found',
  'scorecard_not_found',
  'user_not_found',
] as const;

/** The reasons a 422 can carry: the four of the description (D3) and `user_not_found` (D2). */
export type UnprocessableReason = (typeof UNPROCESSABLE_REASONS)[number];

function isUnprocessableReason(code: ApiErrorCode | undefined): code is UnprocessableReason {
  return (UNPROCESSABLE_REASONS as readonly (string | undefined)[]).includes(code);
}

/** Base of every error the SDK throws, so callers can tell ours from everything else. */
export class RcsError extends Error {
  override name = 'RcsError';

  /**
   * name, message and every field of the subclass (status, code, sessionId, …): what a log line
   * or `--json` output needs. Never a credential, since no error holds one.
   */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...Object.fromEntries(Object.entries(this)) };
  }
}

/** What the client learnt from a non-2xx answer, before choosing the class. */
export interface ApiErrorInit {
  status: number;
  statusText?: string;
  /** D1 `code` (D2/D3 values), when the body had one. */
  code?: ApiErrorCode | undefined;
  title?: string | undefined;
  detail?: string | undefined;
  requestId?: string | undefined;
  /** The parsed JSON body, or the raw text when it was not JSON (already redacted). */
  body?: unknown;
  method?: string | undefined;
  url?: string | undefined;
  errors?: ValidationIssue[] | undefined;
  retryAfterMs?: number | undefined;
  message: string;
}

/** The service answered, with a status that is not 2xx. */
export class ApiError extends RcsError {
  override name = 'ApiError';
  readonly status: number;
  /** The problem's `code` (`'seat_limit_reached'`, …), or undefined when the body had none. */
  readonly code: ApiErrorCode | undefined;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly requestId: string | undefined;
  readonly body: unknown;
  readonly method: string | undefined;
  readonly url: string | undefined;
  /**
   * `Retry-After` in milliseconds, on any status that sent it (a 429, a 503, a 5xx behind a
   * proxy); undefined otherwise.
   */
  readonly retryAfterMs: number | undefined;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.body = init.body;
    this.method = init.method;
    this.url = init.url;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 400 `validation_failed` (D2): the request failed the schema; `errors` says where. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
  readonly errors: ValidationIssue[];
  constructor(init: ApiErrorInit) {
    super(init);
    this.errors = init.errors ?? [];
  }
}

/** 401 `unauthorized` (D2): no, unknown, or expired credentials. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}

/** 403 `seat_limit_reached` (D3): the organization has no free seat for a new rep. */
export class SeatLimitError extends ApiError {
  override name = 'SeatLimitError';
}

/** 404 `not_found` (D2): unknown session, or one of another organization. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}

/** 409 `email_exists_in_identity_provider` (D3): the email belongs to another organization. */
export class IdentityProviderConflictError extends ApiError {
  override name = 'IdentityProviderConflictError';
}

/** 413 `payload_too_large` (D2): the request body is over 1 MiB. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}

/**
 * 422: the upload was understood but refused (R3, R8, D3, D2). `reason` is the discriminant a
 * caller switches on; it is `undefined` when the service sent a code this client does not know.
 */
export class UnprocessableError extends ApiError {
  override name = 'UnprocessableError';
  readonly reason: UnprocessableReason | undefined;
  constructor(init: ApiErrorInit) {
    super(init);
    this.reason = isUnprocessableReason(init.code) ? init.code : undefined;
  }
}

/** 429 `rate_limited` (D2); `retryAfterMs` (on every ApiError) comes from `Retry-After`. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}

/** 502 `identity_provider_error` (D3): nothing was created and the upload can be retried (R9). */
export class IdentityProviderError extends ApiError {
  override name = 'IdentityProviderError';
}

/** Any other 5xx (and a 502 that is not the identity provider's). */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

/**
 * The request failed below HTTP: DNS, refused or reset connection, or an answer that never came.
 * `mayHaveBeenCreated` is true when a non-idempotent request (the create POST) may have reached
 * the service, so its outcome is unknown: the CLI records that in its ledger instead of retrying.
 */
export class ConnectionError extends RcsError {
  override name = 'ConnectionError';
  readonly mayHaveBeenCreated: boolean;
  readonly method: string | undefined;
  readonly url: string | undefined;
  constructor(
    message: string,
    opts: { cause?: unknown; mayHaveBeenCreated?: boolean; method?: string; url?: string } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.mayHaveBeenCreated = opts.mayHaveBeenCreated ?? false;
    this.method = opts.method;
    this.url = opts.url;
  }
}

/** No answer within the per-request `timeoutMs`. A kind of connection failure. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  readonly timeoutMs: number;
  constructor(
    timeoutMs: number,
    opts: { cause?: unknown; mayHaveBeenCreated?: boolean; method?: string; url?: string } = {},
  ) {
    super(
      `${opts.method ?? 'request'}${opts.url ? ` ${opts.url}` : ''} got no answer within ${timeoutMs} ms`,
      opts,
    );
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The service answered 2xx with a body that breaks the contract (not a session where one is
 * promised: `{}`, `null`, `[]`). Named by the endpoint and the service's request id, so that
 * the answer can be found in the service's logs.
 */
export class UnexpectedAnswerError extends RcsError {
  override name = 'UnexpectedAnswerError';
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly requestId: string | undefined;
  /**
   * True for a create (POST): the service said 2xx, so the session may well exist, though its
   * id is unknown; like a lost connection's unknown outcome, it is looked up, not sent again.
   */
  readonly mayHaveBeenCreated: boolean;
  constructor(init: {
    status: number;
    method: string;
    url: string;
    requestId: string | undefined;
    expected: string;
    got: string;
  }) {
    super(
      `${init.method} ${init.url} answered ${init.status} with ${init.got}, not ${init.expected}: the service broke its contract`,
    );
    this.status = init.status;
    this.method = init.method;
    this.url = init.url;
    this.requestId = init.requestId;
    this.mayHaveBeenCreated = init.method === 'POST';
  }
}

/** `sessions.waitUntilDone` gave up: the session did not reach DONE in time. */
export class WaitTimeoutError extends RcsError {
  override name = 'WaitTimeoutError';
  readonly sessionId: string;
  readonly timeoutMs: number;
  /** The state seen last (PENDING / PROCESSING), when any read succeeded. */
  readonly lastState: string | undefined;
  /** The request id of the last failed read, when the service answered it. */
  readonly requestId: string | undefined;
  /** `cause`: the last read that failed, when the wait ended while the service was failing. */
  constructor(sessionId: string, timeoutMs: number, lastState?: string, cause?: unknown) {
    super(
      `session ${sessionId} did not reach DONE within ${timeoutMs} ms` +
        (lastState ? ` (last state: ${lastState})` : '') +
        (cause instanceof Error ? ` (last read failed: ${cause.message})` : '') +
        '; wait for it again later with the same id',
      cause === undefined ? undefined : { cause },
    );
    this.sessionId = sessionId;
    this.timeoutMs = timeoutMs;
    this.lastState = lastState;
    this.requestId = cause instanceof ApiError ? cause.requestId : undefined;
  }
}

/** True when a failed create may still have created the session (unknown outcome). */
export function isUnknownOutcome(error: unknown): error is ConnectionError {
  return error instanceof ConnectionError && error.mayHaveBeenCreated;
}
