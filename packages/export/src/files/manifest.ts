/**
 * `DIR/manifest.json`: what a successful run wrote (cli.md: `{ resource, file, format, count,
 * total, sha256, startedAt, finishedAt }` per resource; it also records status, timings and the tool
 * version). It is written last, the same atomic way as the data files, so a loader that reads
 * the manifest first always sees files that are complete. It describes this run only.
 */

import type { ParquetCompression } from '../formats/parquet-compression.js';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_VERSION = 1;

export type ExportFormat = 'jsonl' | 'csv' | 'parquet';

/** `complete`: exact. `drift`: accepted with `allowDrift`; see `warnings`. */
export type ResourceStatus = 'complete' | 'drift';

interface ManifestChildFile {
  /** File name, relative to the manifest's directory. */
  file: string;
  /** Rows (not counting the header). */
  count: number;
  bytes: number;
  sha256: string;
  /** `format` parquet: the child table's row groups and schema. */
  parquet?: ParquetFileShape;
}

/**
 * What a warehouse loader wants to know of a Parquet file before reading it: its
 * compression, its row groups (how many, rows in each, in file order) and its columns (the
 * Parquet type of each, from the generated record shapes; `?` marks a nullable nested field).
 */
export interface ParquetFileShape {
  compression: ParquetCompression;
  rowGroups: { count: number; rows: number[] };
  schema: { name: string; type: string; nullable: boolean }[];
}

/** The manifest's `parquet` field of a file, from what its encoder wrote. */
export function parquetFileShape(
  compression: ParquetFileShape['compression'],
  rowGroups: readonly number[],
  schema: ParquetFileShape['schema'],
): ParquetFileShape {
  return { compression, rowGroups: { count: rowGroups.length, rows: [...rowGroups] }, schema };
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
  /** `format` parquet: the file's row groups and schema. */
  parquet?: ParquetFileShape;
  /** `changes` (D27): the change file and what it counts. */
  changes?: {
    file: string;
    inserts: number;
    updates: number;
    deletes: number;
    /** `allowDrift`: records missing from the listing, not reported as deleted. */
    deletesWithheld: number;
    bytes: number;
    sha256: string;
    /** The run this change file goes from (null: none, every record an insert). */
    base: string | null;
    /** The snapshot this run wrote, `.<resource>.changes-state.<runId>`. */
    state: string;
  };
}

/**
 * `changes`: the run and the committed change state of the directory (EXPORT.md "The change
 * contract"). The manifest's rename is the one step that commits them.
 */
export interface ManifestChanges {
  /** This run's id: record it with the load, and name it with `ack` on the next run. */
  runId: string;
  /** The run last named by `ack` (kept from run to run), or null. */
  acknowledged: string | null;
  /** `full`: compared with no earlier run. */
  full: boolean;
  /** The committed snapshot of each export in the directory, by run id. */
  states: Record<string, string>;
}

/**
 * What the run took: the client's requests, retries, 429s and the time waited for rate
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
  /**
   * The service the data came from: the base URL's origin and path, never credentials or a
   * query (`https://api.example.com`). One directory holds one service's data (service.ts).
   * Absent when the client names no base URL (a library caller's own client).
   */
  service?: string;
  /** True when the data is `rcs demo`'s (a local mock's generated dataset), not a real service's. */
  demo: boolean;
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
  /** With `changes`. */
  changes?: ManifestChanges;
  resources: ManifestEntry[];
  summary?: RunSummary;
}

export function manifestStatus(entries: readonly ManifestEntry[]): ResourceStatus {
  return entries.some((e) => e.status === 'drift') ? 'drift' : 'complete';
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}
