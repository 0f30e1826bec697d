import { apiErrorFrom } from './api-error.js';
import type { ApiError } from './errors.js';
import type { Redactor } from './redact.js';

/**
 * openapi-fetch answers `{ data, error, response }` and has already read the body; this turns a
 * non-2xx into the typed error (any 2xx is success, D4).
 */
export function errorOf(
  result: { error?: unknown; response: Response },
  where: { method: string; url: string },
  redact: Redactor,
): ApiError | undefined {
  const { response, error } = result;
  if (response.ok) return undefined;
  const text =
    error === undefined || error === null
      ? ''
      : typeof error === 'string'
        ? error
        : JSON.stringify(error);
  return apiErrorFrom(response, text, { ...where, redact });
}
