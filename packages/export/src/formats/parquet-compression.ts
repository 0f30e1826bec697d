/**
 * The compression of a Parquet file's pages (`--compression`, issue 26): snappy by default (what
 * warehouses' writers default to; hyparquet-writer's own compressor), zstd on request, or none.
 *
 * zstd comes from Node's own `node:zlib` (libzstd, Node 22.15 and later): no dependency, and
 * maintained with Node. An older Node has no zstd: asking for it there is refused before any
 * request, naming the flag and the Node version. (`parquet-wasm`, the Rust writer compiled to
 * WebAssembly, also compresses zstd but ships a 6.6 MB .wasm, over the CLI's 6 MB install bound.)
 */
import * as zlib from 'node:zlib';
import type { ParquetWriter } from 'hyparquet-writer';

export const PARQUET_COMPRESSIONS = ['snappy', 'zstd', 'none'] as const;
export type ParquetCompression = (typeof PARQUET_COMPRESSIONS)[number];

type Compress = (input: Uint8Array) => Uint8Array;
type CompressionCodec = NonNullable<ConstructorParameters<typeof ParquetWriter>[0]['codec']>;

/** Node's zstd compressor, or undefined on a Node without it. */
function nodeZstd(): Compress | undefined {
  const compress = (zlib as { zstdCompressSync?: (input: Uint8Array) => Buffer }).zstdCompressSync;
  return typeof compress === 'function' ? (input) => compress(input) : undefined;
}

/** Why a compression cannot be written by this Node, or undefined when it can. */
export function compressionUnavailable(compression: ParquetCompression): string | undefined {
  if (compression !== 'zstd' || nodeZstd()) return undefined;
  return `\`compression\` zstd needs Node 22.15 or later (zstd in node:zlib); this is Node ${process.versions.node}`;
}

/** The codec hyparquet-writer's ParquetWriter takes, and the compressor it needs for it. */
export function parquetCodecOf(compression: ParquetCompression): {
  codec: CompressionCodec;
  compressors?: { ZSTD: Compress };
} {
  switch (compression) {
    case 'snappy':
      return { codec: 'SNAPPY' };
    case 'none':
      return { codec: 'UNCOMPRESSED' };
    case 'zstd': {
      const zstd = nodeZstd();
      if (!zstd) throw new Error(compressionUnavailable('zstd'));
      return { codec: 'ZSTD', compressors: { ZSTD: zstd } };
    }
  }
}
