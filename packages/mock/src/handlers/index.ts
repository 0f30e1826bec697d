import { http, type RequestHandler } from 'msw';
import { clipEcho, ProblemError, problemResponse } from '../problem.js';
import type { HandlerContext } from './context.js';
import { type ExportRoute, exportHandlers } from './exports.js';
import { sessionHandlers } from './sessions.js';

/** Where every operation of the API lives: at the root of the service's origin (openapi.yaml). */
const API_PREFIX = '/api/v1';

/**
 * A path with `/api/v1` somewhere other than at its start (`/foo/api/v1/…`, from a base URL with
 * a path) is not the API: the real service answers 404 there, so the mock does too, naming the
 * expected prefix. The operations' patterns (`*\/api/v1/…`) match any origin, and their
 * `*` would match such a prefix as well, so this comes first; a path that starts with the prefix
 * falls through to them (an MSW resolver that returns nothing passes the request on).
 */
function outsideTheApi(): RequestHandler {
  return http.all(`*${API_PREFIX}/*`, ({ request }) => {
    const path = new URL(request.url).pathname;
    if (path.startsWith(`${API_PREFIX}/`)) return undefined;
    return problemResponse(
      new ProblemError(
        404,
        'not_found',
        `No operation ${request.method} ${clipEcho(path)}: the API's paths start with ${API_PREFIX} at the root of the service, so a base URL is the service's origin (no path before ${API_PREFIX}).`,
      ),
    );
  });
}

/** All 11 operations, then a 404 problem for any other path under /api/v1 (D1). */
export function createHandlers(
  ctx: HandlerContext,
  exportRoutes?: Map<string, ExportRoute>,
): RequestHandler[] {
  return [
    outsideTheApi(),
    ...sessionHandlers(ctx),
    ...exportHandlers(ctx, exportRoutes),
    http.all(`*${API_PREFIX}/*`, ({ request }) =>
      problemResponse(
        new ProblemError(
          404,
          'not_found',
          `No operation ${request.method} ${new URL(request.url).pathname}.`,
        ),
      ),
    ),
  ];
}
