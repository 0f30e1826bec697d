/**
 * The options of an export run (cli.md `rcs export`) and their validation. Bad input is rejected
 * before any request with an ExportUsageError naming the option that is wrong as this library
 * takes it (`format`, `concurrency`); `rcs` maps those names to its flags (`--format`).
 */

import { EXPORT_TABLE, type ExportEntry } from '@rcs/client';
import { checkNumber } from '@rcs/client/internal';
import { isRunId } from './changes/run-id.js';
import { usageError } from './errors.js';
import type { ExportFormat } from './files/manifest.js';
import {
  compressionUnavailable,
  PARQUET_COMPRESSIONS,
  type ParquetCompression,
} from './formats/parquet-compression.js';

export interface ExportOptions {
  /** Path names of the exports (`users`, `real-call-sessions`, …) or `all`. */
  resources: readonly string[];
  /** `jsonl` (default), `csv` or `parquet`. */
  format?: ExportFormat | undefined;
  /** A directory (default `rcs-export`), or `-` for stdout (exactly one resource). */
  out?: string | undefined;
  /** Requests (pages) in flight at once, 1 to 64. Default 8. */
  concurrency?: number | undefined;
  /** The tracks export only (D8): also the archived tracks, or only them. */
  archived?: 'include' | 'only' | undefined;
  /** CSV only: cells exactly as the API gives them (no spreadsheet-formula guard). */
  csvRaw?: boolean | undefined;
  /** CSV only: start each file with a UTF-8 BOM (for Excel). */
  bom?: boolean | undefined;
  /** Accept an export whose count drifted while it ran, with a warning in the manifest (D9). */
  allowDrift?: boolean | undefined;
  /** D27: write `<resource>.changes.jsonl` against the previous run's state in the directory. */
  changes?: boolean | undefined;
  /** Parquet only: a row group is cut at this many rows. Default 100,000. */
  rowGroupRows?: number | undefined;
  /** Parquet only: …or at this many bytes of uncompressed data, if first. Default 64 MiB. */
  rowGroupBytes?: number | undefined;
  /** Parquet only: `snappy` (default), `zstd` (Node 22.15 or later) or `none`. */
  compression?: ParquetCompression | undefined;
  /**
   * `--ack RUN`: the run the consumer applied last; the changes go from its snapshot
   * (FORMATS.md "The change contract").
   */
  ack?: string | undefined;
  /** `full`: compare with no earlier run (every record an insert). */
  full?: boolean | undefined;
  /**
   * `--force`: write into a directory whose manifest names another service (files/service.ts);
   * its files are replaced. Without it such a run is refused before any request.
   */
  force?: boolean | undefined;
  /** The data is a demo's (`rcs demo`): the manifest says so, and real exports are kept apart. */
  demo?: boolean | undefined;
  /** While the service is down, each page keeps trying this long (the client's `retryForMs`). */
  retryForMs?: number | undefined;
}

export const DEFAULT_OUT_DIR = 'rcs-export';
export const DEFAULT_EXPORT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 64;
/**
 * Parquet row groups as warehouses write them: DuckDB cuts at 122,880 rows and reads
 * best at 100k-1M; Spark and parquet-java cut at 128 MB; BigQuery asks for at least 16 MiB.
 */
export const DEFAULT_ROW_GROUP_ROWS = 100_000;
export const DEFAULT_ROW_GROUP_BYTES = 64 * 1024 * 1024;
export const MAX_ROW_GROUP_ROWS = 100_000_000;
export const MAX_ROW_GROUP_BYTES = 1024 * 1024 * 1024;
/**
 * Retries per page (the client's default is 2). An export is hundreds of idempotent GETs, and a
 * nightly job should ride out a flaky network rather than fail on the one page in a thousand
 * that is unlucky three times: at a 20% fault rate a page fails 9 times in a row with
 * probability 5·10⁻⁷. The client's backoff and Retry-After handling apply (429, 5xx, drops).
 */
export const EXPORT_MAX_RETRIES = 8;
/** Records per request: the maximum (D7), so the fewest requests. */
export const PAGE_LIMIT = 100;

export interface ExportPlan {
  entries: ExportEntry[];
  format: ExportFormat;
  /** undefined: stdout. */
  dir: string | undefined;
  concurrency: number;
  archived: 'include' | 'only' | undefined;
  csvRaw: boolean;
  bom: boolean;
  allowDrift: boolean;
  changes: boolean;
  ack: string | undefined;
  full: boolean;
  force: boolean;
  demo: boolean;
  rowGroupRows: number;
  rowGroupBytes: number;
  compression: ParquetCompression;
  retryForMs?: number | undefined;
}

const NAMES = EXPORT_TABLE.map((e) => e.resource).join(', ');

export function planExport(options: ExportOptions): ExportPlan {
  const requested = options.resources.map((r) => r.trim()).filter((r) => r !== '');
  if (requested.length === 0) {
    throw usageError(`name what to export: one or more of ${NAMES}, or all`);
  }
  const unknown = requested.filter(
    (r) => r !== 'all' && !EXPORT_TABLE.some((e) => e.resource === r),
  );
  if (unknown.length > 0) {
    throw usageError(
      `unknown export ${unknown.map((r) => `"${r}"`).join(', ')}; the exports are: ${NAMES} (or all)`,
    );
  }
  // Table order, each once: `all` or a list in any order gives the same files and manifest.
  const entries = EXPORT_TABLE.filter(
    (e) => requested.includes('all') || requested.includes(e.resource),
  );

  const format = options.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv' && format !== 'parquet') {
    throw usageError(`\`format\` must be jsonl, csv or parquet, got "${String(format)}"`);
  }
  const csvRaw = options.csvRaw ?? false;
  const bom = options.bom ?? false;
  if (format !== 'csv' && (csvRaw || bom)) {
    throw usageError(
      `\`${csvRaw ? 'csvRaw' : 'bom'}\` applies to \`format\` csv only (${format === 'jsonl' ? 'JSONL is UTF-8 without a BOM' : 'Parquet is typed and binary'})`,
    );
  }
  /** A whole-number option, or its default when not given. */
  const wholeNumber = (
    option: 'concurrency' | 'rowGroupRows' | 'rowGroupBytes',
    fallback: number,
    max: number,
  ) => {
    const value = options[option];
    if (value !== undefined && option !== 'concurrency' && format !== 'parquet') {
      throw usageError(
        `\`${option}\` applies to \`format\` parquet only (row groups are Parquet's)`,
      );
    }
    return checkNumber(`\`${option}\``, value ?? fallback, { min: 1, max }, usageError);
  };
  const concurrency = wholeNumber('concurrency', DEFAULT_EXPORT_CONCURRENCY, MAX_CONCURRENCY);
  const rowGroupRows = wholeNumber('rowGroupRows', DEFAULT_ROW_GROUP_ROWS, MAX_ROW_GROUP_ROWS);
  const rowGroupBytes = wholeNumber('rowGroupBytes', DEFAULT_ROW_GROUP_BYTES, MAX_ROW_GROUP_BYTES);
  const compression = options.compression ?? 'snappy';
  if (options.compression !== undefined) {
    if (format !== 'parquet') {
      throw usageError(
        '`compression` applies to `format` parquet only (the pages of a Parquet file)',
      );
    }
    if (!PARQUET_COMPRESSIONS.includes(compression)) {
      throw usageError(
        `\`compression\` must be snappy, zstd or none, got "${String(compression)}"`,
      );
    }
    const unavailable = compressionUnavailable(compression);
    if (unavailable) throw usageError(unavailable);
  }
  const archived = options.archived;
  if (archived !== undefined) {
    if (archived !== 'include' && archived !== 'only') {
      throw usageError(`\`archived\` must be include or only, got "${String(archived)}"`);
    }
    if (!entries.some((e) => e.resource === 'tracks')) {
      // D8: only the tracks export has archived records.
      throw usageError('`archived` applies to the tracks export only; add tracks or all');
    }
  }
  const out = options.out === undefined || options.out === '' ? DEFAULT_OUT_DIR : options.out;
  if (out === '-' && entries.length !== 1) {
    throw usageError(
      `\`out\` - streams exactly one export to stdout, but ${entries.length} were named; pick one, or write to a directory`,
    );
  }
  const changes = options.changes ?? false;
  if (changes && out === '-') {
    // D27: the previous run's state lives in the output directory.
    throw usageError(
      '`changes` compares with the previous run kept in the output directory; it needs `out` DIR, not -',
    );
  }
  const ack = options.ack;
  const full = options.full ?? false;
  if ((ack !== undefined || full) && !changes) {
    throw usageError(`\`${full ? 'full' : 'ack'}\` applies to \`changes\` only`);
  }
  if (ack !== undefined && full) {
    throw usageError(
      '`ack` and `full` contradict each other: `full` compares with no earlier run, `ack` with the run named',
    );
  }
  const force = options.force ?? false;
  if (force && out === '-') {
    throw usageError(
      "`force` applies to `out` DIR (it replaces another service's export there), not to -",
    );
  }
  if (ack !== undefined && !isRunId(ack)) {
    throw usageError(
      `\`ack\` takes a run id as the manifest's changes.runId gives it (like 20261125T204512Z-3fa9c1), got "${ack}"`,
    );
  }
  return {
    entries,
    format,
    dir: out === '-' ? undefined : out,
    concurrency,
    archived,
    csvRaw,
    bom,
    allowDrift: options.allowDrift ?? false,
    changes,
    ack,
    full,
    force,
    demo: options.demo ?? false,
    rowGroupRows,
    rowGroupBytes,
    compression,
    retryForMs: options.retryForMs,
  };
}
