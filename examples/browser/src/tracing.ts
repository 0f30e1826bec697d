/**
 * The SDK's tracing in a browser: `@rcs/client` with `openTelemetry()` from
 * `@rcs/client/otel` over the OpenTelemetry SDK set up as `browserTracing` below (the client
 * README's browser setup; here with the SDK's in-memory exporter), against the
 * mock running in this page (its MSW handlers answer the client's fetch directly). The page
 * exposes `traceExport()` for the test: the spans, and the traceparent each request carried.
 */
import { InMemorySpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace';
import { createRcsClient } from '@rcs/client';
import { createMockApi } from '@rcs/mock';
import { getResponse } from 'msw';

export interface TracedRun {
  records: number;
  seen: (string | null)[];
  spans: {
    name: string;
    kind: number;
    traceId: string;
    spanId: string;
    parentSpanId: string | undefined;
    attributes: Record<string, unknown>;
  }[];
}

// #region browser-setup (the client README's "In a browser" shows this function as it is here)
/**
 * OpenTelemetry in a page, loaded lazily (the SDK is fetched with the first traced call, not with
 * the page): a provider, a batching processor to your exporter, and the stack context manager
 * (a browser has no async hooks: the span active where a call is made is its parent).
 */
export async function browserTracing(exporter: SpanExporter) {
  const [{ context }, sdk, { openTelemetry }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@rcs/client/otel'),
  ]);
  context.setGlobalContextManager(new sdk.StackContextManager().enable());
  const provider = new sdk.TracerProvider({
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  return { provider, tracing: openTelemetry({ tracer: provider.getTracer('my-app') }) };
}
// #endregion

async function traceExport(): Promise<TracedRun> {
  const exporter = new InMemorySpanExporter();
  const { provider, tracing } = await browserTracing(exporter);
  const api = createMockApi({ records: 300 });
  const seen: (string | null)[] = [];
  const rcs = createRcsClient({
    baseUrl: location.origin,
    apiKey: api.info.apiKeys[0],
    tracing,
    fetch: async (request) => {
      seen.push(request.headers.get('traceparent'));
      return (await getResponse(api.handlers, request)) ?? new Response(null, { status: 404 });
    },
  });
  const records = (await rcs.exports.users.all({ limit: 25 }).toArray()).length;
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans().map((s) => ({
    name: s.name,
    kind: s.kind,
    traceId: s.spanContext().traceId,
    spanId: s.spanContext().spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    attributes: { ...s.attributes },
  }));
  return { records, seen, spans };
}

/**
 * A traced call to a real `rcs mock` on another origin: the browser's own fetch sends the
 * `traceparent` header, so the mock's CORS preflight must allow it (D26). Gives the records read.
 */
async function traceRemote(baseUrl: string, apiKey: string): Promise<number> {
  const { tracing } = await browserTracing(new InMemorySpanExporter());
  const rcs = createRcsClient({ baseUrl, apiKey, tracing });
  const page = await rcs.exports.users.list({ limit: 5 });
  return page.data.length;
}

Object.assign(window, { traceExport, traceRemote });
document.body.dataset.tracing = 'ready';
