import { UUID_PATTERN } from '@rcs/transcript';
import { http, type RequestHandler } from 'msw';
import { parseJsonBody, readBody } from '../body.js';
import { sessionView } from '../lifecycle.js';
import { ProblemError, validationFailed } from '../problem.js';
import { parseCreateBody } from '../request-schemas.js';
import { createSession } from '../rules/create-session.js';
import type { HandlerContext } from './context.js';
import { guarded, json } from './guard.js';

const SESSIONS = '*/api/v1/real-call-sessions';

export function sessionHandlers(ctx: HandlerContext): RequestHandler[] {
  return [
    http.post(SESSIONS, ({ request }) =>
      guarded(
        ctx,
        'create',
        request,
        ({ org, now }, bytes) => {
          const body = parseCreateBody(parseJsonBody(bytes, request.headers.get('content-type')));
          const session = createSession(ctx.store, org, body, now, ctx.processingMs);
          // Opt-in fault: the session exists, but the client never learns its id.
          if (ctx.faults.dropAfterCreate()) return Response.error();
          // D18 / R10: answered PENDING, participants unresolved.
          return json(sessionView(session, now, true), 201, {
            location: `/api/v1/real-call-sessions/${session.id}`,
          });
        },
        // D2: 413 over 1 MiB before parsing, and before anything else is looked at.
        () => readBody(request),
      ),
    ),
    http.get(`${SESSIONS}/:sessionId`, ({ request, params }) =>
      guarded(ctx, 'read', request, ({ org, now }) => {
        const id = String(params.sessionId);
        if (!UUID_PATTERN.test(id)) {
          throw validationFailed([{ path: '/path/sessionId', message: 'must be a UUID' }]);
        }
        // D2 / D23: another organization's session is as unknown as a missing one (404).
        const s = org.findSession(id);
        if (!s) throw new ProblemError(404, 'not_found', `No session ${id}.`);
        // D4: the description lists 201 as the success status of this read.
        return json(sessionView(s, now), 201);
      }),
    ),
  ];
}
