import { requestIdOf } from './api-error.js';
import { backoffDelay, MAX_TIMER_MS, sleep } from './backoff.js';
import { errorOf } from './call.js';
import {
  ApiError,
  ConnectionError,
  RateLimitError,
  RcsError,
  ServerError,
  UnexpectedAnswerError,
  WaitTimeoutError,
} from './errors.js';
import type { ExportDeps } from './exports.js';
import { parseRetryAfter } from './retry-after.js';
import { errorType } from './tracing.js';
import type { RequestOptions, RequestStats, TracedRequestOptions } from './transport.js';
import type { CreateRealCallSessionRequest, RealCallSession } from './types.js';

export interface WaitOptions {
  /** Give up after this long (default 10 minutes) with a WaitTimeoutError carrying the id. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Called with every session read, DONE included (a progress display learns the end
   * from the same callback as the steps before it), before the wait resolves with it.
   */
  onProgress?: (session: RealCallSession) => void;
  /** First pause between reads (default 1 s); grows ×1.5 per read, with jitter. */
  initialIntervalMs?: number;
  /** Longest pause between reads (default 15 s), unless the service asks for longer. */
  maxIntervalMs?: number;
  /** A tally of the caller's own that every read is counted into (`RequestOptions.stats`). */
  stats?: RequestStats;
}

export interface SessionsApi {
  /** POST /real-call-sessions: answers 201 before processing has finished (R10, D18). */
  create(body: CreateRealCallSessionRequest, options?: RequestOptions): Promise<RealCallSession>;
  /** GET /real-call-sessions/{id}: any 2xx is success (D4: the mock answers 201). */
  get(sessionId: string, options?: RequestOptions): Promise<RealCallSession>;
  /** Reads the session until `state` is DONE (D18); resolves with the DONE session. */
  waitUntilDone(sessionId: string, options?: WaitOptions): Promise<RealCallSession>;
}

export interface SessionDeps extends ExportDeps {
  maxRetryAfterMs: number;
}

const CREATE_PATH = '/api/v1/real-call-sessions';
const SESSION_PATH = '/api/v1/real-call-sessions/{sessionId}';

export function createSessions(deps: SessionDeps): SessionsApi {
  async function create(body: CreateRealCallSessionRequest, options: RequestOptions = {}) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new RcsError(
        'sessions.create needs a request body object { transcript, meetingName, … }',
      );
    }
    // Not idempotent unless the caller says so: a POST that may have reached the service is
    // never repeated (the transport's rule), so a session is not created twice.
    const result = await deps.api.POST(CREATE_PATH, {
      body,
      fetch: deps.transport({ ...options, urlTemplate: CREATE_PATH }),
    });
    return sessionOf(result, { method: 'POST', url: `${deps.baseUrl}${CREATE_PATH}` }, deps);
  }

  async function read(sessionId: string, options: TracedRequestOptions = {}) {
    if (typeof sessionId !== 'string' || sessionId.trim() === '') {
      throw new RcsError(`sessionId must be a non-empty string (a UUID), got ${String(sessionId)}`);
    }
    const result = await deps.api.GET('/api/v1/real-call-sessions/{sessionId}', {
      params: { path: { sessionId } },
      fetch: deps.transport({ ...options, urlTemplate: SESSION_PATH }),
    });
    const url = `${deps.baseUrl}/api/v1/real-call-sessions/${encodeURIComponent(sessionId)}`;
    return { session: sessionOf(result, { method: 'GET', url }, deps), response: result.response };
  }

  async function get(sessionId: string, options: RequestOptions = {}) {
    return (await read(sessionId, options)).session;
  }

  async function waitUntilDone(sessionId: string, options: WaitOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 10 * 60_000;
    const initial = options.initialIntervalMs ?? 1_000;
    const maxInterval = options.maxIntervalMs ?? 15_000;
    // A zero interval would poll in a tight loop until the deadline: intervals must be > 0.
    for (const [name, v, min] of [
      ['timeoutMs', timeoutMs, 0],
      ['initialIntervalMs', initial, 1],
      ['maxIntervalMs', maxInterval, 1],
    ] as const) {
      if (!Number.isFinite(v) || v < min) {
        throw new RcsError(`waitUntilDone: ${name} must be a number ≥ ${min}, got ${v}`);
      }
    }
    // One deadline for the whole wait: it cuts a read in flight as well as a pause.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), Math.min(timeoutMs, MAX_TIMER_MS));
    const signal = options.signal
      ? AbortSignal.any([options.signal, deadline.signal])
      : deadline.signal;
    let lastState: string | undefined;
    let lastFailure: unknown;
    // The wait's span: its reads are children, its pauses events.
    const span = deps.tracing?.startSpan('rcs.session.wait', {
      kind: 'internal',
      attributes: { 'rcs.session.id': sessionId, 'rcs.wait.timeout_ms': timeoutMs },
    });
    let polls = 0;
    try {
      for (let n = 0; ; n++) {
        let askedMs: number | undefined;
        try {
          polls++;
          const { session, response } = await read(sessionId, {
            signal,
            parentSpan: span,
            stats: options.stats,
          });
          options.onProgress?.(session);
          if (session.state === 'DONE') {
            span?.setAttributes({ 'rcs.session.state': session.state });
            return session;
          }
          lastState = session.state;
          askedMs = parseRetryAfter(response.headers.get('retry-after'));
          lastFailure = undefined;
        } catch (error) {
          // Transient failures that outlasted the transport's retries (a rate limit, a 5xx, a
          // dropped connection) are a reason to slow down, not to give up a long wait; anything
          // else (401, 404, …) ends it.
          const transient =
            error instanceof RateLimitError ||
            error instanceof ServerError ||
            error instanceof ConnectionError;
          if (signal.aborted || !transient) throw error;
          lastFailure = error;
          // A 429 or a 5xx may say when to come back (Retry-After); capped like every wait.
          if (error instanceof ApiError) askedMs = error.retryAfterMs;
        }
        // Exponential (×1.5) under a cap, with "equal jitter": never less than half the step,
        // so polling never degenerates into a tight loop (backoff.ts).
        let pause = backoffDelay(n, initial, maxInterval, 1.5, 0.5);
        if (askedMs !== undefined) pause = Math.max(pause, Math.min(askedMs, deps.maxRetryAfterMs));
        span?.addEvent('rcs.poll.wait', {
          'rcs.wait.duration_ms': pause,
          'rcs.wait.source': askedMs === undefined ? 'backoff' : 'retry-after',
          'rcs.session.state': lastState,
        });
        await sleep(pause, signal);
      }
    } catch (error) {
      const failure =
        deadline.signal.aborted && !options.signal?.aborted
          ? new WaitTimeoutError(sessionId, timeoutMs, lastState, lastFailure)
          : error;
      span?.setAttributes({ 'rcs.session.state': lastState });
      span?.fail(errorType(failure), failure instanceof Error ? failure.message : undefined);
      throw failure;
    } finally {
      clearTimeout(timer);
      span?.setAttributes({ 'rcs.wait.polls': polls });
      span?.end();
    }
  }

  return { create, get, waitUntilDone };
}

/**
 * The session of an answer: a non-2xx is its ApiError; a 2xx is checked as far as a caller relies
 * on it (an object with its `id` and `state`: no array or primitive has them): anything else is an
 * UnexpectedAnswerError naming the endpoint and request id, never a TypeError in the caller's code.
 */
function sessionOf(
  result: { data?: unknown; error?: unknown; response: Response },
  where: { method: string; url: string },
  deps: Pick<SessionDeps, 'requestIdHeader' | 'redact'>,
): RealCallSession {
  const error = errorOf(result, where, deps);
  if (error) throw error;
  const s = result.data as Partial<RealCallSession> | null | undefined;
  if (typeof s?.id === 'string' && typeof s.state === 'string') return s as RealCallSession;
  const shown = result.data === undefined ? 'an empty body' : JSON.stringify(result.data);
  throw new UnexpectedAnswerError({
    status: result.response.status,
    ...where,
    requestId: requestIdOf(result.response.headers, deps.requestIdHeader),
    expected: 'a session with an id and a state',
    got: deps.redact(shown.length > 80 ? `${shown.slice(0, 77)}...` : shown),
  });
}
