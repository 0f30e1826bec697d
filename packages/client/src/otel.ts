/**
 * `@rcs/client/otel`: the client's spans over OpenTelemetry's API, the optional peer
 * dependency `@opentelemetry/api`. Only this entry imports it, so the main entry stays free of it.
 *
 *   import { openTelemetry } from '@rcs/client/otel';
 *   createRcsClient({ baseUrl, apiKey, tracing: openTelemetry() });          // the global tracer
 *   createRcsClient({ baseUrl, apiKey, tracing: openTelemetry({ tracer }) }); // a tracer of yours
 *
 * The API is the same in Node, Bun, Deno, browsers and workers; the tracer provider (an
 * OpenTelemetry SDK) decides where spans go, and without one every span is a no-op.
 */
import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { ClientTracing, TraceAttributes, TracedSpan } from './tracing.js';
import { CLIENT_VERSION } from './version.js';

export interface OpenTelemetryOptions {
  /** The tracer to use; default the global one, `trace.getTracer('@rcs/client')`. */
  tracer?: Tracer | undefined;
  /**
   * Send each request's `traceparent` / `tracestate` (default true). In a browser these headers
   * make a cross-origin request need a CORS preflight that allows them (`rcs mock` allows both,
   * D26); turn this off for a service whose CORS does not.
   */
  propagate?: boolean | undefined;
}

/** The OpenTelemetry span behind each span this adapter handed out (a parent is looked up). */
const spans = new WeakMap<TracedSpan, Span>();

function attributesOf(attributes: TraceAttributes | undefined): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value !== undefined) out[key] = Array.isArray(value) ? [...value] : (value as string);
  }
  return out;
}

function wrap(span: Span, propagate: boolean): TracedSpan {
  const traced: TracedSpan = {
    setAttributes: (attributes) => {
      span.setAttributes(attributesOf(attributes));
    },
    addEvent: (name, attributes) => {
      span.addEvent(name, attributesOf(attributes));
    },
    fail: (errorType, message) => {
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
    },
    end: () => span.end(),
    traceHeaders: () => {
      const sc = span.spanContext();
      // A no-op tracer's span has no valid context: nothing to propagate.
      if (!propagate || !isSpanContextValid(sc)) return {};
      // W3C Trace Context, version 00: the span's own id as the parent of the service's spans.
      const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, '0');
      const headers: Record<string, string> = {
        traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}`,
      };
      const state = sc.traceState?.serialize();
      if (state) headers.tracestate = state;
      return headers;
    },
  };
  spans.set(traced, span);
  return traced;
}

/**
 * Runs `work` with `span` (one of `openTelemetry()`'s) as the active span, so the spans started
 * within (by this client or any other instrumentation) are its children.
 */
export function withActiveSpan<T>(span: TracedSpan, work: () => T): T {
  const otel = spans.get(span);
  return otel ? context.with(trace.setSpan(context.active(), otel), work) : work();
}

export function openTelemetry(options: OpenTelemetryOptions = {}): ClientTracing {
  // The global tracer is a proxy: a provider registered after this call is used as well.
  const tracer = options.tracer ?? trace.getTracer('@rcs/client', CLIENT_VERSION);
  return {
    startSpan(name, o) {
      const parent = o.parent && spans.get(o.parent);
      const ctx: Context = parent ? trace.setSpan(context.active(), parent) : context.active();
      const kind = o.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
      const span = tracer.startSpan(name, { kind, attributes: attributesOf(o.attributes) }, ctx);
      return wrap(span, options.propagate !== false);
    },
    activeSpan() {
      const span = trace.getActiveSpan();
      // A remote parent (TRACEPARENT) or a sampled-out span records nothing: no events there.
      return span?.isRecording() ? wrap(span, options.propagate !== false) : undefined;
    },
  };
}
