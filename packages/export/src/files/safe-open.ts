/**
 * Opening rcs's own files without following a link someone planted in their place (cli.md
 * "Files appear only complete"): the export's lock, manifest, change state and partial files in
 * an output directory, the upload ledger and its lock, the trace file. In a shared directory
 * (sticky, world-writable) another user may create `manifest.json` or `.rcs-ledger.jsonl` as a
 * symbolic link to a file of ours before we do; a write through it would overwrite (or truncate,
 * or append to) that file, a read would take its bytes for our state. A link is refused even when
 * the user named it: the attack is precisely a name the user gave, replaced by a link.
 *
 * Every open adds O_NOFOLLOW (the kernel refuses a link in the last component, atomically with
 * the open) and O_NONBLOCK (opening a planted FIFO never waits for its other end), and the opened
 * descriptor must be a regular file (fstat): a FIFO or a device is refused too. Where the
 * platform has no O_NOFOLLOW (Windows), the name is checked with lstat before the open and the
 * descriptor compared with it (device and inode) after. Creations with O_EXCL never follow a link
 * either.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { ExportError } from '../errors.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_TRUNC } = constants;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A file of rcs's that is a link or not a regular file: refused, never read or written. */
export class UnsafeFileError extends ExportError {
  override name = 'UnsafeFileError';
  /** ELOOP (a symbolic link) or EINVAL (not a regular file): the CLI names it a file error. */
  readonly code: string;
  readonly path: string;

  constructor(path: string, what: 'link' | 'not a file') {
    super(
      what === 'link'
        ? `${path} is a symbolic link, refused: rcs never reads or writes its own files through a link (in a directory others can write to, it may have been planted to make rcs write to another file); remove the link, and keep rcs's files in a directory only you can write to`
        : `${path} is not a regular file (a FIFO, device or directory), refused; remove it`,
    );
    this.code = what === 'link' ? 'ELOOP' : 'EINVAL';
    this.path = path;
  }
}

/** What a synchronous open is for: read, append (created if missing), update in place, truncate. @internal */
export type OpenPurpose = 'read' | 'append' | 'update' | 'truncate';

const PURPOSE_FLAGS: Record<OpenPurpose, number> = {
  read: O_RDONLY,
  append: O_WRONLY | O_APPEND | O_CREAT,
  update: O_RDWR,
  truncate: O_WRONLY | O_TRUNC | O_CREAT,
};

/**
 * Opens `path` for `purpose` without following a link in its place; returns the descriptor. For
 * code that writes synchronously (the upload ledger, its lock, the trace file). Throws
 * UnsafeFileError for a link or a non-regular file, or the open's own error (ENOENT, EACCES, …). @internal
 */
export function openNoFollowSync(path: string, purpose: OpenPurpose, mode = 0o600): number {
  const flags = PURPOSE_FLAGS[purpose];
  const before = lstatBefore(path, flags);
  let fd: number;
  try {
    fd = openSync(path, flags | NOFOLLOW | NONBLOCK, mode);
  } catch (error) {
    throw asLinkRefusal(path, error);
  }
  try {
    checkOpened(path, fstatSync(fd), before);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The same as openNoFollowSync, with `flags` from fs.constants, for a FileHandle. */
async function openNoFollow(path: string, flags: number, mode?: number): Promise<FileHandle> {
  const before = lstatBefore(path, flags);
  let handle: FileHandle;
  try {
    handle = await open(path, flags | NOFOLLOW | NONBLOCK, mode);
  } catch (error) {
    throw asLinkRefusal(path, error);
  }
  try {
    checkOpened(path, await handle.stat(), before);
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** Opens for reading. */
export function openForReading(path: string): Promise<FileHandle> {
  return openNoFollow(path, O_RDONLY);
}

/** Creates a new file exclusively (O_CREAT, O_EXCL); write-only unless `readable`. */
export function createExclusive(path: string, mode: number, readable = false): Promise<FileHandle> {
  return openNoFollow(path, (readable ? O_RDWR : O_WRONLY) | O_CREAT | O_EXCL, mode);
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

/**
 * Without O_NOFOLLOW only: what the name is before the open, to compare with what was opened (a
 * link there is refused before an open could follow it). Nothing to compare for a creation.
 */
function lstatBefore(path: string, flags: number): Stats | undefined {
  if (NOFOLLOW !== 0 || flags & O_EXCL) return undefined;
  const before = lstatSync(path, { throwIfNoEntry: false });
  if (before?.isSymbolicLink()) throw new UnsafeFileError(path, 'link');
  return before;
}

/**
 * A failed open, named as the link it met: ELOOP from O_NOFOLLOW (EMLINK on FreeBSD), or any
 * failure where a link stands (EEXIST from O_EXCL; EACCES from Linux's fs.protected_regular for
 * O_CREAT in a sticky directory). Otherwise the open's own error.
 */
function asLinkRefusal(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK' || isLink(path)) {
    return new UnsafeFileError(path, 'link');
  }
  return error;
}

/** A regular file, the one lstat saw when there was a look before (not a link swapped in). */
function checkOpened(path: string, opened: Stats, before: Stats | undefined): void {
  if (!opened.isFile()) throw new UnsafeFileError(path, 'not a file');
  if (before && (before.dev !== opened.dev || before.ino !== opened.ino)) {
    throw new UnsafeFileError(path, 'link');
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
