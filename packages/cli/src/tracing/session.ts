/**
 * The tracing of one `rcs` run (issue 29), in its own bundle chunk: loaded only when the
 * OpenTelemetry environment or `--trace-file` asks for traces (request.ts decides).
 *
 * The official OpenTelemetry JS packages do the work: the SDK's TracerProvider, the OTLP/HTTP
 * exporters (http/protobuf, the specification's default, or http/json), which read the
 * OTEL_EXPORTER_OTLP_* variables themselves, the environment's resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES), W3C trace context for TRACEPARENT / TRACESTATE (the specification's
 * environment carrier: the run joins its caller's trace), and the OTLP JSON serializer for
 * `--trace-file`.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { type Context, context, defaultTextMapGetter, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type ExportResult,
  ExportResultCode,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TracedSpan } from '@rcs/client';
import { openTelemetry, withActiveSpan } from '@rcs/client/otel';
import type { TraceAsk, TraceSession } from './request.js';

interface SessionOptions {
  env: NodeJS.ProcessEnv;
  /** The span name of the command: `rcs export all`, `rcs upload`, … */
  command: string;
  version: string;
  warn: (message: string) => void;
}

/**
 * `--trace-file`: each span as it ends, one OTLP JSON `ExportTraceServiceRequest` per line (the
 * OpenTelemetry file exporter's JSON Lines), appended synchronously: whatever way the run ends,
 * every span that ended is on disk.
 */
class FileSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const bytes = JsonTraceSerializer.serializeRequest(spans);
      if (bytes) appendFileSync(this.file, `${Buffer.from(bytes).toString('utf8')}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }
  async shutdown(): Promise<void> {}
}

/** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL; http/protobuf by default. */
function otlpExporter(env: NodeJS.ProcessEnv, warn: (m: string) => void): SpanExporter {
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (protocol === 'http/json') return new JsonExporter();
  if (protocol !== 'http/protobuf') {
    warn(
      `tracing: OTLP protocol ${protocol} is not supported (http/protobuf, http/json); using http/protobuf`,
    );
  }
  return new ProtobufExporter();
}

const errorTypeOf = (error: unknown) => (error instanceof Error ? error.name : '_OTHER');

export function startTraceSession(ask: TraceAsk, options: SessionOptions): TraceSession {
  const { env, warn } = options;
  const processors: SpanProcessor[] = [];
  if (ask.otlp) processors.push(new BatchSpanProcessor({ exporter: otlpExporter(env, warn) }));
  if (ask.file !== undefined) {
    try {
      // A new file per run: the spans of this run only.
      writeFileSync(ask.file, '');
    } catch (error) {
      warn(
        `tracing: cannot write --trace-file ${ask.file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); no trace file`,
      );
    }
    processors.push(new SimpleSpanProcessor({ exporter: new FileSpanExporter(ask.file) }));
  }
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'rcs', 'service.version': options.version }))
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win over the defaults.
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, spanProcessors: processors });
  const tracer = provider.getTracer('@rcs/cli', options.version);
  // Node's async context carries the current span into every request of the command.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);

  // The caller's trace (a CI job's span), handed over in the environment.
  const carrier = { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE };
  const parent: Context = new W3CTraceContextPropagator().extract(
    ROOT_CONTEXT,
    carrier,
    defaultTextMapGetter,
  );
  const clientTracing = openTelemetry({ tracer });
  /** Spans started and not ended yet: ended (as interrupted) if the run is cut short. */
  const open = new Set<TracedSpan>();
  let command: TracedSpan | undefined;

  const end = (span: TracedSpan) => {
    open.delete(span);
    span.end();
  };

  // A second Ctrl-C / SIGTERM ends the process at once (program.ts): first, the spans still
  // open are ended, so the trace file holds them too. (Prepended: it runs before that exit.)
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals < 2) return;
    for (const span of [...open].reverse()) {
      span.addEvent('rcs.interrupted', { 'rcs.signal': signal });
      span.fail('interrupted', `interrupted (${signal})`);
      end(span);
    }
  };
  process.prependListener('SIGINT', onSignal);
  process.prependListener('SIGTERM', onSignal);

  const session: TraceSession = {
    clientTracing,
    async inSpan(name, attributes, work) {
      // A child of the span current here (the command's, or an export's).
      const span = clientTracing.startSpan(name, { kind: 'internal', attributes });
      open.add(span);
      try {
        return await withActiveSpan(span, () => work(span));
      } catch (error) {
        span.fail(errorTypeOf(error), (error as Error)?.message);
        throw error;
      } finally {
        end(span);
      }
    },
    async inCommand(work) {
      const span = context.with(parent, () =>
        clientTracing.startSpan(options.command, {
          kind: 'internal',
          attributes: { 'rcs.command': options.command },
        }),
      );
      command = span;
      open.add(span);
      return withActiveSpan(span, work);
    },
    async finish(exitCode) {
      if (command) {
        command.setAttributes({ 'process.exit.code': exitCode });
        if (exitCode !== 0) command.fail(`exit ${exitCode}`);
        end(command);
      }
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      try {
        // Every span to the collector and the file before the process ends.
        await provider.forceFlush();
        await provider.shutdown();
      } catch (error) {
        warn(
          `tracing: the spans could not all be exported (${(error as Error)?.message ?? error})`,
        );
      }
      context.disable();
    },
  };
  return session;
}
