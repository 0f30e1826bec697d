import { http, type RequestHandler } from 'msw';
import { ProblemError, problemResponse } from '../problem.js';
import type { HandlerContext } from './context.js';
import { type ExportRoute, exportHandlers } from './exports.js';
import { sessionHandlers } from './sessions.js';

/** All 11 operations, then a 404 problem for any other path under /api/v1 (D1). */
export function createHandlers(
  ctx: HandlerContext,
  exportRoutes?: Map<string, ExportRoute>,
): RequestHandler[] {
  return [
    ...sessionHandlers(ctx),
    ...exportHandlers(ctx, exportRoutes),
    http.all('*/api/v1/*', ({ request }) =>
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
