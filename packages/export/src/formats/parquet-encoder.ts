/**
 * `--format parquet` (D27): a streaming column-chunk writer. Each row goes straight into the
 * buffers of its leaf columns as its page of records arrives (parquet-shred.ts,
 * parquet-chunk.ts); pages of about 1 MiB are encoded and compressed as they fill, and a row
 * group goes to the file the way a warehouse's own writer cuts it: when it holds `rowGroupRows`
 * rows (default 100,000) or `rowGroupBytes` of uncompressed values (default 64 MiB), whichever
 * comes first; the last group of a file (and a smaller file) holds the rest. Statistics,
 * dictionary encoding, snappy by default, zstd or none on request (parquet-compression.ts).
 * `end()` writes the last group, the offset indexes and the footer. The bytes go to the same
 * atomic file (hash, fsync, rename) as JSONL and CSV.
 *
 * What a group holds while it fills is its compressed pages and one open page a leaf, not the
 * rows as JavaScript values (at 1M records, hyparquet-writer's whole-group `ParquetWriter`
 * peaked near 700 MB; bench/export/README.md). The format's structures (page headers, footer,
 * offset indexes, RLE levels) are hyparquet-writer's building blocks (parquet-library.ts), in
 * the CLI a chunk that only this format imports. One export writes at a time (run.ts).
 */

import { checkNumber } from '@rcs/client/internal';
import snappy from 'snappyjs';
import { type ParquetFileShape, parquetFileShape } from '../files/manifest.js';
import type { RecordShape } from '../shape.js';
import type { ApiRecord, PageEncoder } from './encoders.js';
import { type GroupSize, LeafChunk } from './parquet-chunk.js';
import {
  type Compress,
  compressionUnavailable,
  nodeZstd,
  type ParquetCompression,
} from './parquet-compression.js';
import {
  ByteWriter,
  type CompressionCodec,
  type FileMetaData,
  type PageIndexes,
  type RowGroup,
  writeIndexes,
  writeMetadata,
} from './parquet-library.js';
import { parquetColumnsOf, parquetSchemaOf } from './parquet-schema.js';
import { Misfit, ParquetValueError, type ShredNode, shred, shredNodeOf } from './parquet-shred.js';

/** The Parquet format's options (`--row-group-rows`, `--row-group-bytes`, `--compression`). */
export interface ParquetOptions {
  /** A row group is written when it holds this many rows. */
  rowGroupRows?: number;
  /** ... or this many bytes of uncompressed values, if that comes first (large rows). */
  rowGroupBytes?: number;
  compression?: ParquetCompression;
  /** Bytes of values at which a page closes (at the next row boundary). */
  pageSize?: number;
}

/**
 * DuckDB writes 122,880 rows a group and reads best at 100k-1M; BigQuery asks for at least
 * 16 MiB, Spark and parquet-java cut at 128 MB.
 */
const PARQUET_DEFAULTS: Required<ParquetOptions> = {
  rowGroupRows: 100_000,
  rowGroupBytes: 64 * 1024 * 1024,
  compression: 'snappy',
  // About 1 MiB of uncompressed values a data page (parquet-java's and arrow-rs's default).
  pageSize: 1024 * 1024,
};

/** A dictionary past this many bytes gives way to PLAIN pages (parquet-java's and arrow-rs's). */
const DICTIONARY_LIMIT = 1024 * 1024;

/** "PAR1", at both ends of a Parquet file. */
const MAGIC = 0x31524150;

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
      // An item that is not an object has none of its properties (a string's or number's are
      // none of the item's): only null and undefined, which have none to read, are replaced.
      add((item ?? {}) as Record<string, unknown>, record, index);
    }
  }
};

function labelOf(record: ApiRecord, index: number): string {
  const label = `record ${JSON.stringify(record.id)}`;
  return index < 0 ? label : `${label} item ${index}`;
}

/** A whole number of at least 1, or a clear error naming the option (library callers). */
const positive = (name: string, value: number) =>
  checkNumber(name, value, { min: 1 }, (message) => new RangeError(message));

/** The codec a file's footer names, and what compresses a page for it (none: as it is). */
function parquetCodecOf(compression: ParquetCompression): {
  codec: CompressionCodec;
  compress: Compress | undefined;
} {
  switch (compression) {
    case 'snappy':
      return { codec: 'SNAPPY', compress: (input) => snappy.compress(input) };
    case 'none':
      return { codec: 'UNCOMPRESSED', compress: undefined };
    case 'zstd': {
      const zstd = nodeZstd();
      if (!zstd) throw new Error(compressionUnavailable('zstd'));
      return { codec: 'ZSTD', compress: zstd };
    }
  }
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
  const pageSize = positive('pageSize', options.pageSize ?? PARQUET_DEFAULTS.pageSize);
  const compression = options.compression ?? PARQUET_DEFAULTS.compression;
  const settings = { ...parquetCodecOf(compression), pageSize, dictionaryLimit: DICTIONARY_LIMIT };
  const size: GroupSize = { bytes: 0 };
  /** Leaves whose page is full (or that give up their dictionary): closed between rows. */
  const ready: LeafChunk[] = [];
  const leaves: LeafChunk[] = [];
  const columns: ShredNode[] = shape.fields.map((f) =>
    shredNodeOf([f.name], f.shape, 0, 0, (path, kind, levels) => {
      const leaf = new LeafChunk(path, kind, levels, settings, size, ready);
      leaves.push(leaf);
      return leaf;
    }),
  );

  // The file's bytes since the last take, and its length so far (offsets in the footer).
  let out: Uint8Array[] = [];
  let offset = 0;
  const emit = (bytes: Uint8Array): void => {
    out.push(bytes);
    offset += bytes.length;
  };
  const take = (): Uint8Array => {
    const taken = Buffer.concat(out);
    out = [];
    return taken;
  };

  const rowGroups: RowGroup[] = [];
  // Stryker disable next-line ArrayDeclaration: writeIndexes skips an entry without a chunk.
  const indexes: PageIndexes[] = [];
  let groupRowCount = 0;
  let totalRows = 0;
  /** Set when a row is refused: the leaves may hold part of it, so nothing more is written. */
  let failure: unknown;

  /** The rows taken so far as one row group: each leaf's chunk, in schema order. */
  const writeGroup = (): void => {
    if (groupRowCount === 0) return;
    const start = offset;
    let uncompressed = 0n;
    const chunks = [];
    for (const leaf of leaves) {
      const { parts, index } = leaf.finish(offset);
      for (const part of parts) emit(part);
      chunks.push(index.chunk);
      indexes.push(index);
      uncompressed += index.chunk.meta_data!.total_uncompressed_size;
    }
    rowGroups.push({
      columns: chunks,
      total_byte_size: uncompressed,
      num_rows: BigInt(groupRowCount),
      total_compressed_size: BigInt(offset - start),
    });
    totalRows += groupRowCount;
    groupRowCount = 0;
    size.bytes = 0;
  };

  const names = shape.fields.map((f) => f.name);
  const addRow = (row: Record<string, unknown>, record: ApiRecord, index: number): void => {
    for (let c = 0; c < columns.length; c++) {
      const name = names[c]!;
      // A row of a child table names sessionId and itemIndex from its record and position.
      const value =
        index < 0
          ? row[name]
          : name === 'sessionId'
            ? record.id
            : name === 'itemIndex'
              ? index
              : row[name];
      try {
        shred(columns[c]!, value, 0, 0);
      } catch (caught) {
        if (!(caught instanceof Misfit)) throw caught;
        const message = caught.within(name).message();
        throw new ParquetValueError(`${labelOf(record, index)}: ${message}`);
      }
    }
    // Between rows: the pages that filled close here, so a page never splits a row.
    for (const leaf of ready) leaf.closePage();
    ready.length = 0;
    groupRowCount++;
    if (groupRowCount >= groupRows || size.bytes >= groupBytes) writeGroup();
  };

  const guarded = <T>(work: () => T): T => {
    if (failure !== undefined) throw failure;
    try {
      return work();
    } catch (error) {
      failure = error;
      throw error;
    }
  };

  const preamble = new Uint8Array(4);
  new DataView(preamble.buffer).setUint32(0, MAGIC, true);
  offset = preamble.length;
  const rowCounts = () => rowGroups.map((g) => Number(g.num_rows));
  return {
    preamble,
    parquetShape: () => parquetFileShape(compression, rowCounts(), parquetColumnsOf(shape.fields)),
    encode(records) {
      return guarded(() => {
        rows(records, addRow);
        return take();
      });
    },
    end() {
      return guarded(() => {
        writeGroup();
        // Stryker disable next-line ArithmeticOperator: a first size; ByteWriter grows.
        const footer = new ByteWriter(64 * 1024);
        footer.offset = offset;
        writeIndexes(footer, indexes);
        const metadata = {
          version: 2,
          created_by: createdBy,
          schema: parquetSchemaOf(shape.fields),
          num_rows: BigInt(totalRows),
          row_groups: rowGroups,
        } as FileMetaData;
        writeMetadata(footer, metadata);
        footer.appendUint32(MAGIC);
        emit(footer.getBytes());
        return take();
      });
    },
  };
}
