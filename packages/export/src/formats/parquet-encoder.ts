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
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import type { RecordShape } from '../shape.js';
import type { ApiRecord, PageEncoder } from './encoders.js';
import { ColumnBuffers, type SizeCounter } from './parquet-columns.js';
import { ParquetFooter, type RowGroupMeta } from './parquet-footer.js';
import { parquetSchemaOf } from './parquet-schema.js';

/**
 * A row group is written when either is reached. The exports of a run write at once, so they
 * share PARQUET_MEMORY of buffered values; a group is never cut below MIN_GROUP_BYTES, and never
 * holds more than ROW_GROUP_ROWS. Issue 13's flat memory: the buffered values cost several times
 * their byte count in V8's heap (and in the pages V8 keeps after they die), so a 16 MB budget put
 * `rcs export real-call-sessions --format parquet --changes` alone at 235 MB peak RSS and `all` at
 * 189-193 MB (300,000 records, second run); at 4 MB with groups of at least 512 KB (and the same
 * cut in changes.ts), 164-176 and 167-169 MB, for ~8 % more CPU. Since the footer is kept as
 * bytes (parquet-footer.ts), more groups no longer cost heap: at 2 MB with groups of at least
 * 256 KB (and 2 MB in changes.ts), `all` with --changes at 1M records peaks at 152.7-154.7 MB
 * against 161.2-163.5 MB at 4 MB / 512 KB (three runs each), for 1-6 % more time; 1 MB / 128 KB
 * was no better (157-168 MB). A 256 KB group still holds hundreds of sessions or thousands of
 * smaller records.
 */
const PARQUET_MEMORY = 2 * 1024 * 1024;
const MIN_GROUP_BYTES = 256 * 1024;
const ROW_GROUP_ROWS = 100_000;
/** The writer's buffer after each handover (hyparquet-writer's ByteWriter starts at 1 KB). */
const WRITER_START = 16 * 1024;
/** hyparquet-writer's default data page size, as ParquetWriter.write uses it. */
const PAGE_SIZE = 1024 * 1024;

function rowGroupLimits(sharedBy: number): RowGroupLimits {
  return {
    rows: ROW_GROUP_ROWS,
    bytes: Math.max(MIN_GROUP_BYTES, Math.floor(PARQUET_MEMORY / Math.max(1, sharedBy))),
  };
}

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
  const schema = parquetSchemaOf(shape.fields) as ConstructorParameters<
    typeof ParquetWriter
  >[0]['schema'];
  const parquet = new ParquetWriter({
    writer,
    schema,
    codec: 'SNAPPY',
    createdBy,
  });
  // Row groups' metadata as bytes from the moment they are written (parquet-footer.ts).
  const footer = new ParquetFooter(schema, parquet.statisticsTruncateLength);
  let numRows = 0n;
  const buffers = new ColumnBuffers(shape.fields);
  const size: SizeCounter = { bytes: 0 };
  const resolve = schemaPathResolver(schema);
  // Per top-level column, its leaves' schema paths (depth first, as ColumnBuffers' leaves).
  const leafPaths = shape.fields.map((field) => {
    const paths: (typeof schema)[] = [];
    const visit = (path: ReturnType<typeof resolve>) => {
      const node = path[path.length - 1]!;
      if (node.children.length === 0) paths.push(path.map((n) => n.element));
      for (const child of node.children) visit([...path, child]);
    };
    visit(resolve([field.name]));
    return paths;
  });
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

  /**
   * The bytes the writer produced since the last call (the writer keeps counting offsets). They
   * leave with the writer's buffer itself, and the writer starts again from a small one: a
   * buffer grown to a whole row group is not kept by each of the run's encoders between groups
   * (issue 13), and the group's bytes are not copied once more.
   */
  const take = (): Uint8Array => {
    if (writer.index === 0) return new Uint8Array(0);
    const bytes = new Uint8Array(writer.buffer, 0, writer.index);
    writer.buffer = new ArrayBuffer(WRITER_START);
    writer.view = new DataView(writer.buffer);
    writer.index = 0;
    return bytes;
  };

  /**
   * Writes the buffered rows as one row group, a column at a time, each leaf's buffers
   * released as soon as its column chunk is written (what ParquetWriter.write does, with the
   * same options, from the shredded columns instead of row objects).
   */
  const writeGroup = (): void => {
    const rows = buffers.rows;
    if (rows === 0) return;
    const groupStart = writer.offset;
    const chunks: RowGroupMeta['columns'] = [];
    for (let c = 0; c < shape.fields.length; c++) {
      const leaves = buffers.columnLeaves[c]!;
      for (let l = 0; l < leaves.length; l++) {
        const leaf = leaves[l]!;
        const schemaPath = leafPaths[c]![l]!;
        const result = writeColumn({
          writer,
          column: {
            columnName: schemaPath
              .slice(1)
              .map((s) => s.name)
              .join('.'),
            element: schemaPath[schemaPath.length - 1]!,
            schemaPath,
            codec: parquet.codec,
            compressors: parquet.compressors,
            stats: parquet.statistics,
            statisticsTruncateLength: parquet.statisticsTruncateLength,
            pageSize: PAGE_SIZE,
            dictionarySize: undefined,
            columnIndex: false,
            // No page index: a chunk of a group is one page (groups are far below PAGE_SIZE)
            // unless a lone export writes 4 MB groups, and the footer is written as it goes.
            offsetIndex: false,
            encoding: undefined,
            bloomFilter: undefined,
          },
          pageData: ColumnBuffers.pageData(leaf) as Parameters<typeof writeColumn>[0]['pageData'],
        });
        leaf.values = [];
        chunks.push(result.chunk as RowGroupMeta['columns'][number]);
      }
    }
    let totalByteSize = 0n;
    for (const { meta_data } of chunks) totalByteSize += meta_data?.total_uncompressed_size ?? 0n;
    numRows += BigInt(rows);
    footer.add({
      columns: chunks,
      total_byte_size: totalByteSize,
      num_rows: BigInt(rows),
      total_compressed_size: BigInt(writer.offset - groupStart),
    });
    buffers.clear();
    size.bytes = 0;
  };

  const label = () => labelOf(currentRecord, currentIndex);
  const addRow = (row: Record<string, unknown>, record: ApiRecord, index: number): void => {
    currentRow = row;
    currentRecord = record;
    currentIndex = index;
    buffers.addRow(columnValue, size, label);
    if (buffers.rows >= limits.rows || size.bytes >= limits.bytes) writeGroup();
  };

  const preamble = take();
  return {
    preamble,
    encode(records) {
      rows(records, addRow);
      return take();
    },
    end() {
      writeGroup();
      footer.finish(writer, numRows, createdBy);
      return take();
    },
  };
}
