/**
 * `rcs export` options (cli.md) and their validation. Bad input is rejected before any request,
 * with one line naming what is wrong (exit 2).
 */

import { EXPORT_TABLE, type ExportEntry } from '@rcs/client';
import { usageError } from './errors.js';
import type { ExportFormat } from './files/manifest.js';

export interface ExportOptions {
  /** Path names of the exports (`users`, `real-call-sessions`, …) or `all`. */
  resources: string[];
  format: ExportFormat;
  /** A directory, or `-` for stdout (exactly one resource). */
  out: string;
  /** Requests in flight at once, shared by all resources and pages. Default 8. */
  concurrency?: number | undefined;
  /** Tracks only (D8). */
  archived?: 'include' | 'only';
  csvRaw: boolean;
  bom: boolean;
  allowDrift: boolean;
  /** D27: write `<resource>.changes.jsonl` against the previous run's state in the directory. */
  changes?: boolean;
}

export const DEFAULT_OUT_DIR = 'rcs-export';
export const DEFAULT_EXPORT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 64;
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
}

const NAMES = EXPORT_TABLE.map((e) => e.resource).join(', ');

function concurrencyOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_EXPORT_CONCURRENCY;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
    throw usageError(
      `--concurrency must be an integer from 1 to ${MAX_CONCURRENCY}, got ${String(value)}`,
    );
  }
  return value;
}

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

  const format = options.format;
  if (format !== 'jsonl' && format !== 'csv' && format !== 'parquet') {
    throw usageError(`--format must be jsonl, csv or parquet, got "${String(format)}"`);
  }
  if (format !== 'csv' && (options.csvRaw || options.bom)) {
    throw usageError(
      `${options.csvRaw ? '--csv-raw' : '--bom'} applies to --format csv only (${format === 'jsonl' ? 'JSONL is UTF-8 without a BOM' : 'Parquet is typed and binary'})`,
    );
  }
  const concurrency = concurrencyOf(options.concurrency);
  const archived = options.archived;
  if (archived !== undefined) {
    if (archived !== 'include' && archived !== 'only') {
      throw usageError(`--archived must be include or only (D8), got "${String(archived)}"`);
    }
    if (!entries.some((e) => e.resource === 'tracks')) {
      throw usageError('--archived applies to the tracks export only (D8); add tracks or all');
    }
  }
  const out = options.out === '' ? DEFAULT_OUT_DIR : options.out;
  if (out === '-' && entries.length !== 1) {
    throw usageError(
      `--out - streams exactly one export to stdout, but ${entries.length} were named; pick one, or write to a directory`,
    );
  }
  const changes = options.changes ?? false;
  if (changes && out === '-') {
    throw usageError(
      '--changes compares with the previous run kept in the output directory (D27); it needs --out DIR, not -',
    );
  }
  return {
    entries,
    format,
    dir: out === '-' ? undefined : out,
    concurrency,
    archived,
    csvRaw: options.csvRaw,
    bom: options.bom,
    allowDrift: options.allowDrift,
    changes,
  };
}
