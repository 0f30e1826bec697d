import type { ClientTracing, TraceAttributes, TracedSpan } from '@rcs/client';

/**
 * Whether this run is to be traced, read from the OpenTelemetry environment and
 * `--trace-file` without loading anything: a run that does not ask loads no OpenTelemetry module
 * (its own bundle chunk, tracing/session.ts) and pays nothing at start-up (bench/cli).
 */
export interface TraceAsk {
  /** Export over OTLP/HTTP to the collector the OTEL_EXPORTER_OTLP_* variables name. */
  otlp: boolean;
  /** Write the spans as OTLP JSON to this file (`--trace-file`, RCS_TRACE_FILE). */
  file: string | undefined;
}

const isTrue = (v: string | undefined) => v?.trim().toLowerCase() === 'true';

function traceAsk(env: NodeJS.ProcessEnv, traceFile: string | undefined): TraceAsk | undefined {
  const file = traceFile ?? (env.RCS_TRACE_FILE || undefined);
  // OTEL_SDK_DISABLED turns the OpenTelemetry environment off; a trace file asked for by name
  // (flag or RCS_TRACE_FILE) is still written.
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const endpoint = Boolean(
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT,
  );
  // Only when asked: `otlp` named, or (no exporter named) a collector endpoint set. `none` is off.
  const otlp =
    !isTrue(env.OTEL_SDK_DISABLED) &&
    (exporters.includes('otlp') || (exporters.length === 0 && endpoint));
  if (!otlp && file === undefined) return undefined;
  return { otlp, file };
}

/** What commands see of a traced run: spans for their own units of work (an export, a file). */
export interface RunTracer {
  /** The client's tracing: its request spans become children of the span current here. */
  readonly clientTracing: ClientTracing;
  /** Runs `work` in a child span of the current one; a throw marks the span failed. */
  inSpan<T>(
    name: string,
    attributes: TraceAttributes,
    work: (span: TracedSpan) => Promise<T>,
  ): Promise<T>;
}

/** `work` in a span when the run is traced, else just `work` (no cost). */
export function inSpan<T>(
  tracer: RunTracer | undefined,
  name: string,
  attributes: TraceAttributes,
  work: (span: TracedSpan | undefined) => Promise<T>,
): Promise<T> {
  return tracer ? tracer.inSpan(name, attributes, work) : work(undefined);
}

/** A traced run: the command's span, and the flush at its end. */
export interface TraceSession extends RunTracer {
  /** Runs the command in its span (a child of TRACEPARENT's, when the environment has one). */
  inCommand(work: () => Promise<number>): Promise<number>;
  /** Ends the command span with the exit code and flushes every exporter; never throws. */
  finish(exitCode: number): Promise<void>;
}

/** Loads the tracing chunk only when the run asks for traces. */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  traceFile: string | undefined,
  command: string,
  version: string,
  warn: (message: string) => void,
): Promise<TraceSession | undefined> {
  const ask = traceAsk(env, traceFile);
  if (!ask) return undefined;
  const { startTraceSession } = await import('./session.js');
  return startTraceSession(ask, { env, command, version, warn });
}
