/**
 * `rcs export <resource...|all>` (cli.md, issue 6): the nine data exports to JSONL or CSV files,
 * complete and exact or not at all. Options are validated here (exit 2), then the run happens in
 * @rcs/export; this file maps outcomes to exit codes and one clear line.
 */
import {
  type ExportOptions as EngineOptions,
  type ExportClient,
  ExportIntegrityError,
  ExportLockedError,
  ExportUsageError,
  exportToDirectory,
  exportToStream,
  MAX_CONCURRENCY,
  type Manifest,
  planExport,
  prepareOutputDirectory,
  ResourceExportError,
} from '@rcs/export';
import type { CliContext } from '../context.js';

type Figures = Record<string, string | number | undefined>;

import { CliError, describeError, requestIdSuffix } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { keepHeapSmall } from '../export/heap.js';
import { createExportProgress, formatCount, renderTable } from '../output/export-progress.js';
import { safeLine } from '../output/sanitize.js';
import { parsePositiveInt } from './validate-flags.js';

/** The engine's options, with `--concurrency` as typed on the command line. */
export interface ExportOptions extends Omit<EngineOptions, 'concurrency'> {
  concurrency?: number | string | undefined;
}

/** Bad input found by the engine is a usage error (exit 2), like the CLI's own. */
function asCliError(error: unknown): unknown {
  return error instanceof ExportUsageError ? new CliError(EXIT.usage, error.message) : error;
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

export async function runExport(options: ExportOptions, ctx: CliContext): Promise<number> {
  let plan: ReturnType<typeof planExport>;
  try {
    const { concurrency } = options;
    plan = planExport({
      ...options,
      concurrency:
        typeof concurrency === 'string'
          ? parsePositiveInt('--concurrency', concurrency, MAX_CONCURRENCY)
          : concurrency,
    });
  } catch (caught) {
    const error = asCliError(caught);
    // The CLI's one usage-error type (CliError, exit 2), checked before any request.
    if (error instanceof CliError) {
      ctx.error(`export: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }

  const heap = keepHeapSmall();
  const shown = createExportProgress(
    ctx.progress(),
    plan.entries.map((e) => e.resource),
  );
  // Every page also checks the young generation (src/export/heap.ts): its timer waits while a
  // long synchronous step (a Parquet row group) runs, and V8 could grow it past the target.
  const progress: typeof shown = {
    ...shown,
    update(resource, count, total) {
      heap.check();
      shown.update(resource, count, total);
    },
  };
  const where = plan.dir === undefined ? '' : `; files in ${plan.dir} were left as they were`;
  try {
    // The output path is checked before any request (cli.md "Unattended runs": exit 2).
    if (plan.dir !== undefined) await prepareOutputDirectory(plan.dir);
    const rcs = await ctx.getClient();
    const client: ExportClient = rcs;
    const tracer = ctx.tracer;
    const deps = {
      client,
      signal: ctx.signal,
      progress,
      version: ctx.version,
      // The run summary of the manifest and --json (issue 29).
      // (A client made by a test's createClient may not count.)
      ...(rcs.stats ? { requestStats: () => rcs.stats } : {}),
      // A traced run: one span per export, its requests its children (issue 29).
      ...(tracer
        ? {
            scope: <T>(resource: string, work: (report: (f: Figures) => void) => Promise<T>) =>
              tracer.inSpan(`rcs.export ${resource}`, { 'rcs.export.resource': resource }, (span) =>
                work((figures) => span.setAttributes(figures)),
              ),
          }
        : {}),
    };
    if (plan.dir === undefined) {
      await exportToStream(
        plan,
        deps,
        ctx.stdout as unknown as Parameters<typeof exportToStream>[2],
      );
      progress.stop();
      return EXIT.ok;
    }
    const manifest = await exportToDirectory(plan, deps);
    progress.stop();
    for (const entry of manifest.resources) {
      // --allow-drift: accepted, but never silently (also in the manifest).
      for (const warning of entry.warnings)
        ctx.error(`warning: export ${entry.resource}: ${safeLine(warning)}`);
    }
    if (ctx.json) ctx.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
    ctx.log(`\n${summary(manifest)}Wrote ${plan.dir}/manifest.json`);
    return EXIT.ok;
  } catch (caught) {
    progress.stop();
    // Which of the nine failed goes first on the line; the cause decides the exit code.
    const resource = caught instanceof ResourceExportError ? caught.resource : undefined;
    const error = asCliError(caught instanceof ResourceExportError ? caught.cause : caught);
    const what = resource ? `export ${resource}` : 'export';
    if (ctx.signal.aborted) {
      ctx.error(`export interrupted; nothing was replaced${where}`);
      return describeError(ctx.signal.reason).exitCode;
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
    if (error instanceof CliError) {
      ctx.error(error.message);
      return error.exitCode;
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || ctx.outputClosed?.aborted) {
      // `rcs export users --out - | head`: the reader took what it wanted; that is normal for a
      // Unix tool, so no message (cli.md). A full device is reported by the process (program.ts).
      return EXIT.ok;
    }
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && (error as { path?: string }).path) {
      // A file-system failure (disk full, no permission, not a directory).
      ctx.error(
        `${what}: ${safeLine((error as Error).message)}${where}; check the output directory`,
      );
      return EXIT.failure;
    }
    const described = describeError(error);
    // The line ends with the service's request id, when it answered (issue 29).
    const id = requestIdSuffix(error);
    const message = id ? described.message.slice(0, -id.length) : described.message;
    ctx.error(`${what} failed: ${message}${where}${id}`);
    return described.exitCode;
  }
}
