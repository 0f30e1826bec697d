import { withoutTrailingSlashes } from '@rcs/client/internal';
/**
 * D26: CORS, so that a page served by a dev server on another origin can call `rcs mock`, as
 * Prism does. Default: any origin. `origins` limits it (`rcs mock --cors-origin`); `false` turns it
 * off (`--no-cors`). The API's credentials travel in headers, never cookies, so no
 * Allow-Credentials is needed.
 */
export type CorsOption = boolean | { origins: readonly string[] };

const CORS_ALLOW_METHODS = 'GET, POST';
// The W3C trace context rides along when the SDK traces (D26), so a traced page can call the mock.
const CORS_ALLOW_HEADERS = 'X-API-Key, Authorization, Content-Type, traceparent, tracestate';
const CORS_EXPOSE_HEADERS = 'x-request-id, Retry-After';
/** How long a browser may cache a preflight answer (seconds). */
const CORS_MAX_AGE = '600';

export interface CorsPolicy {
  /** The headers every answer to a request from `origin` carries (none when not allowed). */
  answerHeaders(origin: string | undefined): Record<string, string>;
  /** The headers of a preflight answer, or undefined when the origin is not allowed. */
  preflightHeaders(origin: string | undefined): Record<string, string> | undefined;
  readonly enabled: boolean;
}

export function corsPolicy(option: CorsOption | undefined): CorsPolicy {
  const enabled = option !== false;
  const listed =
    typeof option === 'object'
      ? new Set(option.origins.map((o) => withoutTrailingSlashes(o)))
      : null;
  const allowed = (origin: string | undefined): string | undefined => {
    if (!enabled) return undefined;
    if (listed === null) return origin ?? '*';
    return origin !== undefined && listed.has(origin) ? origin : undefined;
  };
  return {
    enabled,
    answerHeaders(origin): Record<string, string> {
      const allow = allowed(origin);
      if (allow === undefined) return enabled && listed !== null ? { vary: 'Origin' } : {};
      return {
        'access-control-allow-origin': allow,
        'access-control-expose-headers': CORS_EXPOSE_HEADERS,
        vary: 'Origin',
      };
    },
    preflightHeaders(origin) {
      const allow = allowed(origin);
      if (allow === undefined) return undefined;
      return {
        'access-control-allow-origin': allow,
        'access-control-allow-methods': CORS_ALLOW_METHODS,
        'access-control-allow-headers': CORS_ALLOW_HEADERS,
        'access-control-max-age': CORS_MAX_AGE,
        vary: 'Origin',
      };
    },
  };
}
