/**
 * One export run: every named export at once under one shared concurrency budget (one p-limit
 * for all resources and all pages), each streamed in page order to its output.
 *
 * Directory mode is all-or-nothing: data files are committed (renamed into place) only when every
 * export finished and verified, then the manifest is written last. Any failure or interruption
 * discards this run's partial files and leaves the previous files and manifest as they were.
 */
import { join } from 'node:path';
import type { ExportEntry, ExportResource } from '@rcs/client';
import pLimit from 'p-limit';
import { CHANGES_MEMORY, ChangeTracker } from './changes/changes.js';
import { syncDirectory, writeFileAtomically } from './files/atomic-file.js';
import { acquireExportLock } from './files/lock.js';
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  type Manifest,
  type ManifestEntry,
  manifestStatus,
  manifestText,
  type RunSummary,
} from './files/manifest.js';
import { prepareOutputDirectory } from './files/out-dir.js';
import type { ApiRecord } from './formats/encoders.js';
import { EXPORT_MAX_RETRIES, type ExportPlan, PAGE_LIMIT } from './options.js';
import { FileOutput, StreamOutput, type WritableLike } from './outputs.js';
import {
  ExportIntegrityError,
  type ExportPage,
  type Limiter,
  type PagerResult,
  pageThrough,
} from './pager.js';
import type { ExportProgress } from './progress.js';
import { type WindowShare, windowShare } from './window-share.js';

/** What the export needs of the SDK client: `RcsClient` satisfies it; tests pass fakes. */
export interface ExportClient {
  exportsByResource(resource: string): {
    list(options: {
      page: number;
      limit: number;
      archived?: 'include' | 'only';
      signal?: AbortSignal;
      maxRetries?: number;
    }): Promise<{ data: unknown[]; meta: unknown }>;
  };
}

export interface RunDeps {
  client: ExportClient;
  signal: AbortSignal;
  progress: ExportProgress;
  version: string;
  now?: () => Date;
  /**
   * Runs each export's work in a unit the caller observes (issue 29: `rcs` makes it a span, so
   * the export's requests are its children); `report` gives it the export's figures at the end.
   */
  scope?: ExportScope;
  /** The client's request counts so far (`RcsClient.stats`), for the manifest's run summary. */
  requestStats?: () => RequestCounts;
}

/** What `RcsClient.stats` counts; the manifest's run summary takes it as is. */
export interface RequestCounts {
  requests: number;
  retries: number;
  rateLimited: number;
  rateLimitWaitMs: number;
  bytesReceived: number;
}

export type ExportScope = <T>(
  resource: string,
  work: (report: (figures: Record<string, string | number | undefined>) => void) => Promise<T>,
) => Promise<T>;

/** Without a scope, the work runs as it is. */
const unobserved: ExportScope = (_resource, work) => work(() => {});

function listerFor(client: ExportClient, entry: ExportEntry, plan: ExportPlan) {
  const accessor = client.exportsByResource(entry.resource);
  // D8: the archive filter exists on the tracks export only.
  const archived = entry.resource === 'tracks' ? plan.archived : undefined;
  return (page: number, limit: number, signal: AbortSignal) =>
    accessor.list({
      page,
      limit,
      signal,
      maxRetries: EXPORT_MAX_RETRIES,
      ...(archived ? { archived } : {}),
    }) as Promise<ExportPage>;
}

/** A failure of one export (the service, the network, the disk), naming which of the nine. */
export class ResourceExportError extends Error {
  override name = 'ResourceExportError';
  constructor(
    readonly resource: string,
    override readonly cause: unknown,
  ) {
    super(`${resource}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/**
 * Runs `task` for each entry; the first failure aborts the others and is the one rethrown
 * (wrapped in ResourceExportError unless it already names its export).
 */
async function allOrFirstError<T>(
  entries: readonly ExportEntry[],
  signal: AbortSignal,
  task: (entry: ExportEntry, signal: AbortSignal) => Promise<T>,
): Promise<T[]> {
  const failed = new AbortController();
  const combined = AbortSignal.any([signal, failed.signal]);
  let first: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    entries.map(async (entry) => {
      try {
        return await task(entry, combined);
      } catch (error) {
        // The first failure is the cause; the AbortErrors it provokes elsewhere are not.
        if (!first && !signal.aborted) {
          first = {
            error:
              error instanceof ExportIntegrityError
                ? error
                : new ResourceExportError(entry.resource, error),
          };
        }
        failed.abort(error);
        throw error;
      }
    }),
  );
  signal.throwIfAborted();
  if (first) throw first.error;
  return settled.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  });
}

interface Timed {
  result: PagerResult;
  startedAt: Date;
  finishedAt: Date;
}

async function exportOne(
  entry: ExportEntry,
  plan: ExportPlan,
  deps: RunDeps,
  limiter: Limiter,
  share: WindowShare,
  signal: AbortSignal,
  write: (records: ApiRecord[]) => Promise<void>,
): Promise<Timed> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  let written = 0;
  const { window, leave } = share.enter();
  let result: PagerResult;
  try {
    result = await pageThrough({
      resource: entry.resource,
      list: listerFor(deps.client, entry, plan),
      limiter,
      // This export's share of twice the budget while others run, all of it alone (window-share.ts).
      window,
      limit: PAGE_LIMIT,
      signal,
      allowDrift: plan.allowDrift,
      async onPage(records, info) {
        await write(records);
        written += records.length;
        deps.progress.update(entry.resource, written, info.total);
      },
    });
  } finally {
    leave();
  }
  deps.progress.finish(entry.resource, result.warnings.length > 0 ? 'drift' : 'done');
  return { result, startedAt, finishedAt: now() };
}

/** Directory mode: files, lock, manifest. Returns the manifest that was written. */
export async function exportToDirectory(plan: ExportPlan, deps: RunDeps): Promise<Manifest> {
  const dir = plan.dir;
  if (dir === undefined) throw new Error('exportToDirectory needs a directory');
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  // Also done by the command before the first request (exit 2); again here for library callers.
  await prepareOutputDirectory(dir);
  const lock = await acquireExportLock(dir);
  const outputs = new Map<ExportResource, FileOutput>();
  // D27 --changes: one tracker per export, committed with its files.
  const trackers = new Map<ExportResource, ChangeTracker>();
  // One merge of change runs at a time across the run's exports (changes.ts, MergeGate).
  const mergeGate = pLimit(1);
  try {
    for (const entry of plan.entries) {
      outputs.set(
        entry.resource,
        await FileOutput.open(dir, entry.resource, { ...plan, sharedBy: plan.entries.length }),
      );
      if (plan.changes) {
        // The exports run at once: each gets its share of the memory for change batches.
        const batchBytes = Math.floor(CHANGES_MEMORY / plan.entries.length);
        trackers.set(
          entry.resource,
          new ChangeTracker(dir, entry.resource, { batchBytes, mergeGate }),
        );
      }
    }
    const limiter = pLimit(plan.concurrency);
    const share = windowShare(plan.concurrency);
    const scope = deps.scope ?? unobserved;
    const done = await allOrFirstError(plan.entries, deps.signal, (entry, signal) =>
      scope(entry.resource, async (report) => {
        const output = outputs.get(entry.resource)!;
        const tracker = trackers.get(entry.resource);
        const timed = await exportOne(
          entry,
          plan,
          deps,
          limiter,
          share,
          signal,
          async (records) => {
            await output.writePage(records);
            await tracker?.add(records);
          },
        );
        // fsync + verify as soon as this export is complete, while the others still download.
        const file = await output.finish();
        const changes = await tracker?.finish();
        report({
          'rcs.export.records': timed.result.count,
          'rcs.export.bytes': file.written.bytes,
          'rcs.export.pages': timed.result.pages,
          'rcs.export.format': plan.format,
        });
        return { ...timed, file, changes };
      }),
    );

    // Every export is complete, exact (or accepted drift) and verified: make them visible.
    // Per export, the data files first, then its changes file and last its new state: a crash
    // part-way leaves a state that still matches what the consumer last saw or re-sees.
    deps.signal.throwIfAborted();
    for (const entry of plan.entries) {
      await outputs.get(entry.resource)!.commit();
      await trackers.get(entry.resource)?.commit();
    }
    await syncDirectory(dir);

    const entries: ManifestEntry[] = plan.entries.map((entry, i) => {
      const { result, startedAt: s, finishedAt: f, file, changes } = done[i]!;
      return {
        resource: entry.resource,
        file: file.file,
        format: plan.format,
        count: result.count,
        total: result.total,
        totalAtEnd: result.totalAtEnd,
        bytes: file.written.bytes,
        sha256: file.written.sha256,
        status: result.warnings.length > 0 ? 'drift' : 'complete',
        pages: result.pages,
        duplicates: result.duplicates,
        warnings: result.warnings,
        startedAt: s.toISOString(),
        finishedAt: f.toISOString(),
        durationMs: f.getTime() - s.getTime(),
        ...(file.items
          ? {
              items: {
                file: file.items.file,
                count: file.items.count,
                bytes: file.items.written.bytes,
                sha256: file.items.written.sha256,
              },
            }
          : {}),
        ...(changes
          ? {
              changes: {
                file: changes.file,
                inserts: changes.inserts,
                updates: changes.updates,
                deletes: changes.deletes,
                bytes: changes.written.bytes,
                sha256: changes.written.sha256,
              },
            }
          : {}),
      };
    });
    const finishedAt = now();
    const manifest: Manifest = {
      manifestVersion: MANIFEST_VERSION,
      tool: { name: 'rcs', version: deps.version },
      status: manifestStatus(entries),
      format: plan.format,
      options: {
        concurrency: plan.concurrency,
        ...(plan.archived ? { archived: plan.archived } : {}),
        ...(plan.format === 'csv' ? { csvRaw: plan.csvRaw, bom: plan.bom } : {}),
        allowDrift: plan.allowDrift,
        changes: plan.changes,
      },
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      resources: entries,
      ...(deps.requestStats ? { summary: runSummary(deps.requestStats(), entries) } : {}),
    };
    // Last, and the same atomic way: a reader of the manifest only ever sees complete files.
    await writeFileAtomically(join(dir, MANIFEST_FILE), manifestText(manifest));
    return manifest;
  } finally {
    // Whatever was not renamed into place goes (a rename that fails part-way leaves the rest as
    // partial files); discard() leaves a committed file alone.
    await Promise.all([
      ...[...outputs.values()].map((o) => o.discard()),
      ...[...trackers.values()].map((t) => t.discard()),
    ]);
    await lock.release();
  }
}

function runSummary(requests: RequestCounts, entries: readonly ManifestEntry[]): RunSummary {
  let bytesWritten = 0;
  const records: Record<string, number> = {};
  for (const e of entries) {
    bytesWritten += e.bytes + (e.items?.bytes ?? 0) + (e.changes?.bytes ?? 0);
    records[e.resource] = e.count;
  }
  return {
    requests: requests.requests,
    retries: requests.retries,
    rateLimited: requests.rateLimited,
    rateLimitWaitMs: requests.rateLimitWaitMs,
    bytesReceived: requests.bytesReceived,
    bytesWritten,
    records,
  };
}

/** `--out -`: one export to a stream. Records already sent stay sent; a failure still exits 1. */
export async function exportToStream(
  plan: ExportPlan,
  deps: RunDeps,
  stream: WritableLike,
): Promise<PagerResult> {
  const entry = plan.entries[0];
  if (!entry || plan.entries.length !== 1) throw new Error('--out - takes exactly one export');
  const output = await StreamOutput.open(stream, entry.resource, plan);
  const limiter = pLimit(plan.concurrency);
  try {
    const share = windowShare(plan.concurrency);
    const { result } = await (deps.scope ?? unobserved)(entry.resource, async (report) => {
      const timed = await exportOne(entry, plan, deps, limiter, share, deps.signal, (records) =>
        output.writePage(records),
      );
      report({ 'rcs.export.records': timed.result.count, 'rcs.export.pages': timed.result.pages });
      return timed;
    });
    await output.end();
    return result;
  } catch (error) {
    if (error instanceof ExportIntegrityError || deps.signal.aborted) throw error;
    throw new ResourceExportError(entry.resource, error);
  }
}
