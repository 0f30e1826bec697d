/**
 * `rcs export <resource...|all>` (cli.md): the nine data exports to JSONL, CSV or Parquet files,
 * complete and exact or not at all. Options are validated here (exit 2), then the run happens in
 * @rcs/export; this file maps outcomes to exit codes and one clear line.
 */
import {
  type ExportOptions as EngineOptions,
  ExportError,
  ExportIntegrityError,
  ExportLockedError,
  type ExportProgressEvent,
  ExportUsageError,
  exportResources,
  exportResourceToStream,
  MAX_CONCURRENCY,
  MAX_ROW_GROUP_BYTES,
  MAX_ROW_GROUP_ROWS,
  type Manifest,
  planExport,
  ResourceExportError,
  type WritableLike,
} from '@rcs/export';
import type { CliContext } from '../context.js';
import { describeError, requestIdSuffix } from '../describe-error.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { parseSeconds, type RequestDeadline } from '../network/deadline.js';
import { createExportProgress, formatCount, renderTable } from '../output/export-progress.js';
import { safeLine } from '../output/sanitize.js';
import { parsePositiveInt } from './validate-flags.js';

type Figures = Record<string, string | number | undefined>;

type IntegerFlags = 'concurrency' | 'rowGroupRows' | 'rowGroupBytes';

/** The engine's options, with the integer flags as typed on the command line. */
export interface ExportOptions extends Omit<EngineOptions, IntegerFlags> {
  concurrency?: number | string | undefined;
  rowGroupRows?: number | string | undefined;
  rowGroupBytes?: number | string | undefined;
  /** `--timeout`, seconds as typed: the network deadline of each request (cli.md "Networks"). */
  timeout?: string | undefined;
}

/** The integer flags as typed, checked by the CLI's one integer-flag parser (exit 2). */
function engineOptions({ timeout: _network, ...options }: ExportOptions): EngineOptions {
  const whole = (flag: string, value: number | string | undefined, max: number) =>
    typeof value === 'string' ? parsePositiveInt(flag, value, max) : value;
  return {
    ...options,
    concurrency: whole('--concurrency', options.concurrency, MAX_CONCURRENCY),
    rowGroupRows: whole('--row-group-rows', options.rowGroupRows, MAX_ROW_GROUP_ROWS),
    rowGroupBytes: whole('--row-group-bytes', options.rowGroupBytes, MAX_ROW_GROUP_BYTES),
  };
}

/**
 * The engine names its options between backticks (`format`, `rowGroupRows`); a user of `rcs`
 * reads its flags there (`--format`, `--row-group-rows`).
 */
function withFlags(message: string): string {
  return message.replace(
    /`([a-z][A-Za-z]*)`/g,
    (_m, option: string) => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
  );
}

/** Bad input found by the engine is a usage error (exit 2), like the CLI's own. */
function asCliError(error: unknown): unknown {
  return error instanceof ExportUsageError
    ? new CliError(EXIT.usage, withFlags(error.message))
    : error;
}

function summary(manifest: Manifest): string {
  const rows = manifest.resources.map((e) => [
    e.resource,
    formatCount(e.count),
    formatCount(e.total),
    `${(e.durationMs / 1000).toFixed(1)} s`,
    e.status,
    (e.items ? `${e.file} + ${e.items.file} (${formatCount(e.items.count)} rows)` : e.file) +
      (e.changes
        ? ` + ${e.changes.file} (+${formatCount(e.changes.inserts)} ~${formatCount(e.changes.updates)} -${formatCount(e.changes.deletes)})`
        : ''),
  ]);
  return renderTable(['export', 'records', 'total', 'time', 'status', 'file'], rows);
}

/** The records a streamed or written run counted, as the finished line says it. */
interface Finished {
  exports: readonly string[];
  records: number;
  /** With --changes: the counts and the run id that the next run's --ack names. */
  changes: { inserts: number; updates: number; deletes: number; runId: string } | undefined;
  /** The directory as typed, or undefined for standard output. */
  dir: string | undefined;
  durationMs: number;
}

/**
 * The one line a finished export leaves on stderr, on a terminal or not (a cron log has nothing
 * else to show that the job ran and what it wrote): which exports, records, changes, where, time.
 */
function finishedLine(f: Finished): string {
  const what = f.exports.length === 1 ? f.exports[0] : `${formatCount(f.exports.length)} exports`;
  const changes = f.changes
    ? `, changes +${formatCount(f.changes.inserts)} ~${formatCount(f.changes.updates)} -${formatCount(f.changes.deletes)} (run ${f.changes.runId}, for --ack)`
    : '';
  const where = f.dir === undefined ? 'standard output' : `${f.dir} (manifest.json)`;
  return `rcs export: ${what}, ${formatCount(f.records)} records${changes}, written to ${safeLine(where)} in ${(f.durationMs / 1000).toFixed(1)} s`;
}

function finishedOf(manifest: Manifest, dir: string): Finished {
  const sum = (key: 'inserts' | 'updates' | 'deletes') =>
    manifest.resources.reduce((n, e) => n + (e.changes?.[key] ?? 0), 0);
  return {
    exports: manifest.resources.map((e) => e.resource),
    records: manifest.resources.reduce((n, e) => n + e.count, 0),
    changes: manifest.changes && {
      inserts: sum('inserts'),
      updates: sum('updates'),
      deletes: sum('deletes'),
      runId: manifest.changes.runId,
    },
    dir,
    durationMs: manifest.durationMs,
  };
}

export async function runExport(options: ExportOptions, ctx: CliContext): Promise<number> {
  let settings: EngineOptions;
  let plan: ReturnType<typeof planExport>;
  let deadline: RequestDeadline | undefined;
  try {
    // Every option is checked before anything else, the API key included (exit 2).
    const timeoutSeconds = parseSeconds('--timeout', options.timeout);
    if (timeoutSeconds !== undefined) deadline = { timeoutSeconds };
    settings = engineOptions(options);
    plan = planExport(settings);
  } catch (caught) {
    const error = asCliError(caught);
    // The CLI's one usage-error type (CliError, exit 2), checked before any request.
    if (error instanceof CliError) {
      ctx.error(`export: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }

  const progress = createExportProgress(
    ctx.progress(),
    plan.entries.map((e) => e.resource),
  );
  const where = plan.dir === undefined ? '' : `; files in ${plan.dir} were left as they were`;
  const tracer = ctx.tracer;
  const run = {
    ...settings,
    // Made once the output path is checked (cli.md "Unattended runs": exit 2 before any request).
    client: () => ctx.getClient(deadline),
    signal: ctx.signal,
    version: ctx.version,
    onProgress: (event: ExportProgressEvent) => {
      if (event.status === 'running') progress.update(event.resource, event.count, event.total);
      else progress.finish(event.resource, event.status);
    },
    // A traced run: one span per export, its requests its children.
    ...(tracer
      ? {
          scope: <T>(resource: string, work: (report: (f: Figures) => void) => Promise<T>) =>
            tracer.inSpan(`rcs.export ${resource}`, { 'rcs.export.resource': resource }, (span) =>
              work((figures) => span.setAttributes(figures)),
            ),
        }
      : {}),
  };
  try {
    if (plan.dir === undefined) {
      const stream: WritableLike = ctx.stdout;
      const resource = plan.entries[0]!.resource;
      const started = Date.now();
      const result = await exportResourceToStream({ ...run, resource, stream });
      progress.stop();
      // A reader that went away (`| head`) ends the command without a message (cli.md).
      if (!ctx.quiet && !ctx.outputClosed?.aborted) {
        const durationMs = Date.now() - started;
        const line = { exports: [resource], records: result.count, changes: undefined };
        ctx.stderr.write(`${finishedLine({ ...line, dir: undefined, durationMs })}\n`);
      }
      return EXIT.ok;
    }
    if (plan.full) {
      ctx.error('--full: comparing with no earlier run; every record is an insert');
    }
    const { manifest } = await exportResources(run);
    progress.stop();
    for (const entry of manifest.resources) {
      // --allow-drift: accepted, but never silently (also in the manifest).
      for (const warning of entry.warnings)
        ctx.error(`warning: export ${entry.resource}: ${safeLine(warning)}`);
      const withheld = entry.changes?.deletesWithheld ?? 0;
      if (withheld > 0) {
        ctx.error(
          `warning: export ${entry.resource}: --allow-drift: ${formatCount(withheld)} records missing from the listing were not reported as deleted (the listing is not trustworthy); a run without --allow-drift reports them`,
        );
      }
    }
    if (ctx.json) ctx.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
    ctx.log(`\n${summary(manifest).trimEnd()}`);
    if (!ctx.quiet) ctx.stderr.write(`${finishedLine(finishedOf(manifest, plan.dir))}\n`);
    return EXIT.ok;
  } catch (caught) {
    progress.stop();
    // Which of the nine failed goes first on the line; the cause decides the exit code.
    const resource = caught instanceof ExportError ? caught.resource : undefined;
    const error = asCliError(caught instanceof ResourceExportError ? caught.cause : caught);
    const what = resource ? `export ${resource}` : 'export';
    if (ctx.signal.aborted) {
      ctx.error(`export interrupted; nothing was replaced${where}`);
      return describeError(ctx.signal.reason).exitCode;
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || ctx.outputClosed?.aborted) {
      // `rcs export users --out - | head`: the reader took what it wanted; that is normal for a
      // Unix tool, so no message (cli.md). A full device is reported by the process (program.ts).
      return EXIT.ok;
    }
    if (error instanceof ExportIntegrityError) {
      ctx.error(
        `export ${safeLine(error.message)}; the export is not exact${where}. Run it again, or pass --allow-drift to accept it with a warning in the manifest`,
      );
      return EXIT.failure;
    }
    if (error instanceof ExportLockedError) {
      ctx.error(`export: ${safeLine(error.message)}`);
      return EXIT.failure;
    }
    if (error instanceof ExportError) {
      ctx.error(`${what} failed: ${safeLine(withFlags(error.message))}${where}`);
      return EXIT.failure;
    }
    if (error instanceof CliError) {
      ctx.error(error.message);
      return error.exitCode;
    }
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && (error as { path?: string }).path) {
      // A file-system failure (disk full, no permission, not a directory).
      ctx.error(
        `${what}: ${safeLine((error as Error).message)}${where}; check the output directory`,
      );
      return EXIT.failure;
    }
    const described = describeError(error);
    // The line ends with the service's request id, when it answered.
    const id = requestIdSuffix(error);
    const message = id ? described.message.slice(0, -id.length) : described.message;
    ctx.error(`${what} failed: ${message}${where}${id}`);
    return described.exitCode;
  }
}
