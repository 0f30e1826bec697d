import { sleep } from '@rcs/client/internal';
import type { OrgData } from '../dataset.js';
import type { FaultKind } from '../faults.js';
import { internalErrorBody, ProblemError, problemResponse } from '../problem.js';
import type { OrgState } from '../store.js';
import type { HandlerContext } from './context.js';

export interface Guarded {
  org: OrgState;
  now: number;
}

/** The credential a rate limit counts against (D2: per key); anonymous callers share one. */
function credentialOf(headers: Headers): string {
  return headers.get('x-api-key') ?? headers.get('authorization') ?? 'anonymous';
}

/**
 * The common front of every operation, in this order: rate limit (429), injected fault
 * (before any state change), the optional `before` (e.g. the 413 body check), authentication (401, D22),
 * the processing queue brought up to the clock (D18), then the operation in the caller's
 * organization (D23). Problems become D1 answers; nothing else is ever thrown to MSW.
 *
 * `latencyMs` is the time an answer takes, as a client of a remote service sees it: every
 * answer (a 429 or a dropped connection too) leaves no sooner than `latencyMs` after its
 * request arrived, and the mock's own work happens within that time rather than after it
 * (added after it, the mock's work would be counted against the client by latency benches).
 */
export async function guarded<T = undefined>(
  ctx: HandlerContext,
  kind: FaultKind,
  request: Request,
  run: (g: Guarded, prepared: T) => Promise<Response> | Response,
  before?: () => Promise<T>,
): Promise<Response> {
  const due = performance.now() + ctx.faults.latencyMs;
  const response = await answer(ctx, kind, request, run, before);
  const wait = due - performance.now();
  if (wait > 0) await sleep(wait);
  return response;
}

async function answer<T>(
  ...[ctx, kind, request, run, before]: Parameters<typeof guarded<T>>
): Promise<Response> {
  try {
    const limited = ctx.faults.rateLimit(credentialOf(request.headers), ctx.clock.now());
    if (limited) throw limited;
    const fault = ctx.faults.injected(kind);
    if (fault?.kind === 'drop') return Response.error();
    if (fault?.kind === 'problem') throw fault.problem;
    const prepared = (await before?.()) as T;
    const orgData: OrgData = await ctx.auth.authenticate(request.headers);
    const now = ctx.clock.now();
    ctx.store.advance(now);
    return await run({ org: ctx.store.org(orgData.id), now }, prepared);
  } catch (err) {
    if (err instanceof ProblemError) return problemResponse(err);
    // A bug, not a client error: still a problem body, and visible in the server's log.
    console.error('[rcs mock] unexpected error:', err);
    return new Response(internalErrorBody(err), {
      status: 500,
      headers: { 'content-type': 'application/problem+json' },
    });
  }
}

export const json = (
  body: unknown,
  status: number,
  headers: Record<string, string> = {},
): Response =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
