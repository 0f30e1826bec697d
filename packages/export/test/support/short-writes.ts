/**
 * A file system whose writes fall short, for a `vi.mock` of `src/files/safe-open.js`: files are
 * created as usual, and each write takes at most `bytes` bytes (write(2) may write fewer bytes
 * than asked: a signal, a nearly full disk, some network file systems); none at all is a full
 * disk (ENOSPC). A mock factory runs before the test's imports, so it imports this itself:
 *
 *   vi.mock('../../src/files/safe-open.js', async (actual) =>
 *     (await import('../support/short-writes.js')).shortWrites(await actual(), 7));
 */
import type { FileHandle } from 'node:fs/promises';
import type * as SafeOpen from '../../src/files/safe-open.js';

type Write = (
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number | null,
) => ReturnType<FileHandle['write']>;

export function shortWrites(actual: typeof SafeOpen, bytes: number): typeof SafeOpen {
  const full = () =>
    Promise.reject(
      Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
    );
  return {
    ...actual,
    createExclusive: async (...args) => {
      const handle = await actual.createExclusive(...args);
      const write = handle.write.bind(handle) as Write;
      const short: Write = (buffer, offset, length, position) =>
        bytes === 0 ? full() : write(buffer, offset, Math.min(length, bytes), position);
      handle.write = short as FileHandle['write'];
      // Writes until all is written, as Node's does, each write a short one.
      handle.writeFile = (async (data: string | Uint8Array) => {
        const all = Buffer.from(data);
        for (let at = 0; at < all.length; )
          at += (await short(all, at, all.length - at, null)).bytesWritten;
      }) as FileHandle['writeFile'];
      return handle;
    },
  };
}
