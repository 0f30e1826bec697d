import { closeSync, constants, fstatSync, lstatSync, openSync } from 'node:fs';

/**
 * Files rcs writes in a place others may write too (the ledger in a shared working directory, the
 * trace file, their locks) are opened without following a symbolic link in their place: in a
 * sticky world-writable directory another user can plant `.rcs-ledger.jsonl -> ~victim/.bashrc`,
 * and an open that follows it appends to (or truncates) the victim's file. A link is refused even
 * when the user named it: the attack is precisely a name the user gave, replaced by a link.
 *
 * O_NOFOLLOW makes the kernel refuse (ELOOP) a link as the last component, atomically with the
 * open; where the platform has none (Windows), the name is checked with lstat before the open and
 * the opened descriptor is compared with it (device and inode) after. O_NONBLOCK keeps a FIFO
 * planted in the file's place from hanging the open; anything but a regular file is refused.
 */

/** What the open is for: read, append (created if missing), read and write in place, or truncate. */
type OpenPurpose = 'read' | 'append' | 'update' | 'truncate';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_APPEND, O_TRUNC } = constants;
const FLAGS: Record<OpenPurpose, number> = {
  read: O_RDONLY,
  append: O_WRONLY | O_APPEND | O_CREAT,
  update: O_RDWR,
  truncate: O_WRONLY | O_TRUNC | O_CREAT,
};

/** A link, or something that is not a regular file, in the place of a file rcs writes. */
export class UnsafeFileError extends Error {
  readonly code: 'ELOOP' | 'ENOTREG';
  constructor(
    readonly path: string,
    reason: 'link' | 'not-file',
  ) {
    super(
      reason === 'link'
        ? `${path} is a symbolic link; rcs does not read or write a file through a link (one planted in a shared directory would make it write to someone else's file): remove the link, or name the file itself`
        : `${path} is not a regular file`,
    );
    this.name = 'UnsafeFileError';
    this.code = reason === 'link' ? 'ELOOP' : 'ENOTREG';
  }
}

/**
 * Opens `path` for `purpose` without following a link in its place (see above); returns the
 * descriptor. Throws UnsafeFileError for a link or a non-regular file, or the open's own error
 * (ENOENT for a missing file read, EACCES, …).
 */
export function openNoFollow(path: string, purpose: OpenPurpose, mode = 0o600): number {
  const noFollow = constants.O_NOFOLLOW;
  let before: { dev: number; ino: number } | undefined;
  if (noFollow === undefined) {
    try {
      const st = lstatSync(path);
      if (st.isSymbolicLink()) throw new UnsafeFileError(path, 'link');
      before = { dev: st.dev, ino: st.ino };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  let fd: number;
  try {
    fd = openSync(path, FLAGS[purpose] | (noFollow ?? 0) | (constants.O_NONBLOCK ?? 0), mode);
  } catch (error) {
    // ELOOP from O_NOFOLLOW: the last component is a link (the kernel checked it atomically). With
    // O_CREAT in a sticky directory Linux may answer EACCES first (fs.protected_regular): a link
    // there is still the reason to name.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP' || isLink(path)) {
      throw new UnsafeFileError(path, 'link');
    }
    throw error;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafeFileError(path, 'not-file');
    // Without O_NOFOLLOW: the file opened must be the one lstat saw (not a link swapped in).
    if (before !== undefined && (st.dev !== before.dev || st.ino !== before.ino)) {
      throw new UnsafeFileError(path, 'link');
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
