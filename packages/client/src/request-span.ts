import { requestIdOf } from './api-error.js';
import type { Redactor } from './redact.js';
import { type ClientTracing, errorType, type TracedSpan } from './tracing.js';

/**
 * The span of one logical HTTP request (issue 29), with the attributes of OpenTelemetry's HTTP
 * client semantic conventions: `http.request.method`, `url.full` (credentials and query secrets
 * removed), `server.address`, `server.port`, `http.response.status_code`,
 * `http.request.resend_count` (its retries), `error.type`, and the service's request id as
 * `http.response.header.<name>`. Its retries, Retry-After waits and the rate controller's waits
 * are events with their durations (`rcs.wait.duration_ms`). Every attempt carries the span's
 * W3C `traceparent`, so the service's own spans join the trace.
 */
export interface RequestSpan {
  readonly span: TracedSpan;
  /** An answer came (the last one decides the status). */
  answered(response: Response, resends: number): void;
  /** The request is sent again after `waitMs`: a Retry-After the service asked for or a backoff. */
  retrying(reason: string, resendNumber: number, waitMs: number, retryAfter: boolean): void;
  /** The shared rate controller held the attempt back this long (after a 429). */
  paced(waitedMs: number): void;
  /** Ends the span; with the error that ended the request, if any. */
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
  const path = request.template ?? '';
  const span = tracing.startSpan(path ? `${request.method} ${path}` : request.method, {
    kind: 'client',
    ...(request.parent ? { parent: request.parent } : {}),
    attributes: {
      'http.request.method': request.method,
      'url.full': safeUrl(request.url, config.redact),
      'url.template': request.template,
      'server.address': url.hostname.replace(/^\[|\]$/g, ''),
      'server.port': url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol],
    },
  });
  const idHeader = (config.requestIdHeader ?? 'x-request-id').toLowerCase();
  let status: number | undefined;
  return {
    span,
    answered(response, resends) {
      status = response.status;
      const requestId = requestIdOf(response.headers, config.requestIdHeader);
      span.setAttributes({
        'http.response.status_code': response.status,
        'http.request.resend_count': resends > 0 ? resends : undefined,
        [`http.response.header.${idHeader}`]: requestId === undefined ? undefined : [requestId],
      });
    },
    retrying(reason, resendNumber, waitMs, retryAfter) {
      span.addEvent('rcs.retry', {
        'rcs.retry.number': resendNumber,
        'rcs.retry.reason': reason,
        'rcs.wait.duration_ms': waitMs,
        'rcs.wait.source': retryAfter ? 'retry-after' : 'backoff',
      });
      span.setAttributes({ 'http.request.resend_count': resendNumber });
    },
    paced(waitedMs) {
      span.addEvent('rcs.rate_limit.wait', { 'rcs.wait.duration_ms': waitedMs });
    },
    end(error) {
      // The conventions: a status of 400 or more is an error, its type the status code.
      if (error !== undefined) {
        span.fail(errorType(error), error instanceof Error ? config.redact(error.message) : '');
      } else if (status !== undefined && status >= 400) span.fail(String(status));
      span.end();
    },
  };
}
