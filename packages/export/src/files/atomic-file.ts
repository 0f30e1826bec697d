/**
 * A file that appears only complete (cli.md "Files appear only complete").
 *
 * Bytes go to a hidden file beside the target, in the same directory so that the final
 * `rename` is atomic on the same file system. The file is created with mode 0600 (the exports
 * hold personal data: emails, transcripts) and with O_EXCL and O_NOFOLLOW, so a leftover never
 * gets reused and a link planted under its name is never written through.
 * `finish()` fsyncs and checks that the file on disk holds exactly the bytes written; only
 * then may `commit()` rename it over the previous file.
 * `discard()` removes it, leaving the previous file untouched.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ExportError } from '../errors.js';
import { createExclusive } from './safe-open.js';

export const PARTIAL_SUFFIX = '.partial';
export const FILE_MODE = 0o600;

/** `DIR/.users.jsonl.<pid>.<random>.partial`: names the run that owns it (lock.ts cleans up). */
function partialPathFor(target: string, pid = process.pid): string {
  const tag = randomBytes(4).toString('hex');
  return join(dirname(target), `.${basename(target)}.${pid}.${tag}${PARTIAL_SUFFIX}`);
}

export interface WrittenFile {
  /** Final path. */
  path: string;
  bytes: number;
  sha256: string;
}

export class AtomicFile {
  readonly target: string;
  readonly partial: string;
  #handle: FileHandle | undefined;
  #hash = createHash('sha256');
  #bytes = 0;
  #result: WrittenFile | undefined;
  #state: 'open' | 'finished' | 'committed' | 'discarded' = 'open';
  // Stryker disable next-line ArithmeticOperator: only the first size of the buffer (write() grows it)
  #scratch: Buffer = Buffer.allocUnsafeSlow(64 * 1024);

  private constructor(target: string, partial: string, handle: FileHandle) {
    this.target = target;
    this.partial = partial;
    this.#handle = handle;
  }

  static async create(target: string): Promise<AtomicFile> {
    const partial = partialPathFor(target);
    // O_EXCL and O_NOFOLLOW: never reuse or follow an existing path, a link planted under the
    // name is refused (safe-open.ts); mode applies on creation (umask can only remove bits, and
    // 0600 has none a umask would normally remove).
    const handle = await createExclusive(partial, FILE_MODE);
    return new AtomicFile(target, partial, handle);
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    if (!this.#handle) throw new Error(`${this.target}: write after end`);
    let bytes: Uint8Array;
    if (typeof chunk === 'string') {
      // Encode into one buffer reused for every page of this file: a fresh 100-200 KB buffer per
      // page churns the native heap, and that fragmentation showed up as RSS growing with the
      // export's size (bench/export). Writes of a file are sequential, so reuse is safe.
      const size = Buffer.byteLength(chunk);
      // Stryker disable next-line EqualityOperator: growing when it is just large enough changes no byte
      if (this.#scratch.byteLength < size) {
        // Stryker disable next-line ArithmeticOperator: Math.max takes `size` at least, large enough
        this.#scratch = Buffer.allocUnsafeSlow(Math.max(size, this.#scratch.byteLength * 2));
      }
      const written = this.#scratch.write(chunk);
      bytes = this.#scratch.subarray(0, written);
    } else {
      bytes = chunk;
    }
    this.#hash.update(bytes);
    this.#bytes += bytes.byteLength;
    let offset = 0;
    while (offset < bytes.byteLength) {
      const { bytesWritten } = await this.#handle.write(bytes, offset);
      offset += bytesWritten;
    }
  }

  /**
   * fsync, check that the file on disk holds exactly the bytes written (its size, read back with
   * fstat after the fsync), close. Re-reading and re-hashing the whole file would cost a second
   * pass over hundreds of megabytes and only read our own writes back from the page cache.
   */
  async finish(): Promise<WrittenFile> {
    if (!this.#handle) throw new Error(`${this.target}: finished twice`);
    const handle = this.#handle;
    this.#handle = undefined;
    try {
      await handle.sync();
      const { size } = await handle.stat();
      if (size !== this.#bytes) {
        throw new ExportError(
          `${basename(this.target)}: the file on disk (${size} bytes) differs from what was written (${this.#bytes} bytes); check the disk and run again`,
        );
      }
    } finally {
      await handle.close();
    }
    this.#state = 'finished';
    this.#result = { path: this.target, bytes: this.#bytes, sha256: this.#hash.digest('hex') };
    return this.#result;
  }

  /** Renames the verified file over the target (atomic on one file system). */
  async commit(): Promise<WrittenFile> {
    if (this.#state !== 'finished' || !this.#result) {
      throw new Error(`${this.target}: commit before finish`);
    }
    await rename(this.partial, this.target);
    this.#state = 'committed';
    return this.#result;
  }

  /** Removes the partial file; the previous target file stays as it was. Never throws. */
  async discard(): Promise<void> {
    if (this.#state === 'committed' || this.#state === 'discarded') return;
    this.#state = 'discarded';
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => {});
    await unlink(this.partial).catch(() => {});
  }
}

/**
 * Throws unless a rename can put a file at each path (a directory there cannot be replaced):
 * checked for every file of a run before its first rename, so that a run that cannot commit
 * replaces none of the previous files.
 */
export async function assertReplaceable(paths: readonly (string | undefined)[]): Promise<void> {
  for (const path of paths) {
    if (path && (await lstat(path).catch(() => undefined))?.isDirectory()) {
      throw new ExportError(
        `${path} is a directory, which a file of the export cannot replace; remove it, or choose another directory, and run again`,
      );
    }
  }
}

/** fsync a directory so that renames in it survive a crash (no-op where unsupported). */
// Stryker disable next-line BlockStatement: only a power loss right after a rename can show it
export async function syncDirectory(dir: string): Promise<void> {
  // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic.
  // Stryker disable next-line StringLiteral: the same (an open that fails is skipped, as on Windows)
  const handle = await open(dir, 'r').catch(() => undefined);
  await handle?.sync().catch(() => {});
  await handle?.close().catch(() => {});
}

/** Writes a whole small file (the manifest) the same way: aside, fsync, verify, rename. */
export async function writeFileAtomically(target: string, content: string): Promise<WrittenFile> {
  const file = await AtomicFile.create(target);
  try {
    await file.write(content);
    await file.finish();
    const written = await file.commit();
    await syncDirectory(dirname(target));
    return written;
  } catch (error) {
    await file.discard();
    throw error;
  }
}
