/**
 * `DIR/manifest.json`: what a successful run wrote (cli.md: `{ resource, file, format, count,
 * total, sha256, startedAt, finishedAt }` per resource; issue 6 adds status, timings and the tool
 * version). It is written last, the same atomic way as the data files, so a loader that reads
 * the manifest first always sees files that are complete. It describes this run only.
 */

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_VERSION = 1;

export type ExportFormat = 'jsonl' | 'csv' | 'parquet';

/** `complete`: exact. `drift`: accepted with `--allow-drift`; see `warnings`. */
export type ResourceStatus = 'complete' | 'drift';

interface ManifestChildFile {
  /** File name, relative to the manifest's directory. */
  file: string;
  /** Rows (not counting the header). */
  count: number;
  bytes: number;
  sha256: string;
}

export interface ManifestEntry {
  resource: string;
  /** File name, relative to the manifest's directory. */
  file: string;
  format: ExportFormat;
  /** Records written (distinct ids). */
  count: number;
  /** `meta.total` as the service reported it at the start. */
  total: number;
  /** `meta.total` on the last page read. */
  totalAtEnd: number;
  bytes: number;
  sha256: string;
  status: ResourceStatus;
  pages: number;
  duplicates: number;
  warnings: string[];
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** real-call-sessions in CSV and Parquet: the analysis-items child table. */
  items?: ManifestChildFile;
  /** `--changes` (D27): the change file and what it counts. */
  changes?: {
    file: string;
    inserts: number;
    updates: number;
    deletes: number;
    bytes: number;
    sha256: string;
  };
}

/**
 * What the run took (issue 29): the client's requests, retries, 429s and the time waited for rate
 * limits, the bytes written and the records of each export. Present when the caller could count
 * requests (`rcs export` always can).
 */
export interface RunSummary {
  requests: number;
  retries: number;
  rateLimited: number;
  rateLimitWaitMs: number;
  /** Bytes of answer bodies read from the service. */
  bytesReceived: number;
  /** Bytes of the data files written (items and change files included). */
  bytesWritten: number;
  /** Records written, per export. */
  records: Record<string, number>;
}

export interface Manifest {
  manifestVersion: number;
  tool: { name: 'rcs'; version: string };
  status: ResourceStatus;
  format: ExportFormat;
  options: {
    concurrency: number;
    archived?: 'include' | 'only';
    csvRaw?: boolean;
    bom?: boolean;
    allowDrift: boolean;
    changes: boolean;
  };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  resources: ManifestEntry[];
  summary?: RunSummary;
}

export function manifestStatus(entries: readonly ManifestEntry[]): ResourceStatus {
  return entries.some((e) => e.status === 'drift') ? 'drift' : 'complete';
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
