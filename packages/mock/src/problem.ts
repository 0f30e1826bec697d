import type { Problem, ProblemCode } from './wire.js';

/** One failed check of a request body or query (D1: `errors` is a list of `{ path, message }`). */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * Answers of the HTTP server itself, before any operation is reached (D26: an odd request is a
 * 4xx problem, never a 500). They are not codes of openapi.yaml's operations.
 */
export type ServerProblemCode =
  | 'bad_request'
  | 'method_not_allowed'
  | 'origin_not_allowed'
  | 'request_timeout'
  | 'request_header_fields_too_large';

const TITLES: Record<ProblemCode | ServerProblemCode, string> = {
  bad_request: 'Bad request',
  method_not_allowed: 'Method not allowed',
  origin_not_allowed: 'Origin not allowed',
  request_timeout: 'Request timeout',
  request_header_fields_too_large: 'Request header fields too large',
  validation_failed: 'Validation failed',
  unauthorized: 'Unauthorized',
  not_found: 'Not found',
  payload_too_large: 'Payload too large',
  user_not_found: 'User not found',
  rate_limited: 'Too many requests',
  seat_limit_reached: 'Seat limit reached',
  email_exists_in_identity_provider: 'Email exists in identity provider',
  rep_not_in_transcript: 'Rep not in transcript',
  user_creation_disabled: 'User creation disabled',
  email_domain_not_allowed: 'Email domain not allowed',
  mission_not_found: 'Mission not found',
  scorecard_not_found: 'Scorecard not found',
  identity_provider_error: 'Identity provider error',
  service_unavailable: 'Service unavailable',
  bad_gateway: 'Bad gateway',
};

/** A rejection on its way to the wire: status, stable code (D2, D3) and a human detail. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode | ServerProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** D1: every non-2xx answer is `application/problem+json` with type, title, status, detail, code. */
export function problemBody(p: ProblemError): Problem {
  const body: Problem = {
    type: `https://rcs.dev/problems/${p.code}`,
    title: TITLES[p.code],
    status: p.status,
    detail: p.detail,
    // A server-level code only ever answers a request that reached no operation.
    code: p.code as ProblemCode,
  };
  if (p.errors) body.errors = p.errors;
  return body;
}

/**
 * A piece of the request quoted back in a `detail`, clipped so that a hostile 15,000-character
 * value is not echoed whole: JSON-quoted, at most `max` characters of it, then an ellipsis.
 */
export function clipEcho(value: string, max = 64): string {
  const chars = Array.from(value);
  return JSON.stringify(chars.length > max ? `${chars.slice(0, max).join('')}…` : value);
}

/** A bug in the mock, not a client error: still a D1 problem body (500 `internal_error`). */
export function internalErrorBody(err: unknown): string {
  return JSON.stringify({
    type: 'https://rcs.dev/problems/internal_error',
    title: 'Internal error',
    status: 500,
    detail: (err as Error)?.message ?? String(err),
    code: 'internal_error',
  });
}

export function problemResponse(p: ProblemError): Response {
  return new Response(JSON.stringify(problemBody(p)), {
    status: p.status,
    headers: { 'content-type': 'application/problem+json', ...p.headers },
  });
}

export const validationFailed = (errors: FieldError[], detail?: string): ProblemError =>
  new ProblemError(
    400,
    'validation_failed',
    detail ?? errors.map((e) => `${e.path || '/'}: ${e.message}`).join('; '),
    errors,
  );
