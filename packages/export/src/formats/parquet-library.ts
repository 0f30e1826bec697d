/**
 * The one module that imports hyparquet-writer's building blocks (D27's streaming writer).
 *
 * hyparquet-writer publishes `./src/*.js` (with types) in its package.json `exports`, so these
 * subpaths are part of what it declares; importing them is allowed on three conditions, all kept
 * here:
 * - the version is pinned exactly (packages/export/package.json, `"hyparquet-writer": "0.17.0"`,
 *   and the lock file);
 * - every such import is in this module (biome.json's noRestrictedImports refuses one anywhere
 *   else), which lists what it uses (HYPARQUET_WRITER_USES);
 * - test/formats/parquet-library.test.ts fails, naming the module, when an upgrade changes one
 *   of them (each is checked against bytes it must write).
 * No code of the library is copied. The rule against deep imports stays for everything a
 * package does not declare in its `exports`.
 *
 * What the writer (parquet-chunk.ts, parquet-encoder.ts) does itself: shredding rows into
 * per-leaf buffers, PLAIN values, dictionaries, pages, compression, statistics. What it takes
 * from the library: the Thrift structures of the format (page headers, the footer, the offset
 * indexes), the RLE/bit-packed hybrid of levels and dictionary indices, and its growable
 * ByteWriter those write into.
 */
import { ByteWriter } from 'hyparquet-writer/src/bytewriter.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writeIndexes } from 'hyparquet-writer/src/indexes.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';

/** The footer's structures, as the library's writers take them. */
export type FileMetaData = Parameters<typeof writeMetadata>[1];
export type RowGroup = FileMetaData['row_groups'][number];
export type PageIndexes = Parameters<typeof writeIndexes>[1][number];
export type ColumnChunk = PageIndexes['chunk'];
type ColumnMetaData = NonNullable<ColumnChunk['meta_data']>;
export type Encoding = ColumnMetaData['encodings'][number];
export type CompressionCodec = ColumnMetaData['codec'];

/** The version these building blocks were checked against (package.json pins it exactly). */
export const HYPARQUET_WRITER_VERSION = '0.17.0';

/** Every building block used, by the module that exports it. */
export const HYPARQUET_WRITER_USES = {
  'hyparquet-writer/src/bytewriter.js': ['ByteWriter'],
  'hyparquet-writer/src/datapage.js': ['writePageHeader'],
  'hyparquet-writer/src/encoding.js': ['writeRleBitPackedHybrid'],
  'hyparquet-writer/src/indexes.js': ['writeIndexes'],
  'hyparquet-writer/src/metadata.js': ['writeMetadata'],
} as const;

export { ByteWriter, writeIndexes, writeMetadata, writePageHeader, writeRleBitPackedHybrid };
