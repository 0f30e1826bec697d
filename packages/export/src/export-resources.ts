/**
 * The public API: an export run for a Node program, as `rcs export` runs it (cli.md, FORMATS.md).
 * Both functions check every option before the first request and reject bad input with an
 * ExportUsageError; a failure of one export is a ResourceExportError naming it (its `cause` is
 * the SDK's error, the disk's, …), a list that changed while it was read an ExportIntegrityError
 * (D9), a directory another run holds an ExportLockedError.
 */
import pkg from '../package.json' with { type: 'json' };
import { usageError } from './errors.js';
import type { Manifest } from './files/manifest.js';
import { prepareOutputDirectory } from './files/out-dir.js';
import { type ExportOptions, planExport } from './options.js';
import type { WritableLike } from './outputs.js';
import type { PagerResult } from './pager.js';
import type { ProgressListener } from './progress.js';
import {
  type ExportClient,
  type ExportScope,
  exportToDirectory,
  exportToStream,
  type RequestCounts,
} from './run.js';

/** The options of exportResources but where the files go. */
export type ExportSettings = Omit<ExportOptions, 'out' | 'resources'>;

interface Common {
  /**
   * An SDK client (`createRcsClient` from @rcs/client satisfies it), or a function that makes
   * one: it is called only once the options (and the directory) are checked, so a bad option is
   * reported before, say, a missing API key.
   */
  client: ExportClient | (() => ExportClient | Promise<ExportClient>);
  /** Stops the run: nothing is replaced, and the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Called once per page written and once as each export ends. */
  onProgress?: ProgressListener | undefined;
  /** The version in the manifest's `tool` (`rcs`). Default: this package's version. */
  version?: string | undefined;
  /** Runs each export in a unit the caller observes (`rcs` makes it a span). */
  scope?: ExportScope | undefined;
}

/** The client's request counts for the manifest's run summary, when it keeps them. */
function countsOf(client: ExportClient): { requestStats?: () => RequestCounts } {
  return client.stats ? { requestStats: () => client.stats as RequestCounts } : {};
}

export interface ExportResourcesOptions extends ExportSettings, Common {
  /**
   * The output directory: created if missing (mode 0700), locked while the run lasts. Its files
   * are replaced only when every export is complete and verified, the manifest last.
   * Default: `rcs-export` (DEFAULT_OUT_DIR), in the working directory.
   */
  out?: string | undefined;
  /** Path names of the exports (`users`, `real-call-sessions`, …), or `all`. Default: all. */
  resources?: readonly string[] | undefined;
}

export interface ExportResult {
  /** The output directory, as given. */
  dir: string;
  /** What `manifest.json` in it now says: each export's files, counts, bytes and SHA-256. */
  manifest: Manifest;
}

async function clientOf(client: Common['client']): Promise<ExportClient> {
  return typeof client === 'function' ? client() : client;
}

/**
 * Exports the named resources (default: all nine) to files in `out`, one export after another
 * with `concurrency` pages in flight, complete and exact or not at all: on any failure the
 * directory's previous files and manifest are left as they were.
 */
export async function exportResources(options: ExportResourcesOptions): Promise<ExportResult> {
  const plan = planExport({ ...options, resources: options.resources ?? ['all'] });
  if (plan.dir === undefined) {
    throw usageError('`out` - is standard output; use exportResourceToStream for a stream');
  }
  const dir = plan.dir;
  const signal = options.signal ?? new AbortController().signal;
  // The directory is checked (exportToDirectory checks it again) before the client is made.
  await prepareOutputDirectory(dir);
  const client = await clientOf(options.client);
  const manifest = await exportToDirectory(plan, {
    client,
    signal,
    onProgress: options.onProgress,
    version: options.version ?? pkg.version,
    ...(options.scope ? { scope: options.scope } : {}),
    ...countsOf(client),
  });
  return { dir, manifest };
}

/** The settings that apply to a stream: no change tracking, which needs a directory. */
export type StreamSettings = Omit<ExportSettings, 'changes' | 'ack' | 'full'>;

export interface ExportStreamOptions extends StreamSettings, Common {
  /** The one export to stream (`users`, `real-call-sessions`, …). */
  resource: string;
  /** Where its bytes go, with backpressure (a Node Writable: `process.stdout`, a file stream). */
  stream: WritableLike;
}

/** What a streamed export read: its counts, and the warnings accepted under `allowDrift`. */
export type StreamResult = PagerResult;

/**
 * Streams one export to a writable stream (no files, no manifest, no child table; `changes`
 * needs a directory). Records already sent stay sent if it fails.
 */
export async function exportResourceToStream(options: ExportStreamOptions): Promise<StreamResult> {
  const plan = planExport({ ...options, resources: [options.resource], out: '-' });
  return exportToStream(
    plan,
    {
      client: await clientOf(options.client),
      signal: options.signal ?? new AbortController().signal,
      onProgress: options.onProgress,
      version: options.version ?? pkg.version,
      ...(options.scope ? { scope: options.scope } : {}),
    },
    options.stream,
  );
}
