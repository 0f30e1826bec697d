/**
 * What the client needs of a tracer, as a structural interface: the main entry never
 * imports `@opentelemetry/api`, so a client without tracing costs nothing and bundles nothing.
 * `openTelemetry()` from `@rcs/client/otel` implements it over an OpenTelemetry `Tracer` (the one
 * given, or the global one); any other tracer can be adapted the same way.
 */

/** An attribute value as OpenTelemetry takes it (undefined: not set). */
export type TraceAttributeValue = string | number | boolean | readonly string[] | undefined;
export type TraceAttributes = Readonly<Record<string, TraceAttributeValue>>;

/** One span of the client: an HTTP request, a pagination, a wait. */
export interface TracedSpan {
  setAttributes(attributes: TraceAttributes): void;
  addEvent(name: string, attributes?: TraceAttributes): void;
  /** Marks the span failed: status ERROR, `error.type` set (semantic conventions). */
  fail(errorType: string, message?: string): void;
  end(): void;
  /**
   * The W3C trace-context headers (`traceparent`, `tracestate`) that name this span, for the
   * request it stands for; empty when the span is not recorded or has no valid context.
   */
  traceHeaders(): Readonly<Record<string, string>>;
}

export interface ClientTracing {
  /**
   * Starts a span: a child of `parent` when given, else of whatever span is active in the
   * caller's context (so the client's spans nest under the caller's own).
   */
  startSpan(
    name: string,
    options: { kind: 'client' | 'internal'; attributes?: TraceAttributes; parent?: TracedSpan },
  ): TracedSpan;
  /**
   * The span active in the caller's context, if it records: a request started without a parent
   * puts the events of its operation there (retries, waits), between its attempts' spans.
   * Optional: without it those events go on the attempts themselves.
   */
  activeSpan?(): TracedSpan | undefined;
}

/** The error's type for `error.type`: its class name (TimeoutError, ConnectionError, …). */
export function errorType(error: unknown): string {
  if (error instanceof Error) {
    return error.name === 'Error' ? 'Error' : error.name;
  }
  return '_OTHER';
}
