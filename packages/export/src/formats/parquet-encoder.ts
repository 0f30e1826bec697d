/**
 * `--format parquet` (D27, issue 26): a page encoder that takes converted rows as pages arrive
 * and writes a row group the way a warehouse's own writer would: when it holds `rowGroupRows`
 * rows (default 100,000) or `rowGroupBytes` of uncompressed values (default 64 MiB), whichever
 * comes first; the last group of a file (and a smaller file) holds the rest. Pages of about
 * 1 MiB, statistics, snappy by default, zstd or none on request (parquet-compression.ts). `end()` writes the last group, the
 * page indexes and the footer. The bytes go to the same atomic file (hash, fsync, rename) as
 * JSONL and CSV.
 *
 * Library: hyparquet-writer (pure JavaScript, MIT, bundled into the CLI as a chunk that only
 * this format imports), through its public API only (`ParquetWriter`, `ByteWriter`): the
 * library shreds the rows into columns, encodes, compresses and writes the footer. One export
 * writes at a time (run.ts), so one group of rows is held at a time per table.
 */
import { type ColumnSource, ParquetWriter, type SchemaElement } from 'hyparquet-writer';
import { type ParquetFileShape, parquetFileShape } from '../files/manifest.js';
import type { RecordShape } from '../shape.js';
import type { ApiRecord, PageEncoder } from './encoders.js';
import { type ParquetCompression, parquetCodecOf } from './parquet-compression.js';
import { parquetColumnsOf, parquetSchemaOf } from './parquet-schema.js';
import { ChunkSink } from './parquet-sink.js';
import { ParquetColumns } from './parquet-values.js';

/** The Parquet format's options (`--row-group-rows`, `--row-group-bytes`, `--compression`). */
export interface ParquetOptions {
  /** A row group is written when it holds this many rows. */
  rowGroupRows?: number;
  /** ... or this many bytes of uncompressed values, if that comes first (large rows). */
  rowGroupBytes?: number;
  compression?: ParquetCompression;
}

/**
 * DuckDB writes 122,880 rows a group and reads best at 100k-1M; BigQuery asks for at least
 * 16 MiB, Spark and parquet-java cut at 128 MB (issue 26).
 */
const PARQUET_DEFAULTS: Required<ParquetOptions> = {
  rowGroupRows: 100_000,
  rowGroupBytes: 64 * 1024 * 1024,
  compression: 'snappy',
};

/** About 1 MiB of uncompressed values a data page (hyparquet-writer's default, and parquet-java's). */
const PAGE_SIZE = 1024 * 1024;

/**
 * Rows of a table from one page of records (a record can give zero or many rows): `add` is
 * called with each row, the record it comes from and, for a child table, the row's position in
 * the record (-1 for the record itself), which name the row if a value does not fit.
 */
export type RowSource = (
  records: readonly ApiRecord[],
  add: (row: Record<string, unknown>, record: ApiRecord, index: number) => void,
) => void;

export const recordRows: RowSource = (records, add) => {
  for (const record of records) add(record, record, -1);
};

/**
 * One row per analysis item of each session (the child table): the item's properties, with
 * `sessionId` and `itemIndex` given by the record and the position (SESSION_ITEM_SHAPE's first
 * two columns), so no row object is built per item.
 */
export const sessionItemRows: RowSource = (records, add) => {
  for (const record of records) {
    const analysis = record.analysis as { items?: unknown } | null | undefined;
    const items = Array.isArray(analysis?.items) ? analysis.items : [];
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      add(item && typeof item === 'object' ? (item as Record<string, unknown>) : {}, record, index);
    }
  }
};

function labelOf(record: ApiRecord, index: number): string {
  const label = `record ${JSON.stringify(record.id)}`;
  return index < 0 ? label : `${label} item ${index}`;
}

/** A whole number of at least 1, or a clear error naming the option (library callers). */
function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number of at least 1, got ${String(value)}`);
  }
  return value;
}

/** A Parquet page encoder that also describes the file it wrote (for the manifest). */
export interface ParquetEncoder extends PageEncoder<Uint8Array> {
  parquetShape(): ParquetFileShape;
}

export function parquetEncoder(
  shape: RecordShape,
  rows: RowSource,
  createdBy: string,
  options: ParquetOptions = {},
): ParquetEncoder {
  const groupRows = positive('rowGroupRows', options.rowGroupRows ?? PARQUET_DEFAULTS.rowGroupRows);
  const groupBytes = positive(
    'rowGroupBytes',
    options.rowGroupBytes ?? PARQUET_DEFAULTS.rowGroupBytes,
  );
  const compression = options.compression ?? PARQUET_DEFAULTS.compression;
  const sink = new ChunkSink();
  const schema: SchemaElement[] = parquetSchemaOf(shape.fields);
  const parquet = new ParquetWriter({
    writer: sink,
    schema,
    ...parquetCodecOf(compression),
    statistics: true,
    createdBy,
  });
  const columns = new ParquetColumns(shape.fields);
  const rowGroups: number[] = [];

  // A row of a child table names sessionId and itemIndex from its record and position.
  const fromRecord = shape.fields.map((f, i) =>
    i < 2 && (f.name === 'sessionId' || f.name === 'itemIndex') ? f.name : undefined,
  );
  // The row being added (variables, not an object per row).
  let currentRow: Record<string, unknown> = {};
  let currentRecord: ApiRecord = { id: '' };
  let currentIndex = -1;
  const columnValue = (column: number): unknown => {
    const special = currentIndex >= 0 ? fromRecord[column] : undefined;
    if (special === 'sessionId') return currentRecord.id;
    if (special === 'itemIndex') return currentIndex;
    return currentRow[shape.fields[column]!.name];
  };
  const label = () => labelOf(currentRecord, currentIndex);

  /** The rows taken so far as one row group (one `write` call is one group). */
  const writeGroup = (): void => {
    const count = columns.rows;
    if (count === 0) return;
    const columnData: ColumnSource[] = columns.take();
    // No promise: the sink's flush is synchronous, so the group is written when write returns.
    void parquet.write({ columnData, rowGroupSize: count, pageSize: PAGE_SIZE });
    rowGroups.push(count);
  };

  const addRow = (row: Record<string, unknown>, record: ApiRecord, index: number): void => {
    currentRow = row;
    currentRecord = record;
    currentIndex = index;
    columns.addRow(columnValue, label);
    if (columns.rows >= groupRows || columns.bytes >= groupBytes) writeGroup();
  };

  const preamble = sink.take();
  return {
    preamble,
    parquetShape: () => parquetFileShape(compression, rowGroups, parquetColumnsOf(shape.fields)),
    encode(records) {
      rows(records, addRow);
      return sink.take();
    },
    end() {
      writeGroup();
      void parquet.finish();
      return sink.take();
    },
  };
}
