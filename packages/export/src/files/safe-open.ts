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
 *
 * A file the user names to be read (a transcript, the config file, a fixture: readNamedFile) may
 * be reached through links the user made: a link in its path is followed only when no one but the
 * user (or root) could have made or replaced it, the link and its directory being theirs or root's
 * and the directory writable by no one else unless sticky (Linux's fs.protected_symlinks, for
 * every component). It is read with a cap, refused before it is read whole when larger.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  type Stats,
  statSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { ExportError } from '../errors.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_APPEND, O_TRUNC } = constants;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Why a file is refused, by kind. */
const REFUSALS = {
  link: "is a symbolic link, refused: rcs never reads or writes its own files through a link (in a directory others can write to, it may have been planted to make rcs write to another file); remove the link, and keep rcs's files in a directory only you can write to",
  'not a file': 'is not a regular file (a FIFO, device or directory), refused; remove it',
  foreign:
    "is a symbolic link another user could have made or replaced, refused (it may have been planted to make rcs read another file): rcs follows a link only when the link and its directory are yours or root's and no one else can write to the directory (unless it is sticky); name its target instead",
  'too large': 'is larger than rcs reads of such a file, refused without reading it',
};

/** A file that is a link or not a regular file (or too large to read): refused, never used. */
export class UnsafeFileError extends ExportError {
  override name = 'UnsafeFileError';
  /** ELOOP (a link), EINVAL (not a regular file), EFBIG (too large): the CLI names it a file error. */
  readonly code: string;
  readonly path: string;

  /** `detail` says why, in parentheses (whose the link is; the size and the cap). */
  constructor(
    path: string,
    what: 'link' | 'foreign' | 'not a file' | 'too large',
    detail?: string,
  ) {
    super(`${path} ${REFUSALS[what]}${detail ? ` (${detail})` : ''}`);
    this.code =
      what === 'link' || what === 'foreign' ? 'ELOOP' : what === 'not a file' ? 'EINVAL' : 'EFBIG';
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

/**
 * The same as openNoFollowSync, with `flags` from fs.constants, for a FileHandle; `follow` for a
 * link the user made (readNamedFile).
 */
async function openNoFollow(path: string, flags: number, mode?: number, follow = false) {
  const before = follow ? undefined : lstatBefore(path, flags);
  let handle: FileHandle;
  try {
    handle = await open(path, flags | (follow ? 0 : NOFOLLOW) | NONBLOCK, mode);
  } catch (error) {
    throw follow ? error : asLinkRefusal(path, error);
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
    return await readUpTo(handle, maxBytes);
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of a file the user named to be read (a transcript, the config file, a fixture): links
 * in its path as the module comment says, a regular file only, at most `maxBytes` (a larger one is
 * refused, EFBIG, by its size or after `maxBytes + 1` bytes: a huge file or a device costs nothing).
 */
export async function readNamedFile(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await openNoFollow(path, O_RDONLY, undefined, followsOwnLinks(path));
  try {
    const bytes =
      (await handle.stat()).size > maxBytes ? undefined : await readUpTo(handle, maxBytes);
    if (bytes && bytes.length <= maxBytes) return bytes;
    throw new UnsafeFileError(path, 'too large', `more than ${maxBytes} bytes`);
  } finally {
    await handle.close();
  }
}

/** At most `maxBytes + 1` bytes from the start, whatever the size says (0 in /proc, or growing). */
async function readUpTo(handle: FileHandle, maxBytes: number): Promise<Buffer> {
  // Stryker disable next-line MethodExpression,ArithmeticOperator: the size of each read, not the bytes read
  const step = Math.max((await handle.stat()).size + 1, 65_536);
  const chunks: Buffer[] = [];
  let length = 0;
  while (length <= maxBytes) {
    const buffer = Buffer.allocUnsafe(Math.min(step, maxBytes + 1 - length));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, length);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    length += bytesRead;
  }
  return Buffer.concat(chunks, length);
}

/**
 * Each component of `path` that is a link (module comment): throws for one another user could
 * have made or replaced; true when `path` itself is a link (one of the user's, to follow).
 * Without user ids (Windows) there is nothing to compare.
 */
export function followsOwnLinks(path: string): boolean {
  const uid = process.geteuid?.();
  const full = resolve(path);
  let at = parse(full).root;
  // Stryker disable next-line BooleanLiteral: the loop below sets it at least once ('' splits into [''])
  let link = false;
  // Stryker disable next-line MethodExpression: a POSIX path's '' before its root '/' joins to it
  for (const part of full.slice(at.length).split(sep)) {
    at = join(at, part);
    let info: Stats;
    try {
      info = lstatSync(at);
    } catch {
      return false; // missing or unreachable: the open says why
    }
    link = info.isSymbolicLink();
    if (!link || uid === undefined) continue;
    const dir = statSync(dirname(at));
    const own = (s: Stats) => s.uid === uid || s.uid === 0;
    const why = !own(info)
      ? `the link belongs to uid ${info.uid}`
      : !own(dir)
        ? `its directory belongs to uid ${dir.uid}`
        : dir.mode & 0o022 && !(dir.mode & 0o1000)
          ? `its directory is writable by others, mode ${(dir.mode & 0o7777).toString(8)}`
          : undefined;
    if (why) throw new UnsafeFileError(at, 'foreign', why);
  }
  return link;
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
  const { code } = error as NodeJS.ErrnoException;
  let link = code === 'ELOOP' || code === 'EMLINK';
  try {
    link ||= lstatSync(path).isSymbolicLink();
  } catch {
    // Nothing there, or not reachable: no link; the open's own error says why.
  }
  return link ? new UnsafeFileError(path, 'link') : error;
}

/** A regular file, the one lstat saw when there was a look before (not a link swapped in). */
function checkOpened(path: string, opened: Stats, before: Stats | undefined): void {
  if (!opened.isFile()) throw new UnsafeFileError(path, 'not a file');
  if (before && (before.dev !== opened.dev || before.ino !== opened.ino)) {
    throw new UnsafeFileError(path, 'link');
  }
}
