/**
 * Page encoders: one page of records in, the bytes of that page out (as a string).
 *
 * - JSONL: one API record per line, unchanged (`JSON.stringify` of the parsed record
 *   keeps its properties in the service's order), UTF-8, `\n`, never a BOM.
 * - CSV: RFC 4180 via csv-stringify: CRLF after every record, a field quoted when it holds a
 *   comma, a quote (doubled) or a line break. csv-stringify only quotes the configured record
 *   delimiter by default, so a lone `\n` or `\r` inside a cell is matched explicitly.
 *   The header comes from the schema's column list (columns.ts), not from the first record.
 */
import { stringify } from 'csv-stringify/sync';
import type { ParquetFileShape } from '../files/manifest.js';
import { rowBuilder } from './cells.js';
import { SESSION_ITEM_COLUMNS, SESSION_ITEM_FIELDS } from './columns.js';
import { neutraliseCell } from './neutralise.js';

export const BOM = '\uFEFF';

export type ApiRecord = { id: string } & Record<string, unknown>;

/** Text (JSONL, CSV) or bytes (Parquet). */
export type Chunk = string | Uint8Array;

export interface PageEncoder<C extends Chunk = Chunk> {
  /** Bytes before the first record: a BOM and/or a CSV header, Parquet's magic number. */
  readonly preamble: C;
  encode(records: readonly ApiRecord[]): C;
  /** Bytes after the last record (Parquet's last row group and footer). */
  end?(): C;
  /** Parquet: the file's row groups and schema for the manifest, once `end` has run. */
  parquetShape?(): ParquetFileShape;
}

export function jsonlEncoder(): PageEncoder<string> {
  return {
    preamble: '',
    encode(records) {
      let out = '';
      for (const record of records) out += `${JSON.stringify(record)}\n`;
      return out;
    },
  };
}

const CSV_OPTIONS = {
  record_delimiter: '\r\n',
  quoted_match: /[\r\n]/,
  cast: { string: (value: string) => value },
} as const;

function csvText(rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  return stringify(rows as string[][], CSV_OPTIONS);
}

export interface CsvOptions {
  raw: boolean;
  bom: boolean;
}

export function csvEncoder(columns: readonly string[], options: CsvOptions): PageEncoder<string> {
  const toRow = rowBuilder(columns, options.raw);
  return {
    preamble: (options.bom ? BOM : '') + csvText([columns]),
    encode: (records) => csvText(records.map(toRow)),
  };
}

/**
 * The child table of real-call sessions: one row per analysis item, keyed by `sessionId` and
 * `itemIndex` (its 0-based position in `analysis.items`), so BI tools get a proper join.
 */
export function sessionItemsEncoder(options: CsvOptions): PageEncoder<string> {
  const toItemRow = rowBuilder(SESSION_ITEM_FIELDS, options.raw);
  const key = (text: string) => (options.raw ? text : neutraliseCell(text));
  return {
    preamble: (options.bom ? BOM : '') + csvText([SESSION_ITEM_COLUMNS]),
    encode(records) {
      const rows: string[][] = [];
      for (const record of records) {
        const analysis = record.analysis as { items?: unknown } | null | undefined;
        const items = Array.isArray(analysis?.items) ? analysis.items : [];
        items.forEach((item, index) => {
          rows.push([key(record.id), String(index), ...toItemRow(item)]);
        });
      }
      return csvText(rows);
    },
  };
}
