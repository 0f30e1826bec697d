/**
 * The tracing of one `rcs` run, in its own bundle chunk: loaded only when the
 * OpenTelemetry environment or `--trace-file` asks for traces (request.ts decides).
 *
 * The official OpenTelemetry JS packages do the work: the SDK's TracerProvider, the OTLP/HTTP
 * exporters (http/protobuf, the specification's default, or http/json), which read the
 * OTEL_EXPORTER_OTLP_* variables themselves, the environment's resource (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES), W3C trace context for TRACEPARENT / TRACESTATE (the specification's
 * environment carrier: the run joins its caller's trace), and the OTLP JSON serializer for
 * `--trace-file`.
 */
import { writeSync } from 'node:fs';
import {
  type Context,
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanStatusCode,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
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
  type Span,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TracedSpan } from '@rcs/client';
import { openTelemetry, withActiveSpan } from '@rcs/client/otel';
import { openNoFollowSync } from '@rcs/export/internal';
import { InterruptedError, interruptedExitCode, isUnsafeFile } from '../errors.js';
import { onForcedExit } from '../forced-exit.js';
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
 * OpenTelemetry file exporter's JSON Lines), appended synchronously, in `onEnd` itself (the SDK's
 * SimpleSpanProcessor defers its export to a promise): whatever way the run ends, a forced exit
 * included (forced-exit.ts), every span that ended is on disk.
 */
class FileSpanProcessor implements SpanProcessor {
  /** The trace file's descriptor; unset when it cannot be written (warned once at the start). */
  constructor(private fd: number | undefined) {}
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    if (this.fd === undefined) return;
    try {
      const bytes = JsonTraceSerializer.serializeRequest([span]);
      if (bytes) writeSync(this.fd, `${Buffer.from(bytes).toString('utf8')}\n`);
    } catch {
      // A full disk mid-run: tracing never changes a run's outcome (docs/cli-reference.md "Tracing").
      this.fd = undefined;
    }
  }
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/**
 * The spans started and not ended yet, every one (the command, its exports or files, the
 * requests in flight), so that a forced exit can end them as interrupted, innermost first.
 */
class OpenSpans implements SpanProcessor {
  private readonly open = new Map<object, Span>();
  onStart(span: Span): void {
    this.open.set(span, span);
  }
  onEnd(span: ReadableSpan): void {
    this.open.delete(span);
  }
  /** Ends every open span, latest started first, with status ERROR `interrupted (SIGINT)`. */
  interrupt(signal: string): void {
    for (const span of [...this.open.values()].reverse()) {
      span.addEvent('rcs.interrupted', { 'rcs.signal': signal });
      span.setAttribute('error.type', 'interrupted');
      span.setStatus({ code: SpanStatusCode.ERROR, message: `interrupted (${signal})` });
      span.end();
    }
  }
  async forceFlush(): Promise<void> {}
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
  // Knows the spans a forced exit leaves open; ending them hands them to the other processors.
  const openSpans = new OpenSpans();
  const processors: SpanProcessor[] = [openSpans];
  if (ask.otlp) processors.push(new BatchSpanProcessor({ exporter: otlpExporter(env, warn) }));
  if (ask.file !== undefined) {
    let fd: number | undefined;
    try {
      // A new file per run: the spans of this run only. Opened once, never through a link planted
      // in its place: truncating through one would empty someone else's file.
      fd = openNoFollowSync(ask.file, 'truncate');
    } catch (error) {
      warn(
        isUnsafeFile(error)
          ? `tracing: refused --trace-file: ${error.message}; no trace file`
          : `tracing: cannot write --trace-file ${ask.file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); no trace file`,
      );
    }
    processors.push(new FileSpanProcessor(fd));
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
  let command: TracedSpan | undefined;
  let commandEnded = false;

  // A forced exit (the graceful stop's deadline, a second Ctrl-C / SIGTERM: program.ts) ends the
  // spans still open as interrupted: the trace file gets them at once (FileSpanProcessor); a
  // collector gets one bounded flush at the deadline.
  const forgetForcedExit = onForcedExit({
    now(signal) {
      if (command && !commandEnded) {
        command.setAttributes({
          'process.exit.code': interruptedExitCode(new InterruptedError(signal)),
        });
      }
      openSpans.interrupt(signal);
    },
    flush: () => provider.forceFlush(),
  });

  const session: TraceSession = {
    clientTracing,
    async inSpan(name, attributes, work) {
      // A child of the span current here (the command's, or an export's).
      const span = clientTracing.startSpan(name, { kind: 'internal', attributes });
      try {
        return await withActiveSpan(span, () => work(span));
      } catch (error) {
        span.fail(errorTypeOf(error), (error as Error)?.message);
        throw error;
      } finally {
        span.end();
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
      return withActiveSpan(span, work);
    },
    async finish(exitCode) {
      if (command) {
        command.setAttributes({ 'process.exit.code': exitCode });
        if (exitCode !== 0) command.fail(`exit ${exitCode}`);
        commandEnded = true;
        command.end();
      }
      try {
        // Every span to the collector before the process ends. (After a signal, the graceful
        // stop's deadline bounds this; then the forced exit's flush gets its second.)
        await provider.forceFlush();
        await provider.shutdown();
      } catch (error) {
        warn(
          `tracing: the spans could not all be exported (${(error as Error)?.message ?? error})`,
        );
      }
      forgetForcedExit();
      context.disable();
    },
  };
  return session;
}
