/**
 * One export run: the named exports one after another, `concurrency` pages in flight in all (one
 * p-limit for every page), each export streamed in page order to its output. The latency bound is
 * the pages in flight, not the exports open: an export has the whole budget, and the
 * next one starts when every page of the current one is requested, so the tail's free slots
 * carry its first pages; two exports are open only at that boundary (bench/export/latency.mjs).
 *
 * Directory mode is all-or-nothing: data files are committed (renamed into place) only when every
 * export finished and verified, then the manifest is written last. Any failure or interruption
 * discards this run's partial files and leaves the previous files and manifest as they were.
 */
import { join } from 'node:path';
import type { ExportEntry, ExportResource, PageBody } from '@rcs/client';
import pLimit from 'p-limit';
import { baseOf, committedChanges, filtersOf, snapshotsToKeep } from './changes/bases.js';
import { type ChangesResult, ChangeTracker } from './changes/changes.js';
import { newRunId } from './changes/run-id.js';
import { pruneSnapshots } from './changes/state-file.js';
import { ExportError } from './errors.js';
import { assertReplaceable, syncDirectory, writeFileAtomically } from './files/atomic-file.js';
import { acquireExportLock } from './files/lock.js';
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  type Manifest,
  type ManifestChanges,
  type ManifestEntry,
  manifestStatus,
  manifestText,
  type RunSummary,
} from './files/manifest.js';
import { prepareOutputDirectory } from './files/out-dir.js';
import { assertSameService, serviceOf } from './files/service.js';
import type { ApiRecord } from './formats/encoders.js';
import { EXPORT_MAX_RETRIES, type ExportPlan, PAGE_LIMIT } from './options.js';
import { FileOutput, type FileResult, StreamOutput, type WritableLike } from './outputs.js';
import { type Limiter, type PagerResult, pageThrough } from './pager.js';
import type { ProgressListener } from './progress.js';
import { checkRecordValues } from './values.js';

/** What the export needs of the SDK client: `RcsClient` satisfies it; tests pass fakes. */
export interface ExportClient {
  exportsByResource(resource: string): {
    /** One page's body, parsed by the pager in its turn (pages wait as bytes). */
    listBody(options: {
      page: number;
      limit: number;
      archived?: 'include' | 'only';
      signal?: AbortSignal;
      maxRetries?: number;
      retryForMs?: number;
    }): Promise<PageBody<unknown>>;
  };
  /** Request counts (`RcsClient.stats`): the manifest's run summary. */
  readonly stats?: RequestCounts | undefined;
  /** The service's base URL (`RcsClient.baseUrl`): the manifest's `service` (files/service.ts). */
  readonly baseUrl?: string | undefined;
}

export interface RunDeps {
  client: ExportClient;
  signal: AbortSignal;
  onProgress?: ProgressListener | undefined;
  /** The version in the manifest's `tool`. */
  version: string;
  now?: () => Date;
  /**
   * Runs each export's work in a unit the caller observes (`rcs` makes it a span, so
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
    accessor.listBody({
      page,
      limit,
      signal,
      maxRetries: EXPORT_MAX_RETRIES,
      ...(archived ? { archived } : {}),
      ...(plan.retryForMs === undefined ? {} : { retryForMs: plan.retryForMs }),
    });
}

/**
 * A failure of one export from below the engine (the service, the network, the disk), naming
 * which of the nine; `cause` is that error.
 */
export class ResourceExportError extends ExportError {
  override name = 'ResourceExportError';
  constructor(
    override readonly resource: string,
    override readonly cause: unknown,
  ) {
    super(`${resource}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/**
 * The engine's own errors go out as they are, with `resource` (README: `instanceof
 * ChangesStateError`); anything else is wrapped; an aborted run fails with the signal's reason.
 */
function named(entry: ExportEntry, error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (!(error instanceof ExportError)) return new ResourceExportError(entry.resource, error);
  error.resource ??= entry.resource;
  return error;
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
  pages: { limiter: Limiter; onPlanRequested?: () => void },
  write: (records: ApiRecord[]) => Promise<void>,
): Promise<Timed> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  let written = 0;
  const result = await pageThrough({
    resource: entry.resource,
    list: listerFor(deps.client, entry, plan),
    limiter: pages.limiter,
    onPlanRequested: pages.onPlanRequested,
    // Pages requested and not yet written, at most: twice the budget. While a slow page holds
    // the head of the reorder buffer, the pages behind it that already arrived must not stop new
    // requests, or most of the budget would sit idle (head-of-line blocking).
    window: plan.concurrency * 2,
    limit: PAGE_LIMIT,
    signal: deps.signal,
    allowDrift: plan.allowDrift,
    async onPage(records, info) {
      // D29: one check on the record path, before any format or the change tracker sees it.
      checkRecordValues(entry.resource, records);
      await write(records);
      written += records.length;
      const event = { resource: entry.resource, count: written, total: info.total };
      deps.onProgress?.({ ...event, status: 'running' });
    },
  });
  deps.onProgress?.({
    resource: entry.resource,
    count: written,
    total: result.totalAtEnd,
    status: result.warnings.length > 0 ? 'drift' : 'done',
  });
  return { result, startedAt, finishedAt: now() };
}

/** Directory mode: files, lock, manifest. Returns the manifest that was written. */
export async function exportToDirectory(plan: ExportPlan, deps: RunDeps): Promise<Manifest> {
  const dir = plan.dir;
  // Invariants (planExport's checks make them true), plain errors: a bug, not a failure.
  if (dir === undefined) throw new Error('exportToDirectory needs a directory');
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  // Also done by the command before the first request (exit 2); again here for library callers.
  await prepareOutputDirectory(dir);
  const lock = await acquireExportLock(dir);
  const outputs = new Map<ExportResource, FileOutput>();
  // D27 --changes: one tracker per export, committed with its files.
  const trackers = new Map<ExportResource, ChangeTracker>();
  const bases = new Map<ExportResource, string | undefined>();
  // Read under the lock: the committed change state is the one the current manifest names.
  const committed = plan.changes ? await committedChanges(dir, plan) : undefined;
  const runId = newRunId(startedAt);
  const service = deps.client.baseUrl === undefined ? undefined : serviceOf(deps.client.baseUrl);
  try {
    // Under the lock and before any request: one directory holds one service's data.
    await assertSameService(dir, { service, demo: plan.demo }, plan.force);
    const limiter = pLimit(plan.concurrency);
    // Stryker disable next-line ArrayDeclaration: each export writes its own slot before any is read
    const done: (Timed & { file: FileResult; changes: ChangesResult | undefined })[] = [];
    const scope = deps.scope ?? unobserved;
    // A failure of one export stops the others (their requests, their pages).
    const stop = new AbortController();
    const signal = AbortSignal.any([deps.signal, stop.signal]);
    let failure: { error: unknown } | undefined;
    const exportEntry = (index: number, entry: ExportEntry, onPlanRequested: () => void) =>
      scope(entry.resource, async (report) => {
        const output = await FileOutput.open(dir, entry.resource, plan);
        outputs.set(entry.resource, output);
        let tracker: ChangeTracker | undefined;
        if (plan.changes) {
          const base = await baseOf(dir, entry.resource, plan, committed);
          bases.set(entry.resource, base);
          tracker = new ChangeTracker(dir, entry.resource, {
            runId,
            base,
            filters: filtersOf(entry.resource, plan.archived),
            withholdDeletes: plan.allowDrift,
          });
          trackers.set(entry.resource, tracker);
        }
        const timed = await exportOne(
          entry,
          plan,
          { ...deps, signal },
          { limiter, onPlanRequested },
          async (records) => {
            await output.writePage(records);
            await tracker?.add(records);
          },
        );
        // fsync + verify as soon as this export is complete; nothing is visible yet.
        const file = await output.finish();
        done[index] = { ...timed, file, changes: await tracker?.finish() };
        report({
          'rcs.export.records': timed.result.count,
          'rcs.export.bytes': file.written.bytes,
          'rcs.export.pages': timed.result.pages,
          'rcs.export.format': plan.format,
        });
      });
    // One export after another, overlapping only at the boundary: the next one starts once every
    // page of the current one is requested, so that the slots its last pages free are used (one
    // idle round trip per export otherwise: bench/export/README.md), and once the one before the
    // current one is done, so that two are open at most. They share the one budget, whose queue
    // is first come, first served: the current export's pages go first.
    // Stryker disable next-line ArrayDeclaration: only awaited, and a plain value awaits as itself
    const running: Promise<void>[] = [];
    let mayStart = Promise.resolve();
    for (const [index, entry] of plan.entries.entries()) {
      await mayStart;
      if (signal.aborted) break;
      let planRequested!: () => void;
      const requested = new Promise<void>((resolve) => {
        planRequested = resolve;
      });
      const finished = exportEntry(index, entry, planRequested)
        .catch((error: unknown) => {
          // The first failure is the run's; the exports it stops fail after it.
          failure ??= { error: named(entry, error, deps.signal) };
          stop.abort();
        })
        .finally(planRequested);
      mayStart = Promise.all([requested, running.at(-1)]).then(() => {});
      running.push(finished);
    }
    await Promise.all(running);
    if (failure) throw failure.error;

    // Every export is complete, exact (or accepted drift) and verified: make them visible.
    // The data and change files first; the change state moves only with the manifest's rename
    // below, the one commit point of the run (FORMATS.md "The change contract"): a crash before
    // it leaves the committed state of the previous run, after it this run's.
    deps.signal.throwIfAborted();
    await lock.assertHeld();
    const files = done.flatMap((d) => [d.file.written, d.file.items?.written, d.changes?.written]);
    await assertReplaceable([...files.map((f) => f?.path), join(dir, MANIFEST_FILE)]);
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
                ...(file.items.parquet ? { parquet: file.items.parquet } : {}),
              },
            }
          : {}),
        ...(file.parquet ? { parquet: file.parquet } : {}),
        ...(changes
          ? {
              changes: {
                file: changes.file,
                inserts: changes.inserts,
                updates: changes.updates,
                deletes: changes.deletes,
                deletesWithheld: changes.deletesWithheld,
                bytes: changes.written.bytes,
                sha256: changes.written.sha256,
                base: bases.get(entry.resource) ?? null,
                state: trackers.get(entry.resource)!.stateFile,
              },
            }
          : {}),
      };
    });
    const finishedAt = now();
    const manifest: Manifest = {
      manifestVersion: MANIFEST_VERSION,
      tool: { name: 'rcs', version: deps.version },
      ...(service === undefined ? {} : { service }),
      demo: plan.demo,
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
      ...(plan.changes ? { changes: changesOfRun(plan, runId, committed) } : {}),
      resources: entries,
      ...(deps.requestStats ? { summary: runSummary(deps.requestStats(), entries) } : {}),
    };
    // Last, and the same atomic way: a reader of the manifest only ever sees complete files.
    // With --changes this rename is the commit point of the change state (it names the states).
    await writeFileAtomically(join(dir, MANIFEST_FILE), manifestText(manifest));
    for (const tracker of trackers.values()) tracker.stateCommitted();
    if (manifest.changes) {
      // After the commit: snapshots no longer needed, and leftovers of runs that did not commit.
      const { acknowledged } = manifest.changes;
      for (const entry of plan.entries) {
        const keep = snapshotsToKeep(runId, bases.get(entry.resource), acknowledged);
        await pruneSnapshots(dir, entry.resource, keep);
      }
    }
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

/** The manifest's `changes`: this run's states, the others' carried over from the last run. */
function changesOfRun(
  plan: ExportPlan,
  runId: string,
  committed: ManifestChanges | undefined,
): ManifestChanges {
  const states: Record<string, string> = plan.full ? {} : { ...committed?.states };
  for (const entry of plan.entries) states[entry.resource] = runId;
  return {
    runId,
    acknowledged: plan.ack ?? (plan.full ? null : (committed?.acknowledged ?? null)),
    full: plan.full,
    states,
  };
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
  const [entry, ...more] = plan.entries;
  if (!entry || more.length > 0) throw new Error('exportToStream takes one export');
  const output = await StreamOutput.open(stream, entry.resource, plan);
  const limiter = pLimit(plan.concurrency);
  try {
    const { result } = await (deps.scope ?? unobserved)(entry.resource, async (report) => {
      const timed = await exportOne(entry, plan, deps, { limiter }, (records) =>
        output.writePage(records),
      );
      report({ 'rcs.export.records': timed.result.count, 'rcs.export.pages': timed.result.pages });
      return timed;
    });
    await output.end();
    return result;
  } catch (error) {
    throw named(entry, error, deps.signal);
  }
}
