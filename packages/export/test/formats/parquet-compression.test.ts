/**
 * `--compression zstd` on a Node without zstd in node:zlib (before 22.15): refused before any
 * request, with the flag and the Node version named (this Node has zstd, so node:zlib is
 * replaced by one without it).
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:zlib', async (original) => {
  const zlib = await original<typeof import('node:zlib')>();
  return { ...zlib, zstdCompressSync: undefined };
});

describe('zstd on a Node without it', () => {
  it('is a usage error naming the compression option and the Node version', async () => {
    const { planExport } = await import('../../src/options.js');
    const plan = { resources: ['users'], out: 'o', format: 'parquet' as const };
    expect(() => planExport({ ...plan, compression: 'zstd' })).toThrow(
      `\`compression\` zstd needs Node 22.15 or later (zstd in node:zlib); this is Node ${process.versions.node}`,
    );
    // The other two need nothing from node:zlib.
    expect(planExport({ ...plan, compression: 'none' }).compression).toBe('none');
    expect(planExport({ ...plan, compression: 'snappy' }).compression).toBe('snappy');
  });

  it('a library caller that asks the encoder for it directly is refused the same way', async () => {
    const { parquetEncoder, recordRows } = await import('../../src/formats/parquet-encoder.js');
    const { recordShapeOf } = await import('../../src/formats/parquet-schema.js');
    expect(() =>
      parquetEncoder(recordShapeOf('users'), recordRows, 'test', { compression: 'zstd' }),
    ).toThrow(
      `\`compression\` zstd needs Node 22.15 or later (zstd in node:zlib); this is Node ${process.versions.node}`,
    );
  });
});
