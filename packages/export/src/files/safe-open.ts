/**
 * Opening rcs's own files in an output directory without following a link someone planted
 * there (cli.md "Files appear only complete"): the lock, the manifest, the change state and the
 * partial files. In a shared directory (sticky, world-writable) another user may create
 * `manifest.json` or `.rcs-export.lock` as a symbolic link to a file of ours before we do; a
 * write through it would overwrite that file, a read would take its bytes for our state.
 *
 * Every open here adds O_NOFOLLOW (a link in the last component fails with ELOOP), and the
 * opened descriptor must be a regular file (fstat): a FIFO or a device is refused too, and
 * reads add O_NONBLOCK so that opening a FIFO never waits for a writer. Where the platform has
 * no O_NOFOLLOW (Windows), the path is checked with lstat and the descriptor compared with it
 * (device and inode). Creations also use O_EXCL, which never follows a link either.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file of rcs's that is a link or not a regular file: refused, never read or written. */
export class UnsafeFileError extends Error {
  override name = 'UnsafeFileError';
  /** ELOOP (a symbolic link) or EINVAL (not a regular file): the CLI names it a file error. */
  readonly code: string;
  readonly path: string;

  constructor(path: string, what: 'link' | 'not a file') {
    super(
      what === 'link'
        ? `${path} is a symbolic link, refused: rcs never reads or writes its own files through a link (in a directory others can write to, it may have been planted to make rcs overwrite another file); remove it, and write exports to a directory only you can write to`
        : `${path} is not a regular file (a FIFO, device or directory), refused; remove it`,
    );
    this.code = what === 'link' ? 'ELOOP' : 'EINVAL';
    this.path = path;
  }
}

function isLinkRefusal(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  // Linux and macOS give ELOOP for O_NOFOLLOW on a link; FreeBSD gives EMLINK.
  return code === 'ELOOP' || code === 'EMLINK';
}

/**
 * Opens `path` (flags from fs.constants; O_NOFOLLOW is added) and checks that the descriptor is
 * a regular file. Errors other than a link or a non-file (ENOENT, EEXIST, EACCES) are thrown as
 * they are.
 */
async function openNoFollow(path: string, flags: number, mode?: number): Promise<FileHandle> {
  // Without O_NOFOLLOW: what the path is now, to compare with what was opened.
  const before = NOFOLLOW === 0 ? await lstatUnlessCreating(path, flags) : undefined;
  let handle: FileHandle;
  try {
    handle = await open(path, flags | NOFOLLOW, mode);
  } catch (error) {
    if (isLinkRefusal(error)) throw new UnsafeFileError(path, 'link');
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await isLink(path))) {
      // O_EXCL met a link: name it as one, not as a file that happens to exist.
      throw new UnsafeFileError(path, 'link');
    }
    throw error;
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new UnsafeFileError(path, 'not a file');
    if (before && (before.isSymbolicLink() || !sameFile(before, opened))) {
      throw new UnsafeFileError(path, 'link');
    }
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  return handle;
}

/** Opens for reading: O_RDONLY, O_NOFOLLOW and O_NONBLOCK (a planted FIFO never blocks us). */
export function openForReading(path: string): Promise<FileHandle> {
  return openNoFollow(path, constants.O_RDONLY | NONBLOCK);
}

/** Creates a new file exclusively: O_CREAT, O_EXCL, O_NOFOLLOW; write-only unless `readable`. */
export function createExclusive(path: string, mode: number, readable = false): Promise<FileHandle> {
  const access = readable ? constants.O_RDWR : constants.O_WRONLY;
  return openNoFollow(path, access | constants.O_CREAT | constants.O_EXCL, mode);
}

/**
 * The bytes of a small file, or undefined when there is none. Of a file larger than `maxBytes`,
 * `maxBytes + 1` bytes are read (the caller finds it too large): a planted huge file costs
 * nothing.
 */
export async function readSmallFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle: FileHandle;
  try {
    handle = await openForReading(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, maxBytes + 1));
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isSymbolicLink() ?? false;
}

async function lstatUnlessCreating(path: string, flags: number): Promise<Stats | undefined> {
  if (flags & constants.O_EXCL) return undefined;
  return lstat(path).catch(() => undefined);
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
