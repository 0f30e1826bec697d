import { requestIdOf } from './api-error.js';
import type { Redactor } from './redact.js';
import { type ClientTracing, errorType, type TracedSpan } from './tracing.js';

/**
 * The spans of one logical HTTP request, as OpenTelemetry's HTTP client semantic
 * conventions ask: one CLIENT span per attempt on the wire, each with `http.request.method`,
 * `url.full` (credentials and query secrets removed), `url.template`, `server.address`,
 * `server.port`, its own `http.response.status_code` (a status of 400 or more, or a failure on
 * the wire, is its `error.type` and an ERROR status), `http.request.resend_count` on a resend
 * (the attempt's number: 1 for the first retry; absent on the first attempt) and the service's
 * request id as `http.response.header.<name>`. Each attempt's request carries the W3C
 * `traceparent` of its own span, so the service's spans join the trace under the attempt that
 * reached it. The attempts are children of the operation the request belongs to (a pagination,
 * a wait, the caller's active span); the time between them is the operation's: its retries, the
 * Retry-After waits and the rate controller's holds are events on that span with their
 * durations (`rcs.wait.duration_ms`). A request without such a span (no parent given, none
 * active) keeps them on its attempts: a retry on the attempt that is retried, a hold on the
 * attempt it held back.
 */
export interface RequestSpan {
  /**
   * An attempt goes on the wire now: its CLIENT span starts (the previous one, if still open,
   * ends). Returns the W3C trace-context headers that name it, for this attempt's request.
   */
  attempt(): Readonly<Record<string, string>>;
  /** The current attempt got an answer: its status and request id. */
  answered(response: Response): void;
  /**
   * The request is sent again after `waitMs`: a Retry-After the service asked for or a backoff.
   * Ends the current attempt (a failure on the wire when it got no answer: `reason` is its type).
   */
  retrying(reason: string, resendNumber: number, waitMs: number, retryAfter: boolean): void;
  /** The shared rate controller held the next attempt back this long (after a 429). */
  paced(waitedMs: number): void;
  /** Ends the attempt still open; with the error that ended the request, if any. */
  end(error?: unknown): void;
}

/** Query parameters whose values are secrets by their name (and the conventions' own list). */
const SECRET_QUERY = /key|token|secret|passw|pwd|auth|credential|signature|^sig$|^code$/i;

/** `url.full` as the conventions ask: no `user:password@`, secret query values REDACTED. */
export function safeUrl(raw: string, redact: Redactor): string {
  const url = new URL(raw);
  if (url.username || url.password) {
    url.username = 'REDACTED';
    url.password = 'REDACTED';
  }
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_QUERY.test(name)) url.searchParams.set(name, 'REDACTED');
  }
  return redact(url.href);
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

export function startRequestSpan(
  tracing: ClientTracing,
  request: { method: string; url: string; template?: string | undefined; parent?: TracedSpan },
  config: { redact: Redactor; requestIdHeader?: string | undefined },
): RequestSpan {
  const url = new URL(request.url);
  const name = request.template ? `${request.method} ${request.template}` : request.method;
  const attributes = {
    'http.request.method': request.method,
    'url.full': safeUrl(request.url, config.redact),
    'url.template': request.template,
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol],
  };
  const idHeader = (config.requestIdHeader ?? 'x-request-id').toLowerCase();
  // Where the time between attempts goes: the parent given, or the span active at the call.
  const operation = request.parent ?? tracing.activeSpan?.();
  let attempts = 0;
  let current: TracedSpan | undefined;
  let status: number | undefined;
  // Holds before an attempt when there is no operation span: put on the attempt they held back.
  const held: number[] = [];

  const close = (failure?: { type: string; message?: string }) => {
    if (current === undefined) return;
    // The conventions: a status of 400 or more is an error, its type the status code.
    if (failure) current.fail(failure.type, failure.message);
    else if (status !== undefined && status >= 400) current.fail(String(status));
    current.end();
    current = undefined;
  };

  return {
    attempt() {
      close();
      status = undefined;
      current = tracing.startSpan(name, {
        kind: 'client',
        ...(request.parent ? { parent: request.parent } : {}),
        attributes: {
          ...attributes,
          'http.request.resend_count': attempts > 0 ? attempts : undefined,
        },
      });
      attempts++;
      for (const ms of held.splice(0)) {
        current.addEvent('rcs.rate_limit.wait', { 'rcs.wait.duration_ms': ms });
      }
      return current.traceHeaders();
    },
    answered(response) {
      status = response.status;
      const requestId = requestIdOf(response.headers, config.requestIdHeader);
      current?.setAttributes({
        'http.response.status_code': response.status,
        [`http.response.header.${idHeader}`]: requestId === undefined ? undefined : [requestId],
      });
    },
    retrying(reason, resendNumber, waitMs, retryAfter) {
      (operation ?? current)?.addEvent('rcs.retry', {
        'rcs.retry.number': resendNumber,
        'rcs.retry.reason': reason,
        'rcs.wait.duration_ms': waitMs,
        'rcs.wait.source': retryAfter ? 'retry-after' : 'backoff',
      });
      close(status === undefined ? { type: reason } : undefined);
    },
    paced(waitedMs) {
      if (operation)
        operation.addEvent('rcs.rate_limit.wait', { 'rcs.wait.duration_ms': waitedMs });
      else held.push(waitedMs);
    },
    end(error) {
      close(
        error === undefined
          ? undefined
          : {
              type: errorType(error),
              message: error instanceof Error ? config.redact(error.message) : '',
            },
      );
    },
  };
}
