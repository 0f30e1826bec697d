/**
 * The SDK's tracing in a browser: `@rcs/client` with `openTelemetry()` from
 * `@rcs/client/otel` over the OpenTelemetry browser SDK (its in-memory exporter), against the
 * mock running in this page (its MSW handlers answer the client's fetch directly). The page
 * exposes `traceExport()` for the test: the spans, and the traceparent each request carried.
 */
import { context } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  StackContextManager,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createRcsClient } from '@rcs/client';
import { openTelemetry } from '@rcs/client/otel';
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

async function traceExport(): Promise<TracedRun> {
  context.setGlobalContextManager(new StackContextManager().enable());
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const api = createMockApi({ records: 300 });
  const seen: (string | null)[] = [];
  const rcs = createRcsClient({
    baseUrl: location.origin,
    apiKey: api.info.apiKeys[0],
    tracing: openTelemetry({ tracer: provider.getTracer('browser-example') }),
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
  context.setGlobalContextManager(new StackContextManager().enable());
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
  });
  const rcs = createRcsClient({
    baseUrl,
    apiKey,
    tracing: openTelemetry({ tracer: provider.getTracer('browser-example') }),
  });
  const page = await rcs.exports.users.list({ limit: 5 });
  return page.data.length;
}

Object.assign(window, { traceExport, traceRemote });
document.body.dataset.tracing = 'ready';
