/**
 * `--format parquet` (D27): a page encoder that buffers converted rows and writes a Parquet row
 * group (snappy-compressed) whenever about ROW_GROUP_BYTES of values or ROW_GROUP_ROWS rows are
 * buffered, so memory stays flat for any export size; `end()` writes the last group and the
 * footer. The bytes go to the same atomic file (hash, fsync, rename) as JSONL and CSV.
 *
 * Library: hyparquet-writer (pure JavaScript, MIT, one dependency, ~1 MB installed, bundled into
 * the CLI as a chunk that only this format imports, so other commands do not pay for it). It
 * writes nested STRUCT/LIST columns and row groups incrementally through `ParquetWriter`.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ApiRecord, PageEncoder } from './encoders.js';
import { parquetSchemaOf } from './parquet-schema.js';
import { rowValues, type SizeCounter } from './parquet-values.js';
import type { RecordShape } from './shape.js';

/**
 * A row group is written when either is reached. The exports of a run write at once, so they
 * share PARQUET_MEMORY of buffered values (issue 13: the same flat memory as JSONL at a million
 * records); a group is never cut below MIN_GROUP_BYTES, and never holds more than ROW_GROUP_ROWS.
 */
const PARQUET_MEMORY = 16 * 1024 * 1024;
const MIN_GROUP_BYTES = 1024 * 1024;
const ROW_GROUP_ROWS = 100_000;

export function rowGroupLimits(sharedBy: number): RowGroupLimits {
  return {
    rows: ROW_GROUP_ROWS,
    bytes: Math.max(MIN_GROUP_BYTES, Math.floor(PARQUET_MEMORY / Math.max(1, sharedBy))),
  };
}

/** Rows of a table from one page of records (a record can give zero or many rows). */
export type RowSource = (records: readonly ApiRecord[]) => Iterable<{
  row: Record<string, unknown>;
  label: string;
}>;

export const recordRows: RowSource = function* (records) {
  for (const record of records) yield { row: record, label: `record ${JSON.stringify(record.id)}` };
};

/** One row per analysis item of each session (the child table). */
export const sessionItemRows: RowSource = function* (records) {
  for (const record of records) {
    const analysis = record.analysis as { items?: unknown } | null | undefined;
    const items = Array.isArray(analysis?.items) ? analysis.items : [];
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      yield {
        row: {
          ...(item && typeof item === 'object' ? item : {}),
          sessionId: record.id,
          itemIndex: index,
        },
        label: `record ${JSON.stringify(record.id)} item ${index}`,
      };
    }
  }
};

export interface RowGroupLimits {
  rows: number;
  bytes: number;
}

export function parquetEncoder(
  shape: RecordShape,
  rows: RowSource,
  createdBy: string,
  limits: RowGroupLimits = rowGroupLimits(1),
): PageEncoder<Uint8Array> {
  const writer = new ByteWriter();
  const schema = parquetSchemaOf(shape.fields);
  const parquet = new ParquetWriter({
    writer,
    schema: schema as ConstructorParameters<typeof ParquetWriter>[0]['schema'],
    codec: 'SNAPPY',
    createdBy,
  });
  const columns: unknown[][] = shape.fields.map(() => []);
  const size: SizeCounter = { bytes: 0 };
  let buffered = 0;

  /** The bytes the writer produced since the last call (the writer keeps counting offsets). */
  const take = (): Uint8Array => {
    const bytes = new Uint8Array(writer.buffer, 0, writer.index).slice();
    writer.index = 0;
    return bytes;
  };

  const writeGroup = (): void => {
    if (buffered === 0) return;
    const result = parquet.write({
      columnData: shape.fields.map((f, i) => ({ name: f.name, data: columns[i]! })),
      rowGroupSize: buffered,
    });
    // Without a `flush` on the writer, ParquetWriter writes synchronously.
    if (result) throw new Error('parquet writer went asynchronous');
    for (const column of columns) column.length = 0;
    buffered = 0;
    size.bytes = 0;
  };

  const preamble = take();
  return {
    preamble,
    encode(records) {
      for (const { row, label } of rows(records)) {
        const values = rowValues(row, shape, label, size);
        for (let i = 0; i < values.length; i++) columns[i]!.push(values[i]);
        buffered++;
        if (buffered >= limits.rows || size.bytes >= limits.bytes) writeGroup();
      }
      return take();
    },
    end() {
      writeGroup();
      const finished = parquet.finish();
      if (finished) throw new Error('parquet writer went asynchronous');
      return take();
    },
  };
}
