import { apiErrorFrom } from './api-error.js';
import type { ApiError } from './errors.js';
import type { Redactor } from './redact.js';

/** What turning an answer into an error needs from the client. */
export interface ErrorContext {
  redact: Redactor;
  /** The header naming the service's request id (default `x-request-id`). */
  requestIdHeader?: string | undefined;
}

/**
 * openapi-fetch answers `{ data, error, response }` and has already read the body; this turns a
 * non-2xx into the typed error (any 2xx is success, D4).
 */
export function errorOf(
  result: { error?: unknown; response: Response },
  where: { method: string; url: string },
  ctx: ErrorContext,
): ApiError | undefined {
  const { response, error } = result;
  if (response.ok) return undefined;
  const text =
    error === undefined || error === null
      ? ''
      : typeof error === 'string'
        ? error
        : JSON.stringify(error);
  return apiErrorFrom(response, text, {
    ...where,
    redact: ctx.redact,
    requestIdHeader: ctx.requestIdHeader,
  });
}
