import {
  ApiError,
  type ApiErrorCode,
  type ApiErrorInit,
  AuthenticationError,
  BadRequestError,
  IdentityProviderConflictError,
  IdentityProviderError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  SeatLimitError,
  ServerError,
  UnprocessableError,
  type ValidationIssue,
} from './errors.js';
import { type Redactor, redactValue } from './redact.js';
import { parseRetryAfter } from './retry-after.js';

/** How much of a non-JSON body goes into a message: enough to recognise, not a whole page. */
const SNIPPET = 200;

/**
 * A body that is not JSON is read for its first 8 KiB only: what is shown of it is a line. JSON
 * is parsed whole (in linear time, and the body is already bounded) so that a long problem+json
 * keeps its code and issues (README).
 */
export const ERROR_BODY_SCAN = 8192;

export interface ParsedBody {
  code?: ApiErrorCode | undefined;
  title?: string | undefined;
  detail?: string | undefined;
  errors?: ValidationIssue[] | undefined;
  /** The best one-line explanation found in the body. */
  summary?: string | undefined;
  body: unknown;
}

/** What is shown of one field of a body (a title, a detail, an issue) is short, whatever it holds. */
const FIELD = 1000;
const clip = (s: string): string => (s.length > FIELD ? `${s.slice(0, FIELD)}…` : s);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? clip(v) : undefined;

function readIssues(v: unknown): ValidationIssue[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map((e) => {
    if (e !== null && typeof e === 'object') {
      const o = e as Record<string, unknown>;
      return {
        path: clip(String(o.path ?? o.field ?? '')),
        message: clip(String(o.message ?? '')),
      };
    }
    return { path: '', message: clip(String(e)) };
  });
}

/**
 * Reads any error body leniently (D1: "decide strictly in the mock, read leniently in the
 * client"): problem+json, `{ message }`, `{ error }`, `{ error: { message, code } }`, plain text,
 * an HTML page from a proxy, or nothing.
 */
export function parseErrorBody(text: string, redact: Redactor = (t) => t): ParsedBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const trimmed = text.slice(0, ERROR_BODY_SCAN).trim();
  if (json === undefined && trimmed === '') return { body: undefined };
  // Redacted once, where read: JSON after parsing (an escaped `\/` is a `/` there), text whole.
  const body = redactValue(json, redact);
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    const nested =
      o.error !== null && typeof o.error === 'object' ? (o.error as Record<string, unknown>) : {};
    const errors = readIssues(o.errors);
    const detail = str(o.detail);
    const title = str(o.title);
    const summary =
      detail ?? str(o.message) ?? str(o.error) ?? str(nested.message) ?? title ?? undefined;
    return {
      code: str(o.code) ?? str(nested.code),
      title,
      detail,
      errors,
      summary,
      body: o,
    };
  }
  if (json !== undefined) return { summary: JSON.stringify(body).slice(0, SNIPPET), body };
  const page = redact(trimmed);
  if (/^<(!doctype|html|\?xml|head|body)/i.test(page)) {
    // An HTML page: usually a proxy or load balancer, not the API. Its <title> is the best hint.
    // `[^<>]*` stops at the next tag: linear on a `<title<title…` page.
    const t = /<title\b[^<>]*>([^<]*)<\/title>/i.exec(page)?.[1]?.trim();
    return {
      summary: `an HTML page${t ? ` "${t}"` : ''} (a proxy or gateway answered, not the API)`,
      body: page,
    };
  }
  const oneLine = page.replace(/\s+/g, ' ');
  return {
    summary: oneLine.length > SNIPPET ? `${oneLine.slice(0, SNIPPET)}…` : oneLine,
    body: page,
  };
}

/**
 * Picks the class by status, and for 403, 409 and 502 by `code` too (D3). A 403 or 409 with the
 * D3 code, or with no code at all (a service that sends another body shape, D1), gets its D3
 * class; with some other code it is a plain ApiError, since a caller acting on "seat limit" or
 * "email taken" must not be misled by, say, a 403 from a policy or a 409 of another conflict.
 */
function errorClassFor(status: number, code: ApiErrorCode | undefined): typeof ApiError {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return code === undefined || code === 'seat_limit_reached' ? SeatLimitError : ApiError;
    case 404:
      return NotFoundError;
    case 409:
      return code === undefined || code === 'email_exists_in_identity_provider'
        ? IdentityProviderConflictError
        : ApiError;
    case 413:
      return PayloadTooLargeError;
    case 422:
      return UnprocessableError;
    case 429:
      return RateLimitError;
    case 502:
      // Without the code we cannot tell the identity provider from a gateway: a generic 5xx.
      return code === 'identity_provider_error' ? IdentityProviderError : ServerError;
  }
  return status >= 500 ? ServerError : ApiError;
}

interface ResponseContext {
  method?: string | undefined;
  url?: string | undefined;
  /** Removes credentials from text; the client passes its own. Default: no change. */
  redact?: Redactor | undefined;
  now?: number;
  /** The header naming the service's request id; default `x-request-id` (then `request-id`). */
  requestIdHeader?: string | undefined;
}

/** The service's id of this answer, from the configured header or the usual ones. */
export function requestIdOf(
  headers: Pick<Headers, 'get'>,
  header: string | undefined,
): string | undefined {
  const id = header
    ? headers.get(header)
    : (headers.get('x-request-id') ?? headers.get('request-id'));
  return id || undefined;
}

/** Builds the typed error for a non-2xx response whose body text has been read. */
export function apiErrorFrom(
  response: Pick<Response, 'status' | 'statusText' | 'headers'>,
  bodyText: string,
  ctx: ResponseContext,
): ApiError {
  const redact = ctx.redact ?? ((t: string) => t);
  const parsed = parseErrorBody(bodyText, redact);
  const status = response.status;
  const requestId = requestIdOf(response.headers, ctx.requestIdHeader);
  const head = `${status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const where = ctx.method && ctx.url ? ` from ${ctx.method} ${ctx.url}` : '';
  const codePart = parsed.code ? ` [${parsed.code}]` : '';
  const explanation = parsed.summary ?? 'no error body';
  const issues =
    parsed.errors && parsed.errors.length > 0
      ? `: ${parsed.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')}`
      : '';
  const init: ApiErrorInit = {
    status,
    statusText: response.statusText,
    code: parsed.code,
    title: parsed.title,
    detail: parsed.detail,
    requestId,
    body: parsed.body,
    method: ctx.method,
    url: ctx.url,
    errors: parsed.errors,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), ctx.now),
    // The parts from the body were redacted as they were read: only the rest is, here.
    message: `${redact(head)}${codePart}${redact(where)}: ${explanation}${issues}${requestId ? redact(` (request id ${requestId})`) : ''}`,
  };
  const Cls = errorClassFor(status, parsed.code);
  return new Cls(init);
}
