/**
 * The compression of a Parquet file's pages (`--compression`, D27): snappy by default (what
 * warehouses' writers default to), zstd on request, or none. Each page is compressed as it
 * closes (parquet-chunk.ts); the compressors are chosen in parquet-encoder.ts, so that snappyjs is
 * loaded with the Parquet writer only.
 *
 * - snappy: snappyjs (pure JavaScript, MIT, one small package, no dependencies): faster than
 *   hyparquet-writer's own snappy on export text, where snappy is the largest share of the
 *   writer's CPU (bench/export, parquet.mjs).
 * - zstd comes from Node's own `node:zlib` (libzstd, Node 22.15 and later): no dependency, and
 *   maintained with Node. An older Node has no zstd: asking for it there is refused before any
 *   request, naming the flag and the Node version. (`parquet-wasm`, the Rust writer compiled to
 *   WebAssembly, also compresses zstd but ships a .wasm larger than the whole CLI's
 *   install.)
 */
import * as zlib from 'node:zlib';

export const PARQUET_COMPRESSIONS = ['snappy', 'zstd', 'none'] as const;
export type ParquetCompression = (typeof PARQUET_COMPRESSIONS)[number];

export type Compress = (input: Uint8Array) => Uint8Array;

/** Node's zstd compressor, or undefined on a Node without it. */
export function nodeZstd(): Compress | undefined {
  const compress = (zlib as { zstdCompressSync?: (input: Uint8Array) => Buffer }).zstdCompressSync;
  return typeof compress === 'function' ? (input) => compress(input) : undefined;
}

/** Why a compression cannot be written by this Node, or undefined when it can. */
export function compressionUnavailable(compression: ParquetCompression): string | undefined {
  if (compression !== 'zstd' || nodeZstd()) return undefined;
  return `\`compression\` zstd needs Node 22.15 or later (zstd in node:zlib); this is Node ${process.versions.node}`;
}
