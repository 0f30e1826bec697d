import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  lchownSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AtomicFile } from '../../src/files/atomic-file.js';
import {
  createExclusive,
  followsOwnLinks,
  openForReading,
  openNoFollowSync,
  readNamedFile,
  readSmallFile,
  UnsafeFileError,
} from '../../src/files/safe-open.js';
import { openFilesUnder } from '../support/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-safe-open-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('opening rcs files without following links', () => {
  it('reads a regular file', async () => {
    await writeFile(join(dir, 'a'), 'text');
    expect((await readSmallFile(join(dir, 'a'), 100))?.toString()).toBe('text');
    expect(await readSmallFile(join(dir, 'missing'), 100)).toBeUndefined();
  });

  it('reads at most one byte past the limit of a larger file', async () => {
    await writeFile(join(dir, 'big'), 'x'.repeat(1000));
    expect((await readSmallFile(join(dir, 'big'), 10))?.length).toBe(11);
  });

  it('refuses a link for reading, even to a file that exists', async () => {
    await writeFile(join(dir, 'target'), 'secret');
    await symlink(join(dir, 'target'), join(dir, 'link'));
    const error = await openForReading(join(dir, 'link')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect(error).toMatchObject({ code: 'ELOOP', path: join(dir, 'link') });
  });

  it('refuses a link for creating, dangling or not, and creates nothing where it points', async () => {
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    await expect(createExclusive(join(dir, 'dangling'), 0o600)).rejects.toThrow(
      /dangling is a symbolic link, refused/,
    );
    await expect(stat(join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file that exists is EEXIST for creating, as ever', async () => {
    await writeFile(join(dir, 'there'), '');
    await expect(createExclusive(join(dir, 'there'), 0o600)).rejects.toMatchObject({
      code: 'EEXIST',
    });
  });

  it('creates with the mode asked, readable when asked', async () => {
    const handle = await createExclusive(join(dir, 'new'), 0o600, true);
    await handle.writeFile('abc');
    const back = Buffer.alloc(3);
    await handle.read(back, 0, 3, 0);
    await handle.close();
    expect(back.toString()).toBe('abc');
    expect((await stat(join(dir, 'new'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a directory and a FIFO, without waiting for a FIFO writer', async () => {
    await mkdir(join(dir, 'sub'));
    await expect(openForReading(join(dir, 'sub'))).rejects.toThrow(
      /sub is not a regular file \(a FIFO, device or directory\), refused/,
    );
    try {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
    } catch {
      return; // No mkfifo here.
    }
    await expect(openForReading(join(dir, 'fifo'))).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it('a partial file is never created through a link', async () => {
    // Its name is random, so nobody can plant a link under it in advance: here one is planted
    // under a name it took, and the call AtomicFile.create makes is refused.
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious');
    const file = await AtomicFile.create(join(dir, 'users.jsonl'));
    await file.discard();
    await symlink(victim, file.partial);
    await expect(
      createExclusive(file.partial, 0o600).then((h) => h.close()),
    ).rejects.toBeInstanceOf(UnsafeFileError);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });
});

describe('opening synchronously without following links (the upload ledger, its lock, the trace file)', () => {
  const purposes = ['read', 'append', 'update', 'truncate'] as const;

  it.each(purposes)(
    '%s: a link is refused, and the file it points to is left as it was',
    async (purpose) => {
      const victim = join(dir, 'victim');
      await writeFile(victim, 'precious');
      await symlink(victim, join(dir, 'ledger'));
      let error: unknown;
      try {
        closeSync(openNoFollowSync(join(dir, 'ledger'), purpose));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UnsafeFileError);
      expect(error).toMatchObject({ code: 'ELOOP', path: join(dir, 'ledger') });
      expect((error as Error).message).toMatch(
        /ledger is a symbolic link, refused: .*remove the link/,
      );
      expect(await readFile(victim, 'utf8')).toBe('precious');
    },
  );

  it.each(['append', 'truncate'] as const)(
    '%s: a dangling link creates nothing where it points',
    async (purpose) => {
      await symlink(join(dir, 'nowhere'), join(dir, 'trace.jsonl'));
      expect(() => openNoFollowSync(join(dir, 'trace.jsonl'), purpose)).toThrow(UnsafeFileError);
      await expect(stat(join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it('appends to, updates, truncates and reads a regular file; creates it with mode 0600', async () => {
    const path = join(dir, 'ledger');
    expect(() => openNoFollowSync(path, 'read')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
    for (const text of ['one\n', 'two\n']) {
      const fd = openNoFollowSync(path, 'append');
      writeSync(fd, text);
      closeSync(fd);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const update = openNoFollowSync(path, 'update');
    writeSync(update, 'ONE', 0);
    closeSync(update);
    expect(await readFile(path, 'utf8')).toBe('ONE\ntwo\n');
    const read = openNoFollowSync(path, 'read');
    const back = Buffer.alloc(3);
    readSync(read, back, 0, 3, 4);
    closeSync(read);
    expect(back.toString()).toBe('two');
    closeSync(openNoFollowSync(path, 'truncate'));
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('a directory or a FIFO is refused, without waiting for the FIFO`s other end', async () => {
    await mkdir(join(dir, 'sub'));
    expect(() => openNoFollowSync(join(dir, 'sub'), 'read')).toThrow(/sub is not a regular file/);
    await noneOpenUnder(dir);
    try {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
    } catch {
      return; // No mkfifo here.
    }
    expect(() => openNoFollowSync(join(dir, 'fifo'), 'read')).toThrow(UnsafeFileError);
    // For writing, with no reader, the open fails at once (ENXIO) instead of waiting for one.
    expect(() => openNoFollowSync(join(dir, 'fifo'), 'append')).toThrow();
    // Each was opened, found not a file, and closed.
    await noneOpenUnder(dir);
  });
});

const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

/** What `call` threw, checked to be a refusal. */
async function refusal(call: () => unknown): Promise<UnsafeFileError> {
  const error = await (async () => call())().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UnsafeFileError);
  return error as UnsafeFileError;
}

/** A FIFO at `path`, or false where mkfifo is missing. */
function mkfifo(path: string): boolean {
  try {
    execFileSync('mkfifo', [path]);
    return true;
  } catch {
    return false;
  }
}

/** No descriptor of this process left open on a file under `dir` (where /proc tells). */
async function noneOpenUnder(path: string): Promise<void> {
  const open = await openFilesUnder(path);
  if (open !== undefined) expect(open).toEqual([]);
}

describe('what a refusal says', () => {
  it('an UnsafeFileError named so, with the path and the code the CLI names a file error by', async () => {
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'big'), 'x'.repeat(11));
    await symlink(join(dir, 'big'), join(dir, 'link'));
    expect(await refusal(() => openForReading(join(dir, 'link')))).toMatchObject({
      name: 'UnsafeFileError',
      code: 'ELOOP',
      path: join(dir, 'link'),
    });
    expect(await refusal(() => openForReading(join(dir, 'sub')))).toMatchObject({
      name: 'UnsafeFileError',
      code: 'EINVAL',
      path: join(dir, 'sub'),
    });
    const large = await refusal(() => readNamedFile(join(dir, 'big'), 10));
    expect(large).toMatchObject({ name: 'UnsafeFileError', code: 'EFBIG', path: join(dir, 'big') });
    expect(large.message).toBe(
      `${join(dir, 'big')} is larger than rcs reads of such a file, refused without reading it (more than 10 bytes)`,
    );
  });

  it('a path whose links loop is refused as a link, not opened', async () => {
    await symlink('loop', join(dir, 'loop'));
    const path = join(dir, 'loop', 'ledger');
    expect(await refusal(() => openForReading(path))).toMatchObject({ code: 'ELOOP', path });
    expect(await refusal(() => openNoFollowSync(path, 'append'))).toMatchObject({ code: 'ELOOP' });
  });
});

describe('creating and reading whole', () => {
  it('createExclusive is write-only unless asked readable: a read fails with EBADF', async () => {
    const handle = await createExclusive(join(dir, 'new'), 0o600);
    try {
      await handle.write('abc');
      await expect(handle.read(Buffer.alloc(3), 0, 3, 0)).rejects.toMatchObject({
        code: 'EBADF',
      });
    } finally {
      await handle.close();
    }
    expect(await readFile(join(dir, 'new'), 'utf8')).toBe('abc');
  });

  it('readSmallFile reads a file of several 64 KiB steps exactly, and leaves it closed', async () => {
    const bytes = randomBytes(200_001);
    await writeFile(join(dir, 'big'), bytes);
    expect((await readSmallFile(join(dir, 'big'), 1_000_000))?.equals(bytes)).toBe(true);
    expect((await readSmallFile(join(dir, 'big'), 200_001))?.equals(bytes)).toBe(true);
    expect((await readSmallFile(join(dir, 'big'), 70_000))?.equals(bytes.subarray(0, 70_001))).toBe(
      true,
    );
    await noneOpenUnder(dir);
  });

  it.runIf(existsSync('/proc/kallsyms'))(
    'of a file whose size says 0 but holds more (/proc), at most one byte past the limit',
    async () => {
      // Read in steps of 64 KiB (the size says nothing): the last step is cut to the limit.
      expect((await readSmallFile('/proc/kallsyms', 100_000))?.length).toBe(100_001);
    },
  );
});

describe('readNamedFile: a file the user names', () => {
  it('reads a regular file up to exactly the limit; one byte more is refused as too large', async () => {
    const path = join(dir, 'call.srt');
    await writeFile(path, '0123456789');
    expect((await readNamedFile(path, 10)).toString()).toBe('0123456789');
    expect((await readNamedFile(path, 1000)).toString()).toBe('0123456789');
    await writeFile(path, '0123456789A');
    expect(await refusal(() => readNamedFile(path, 10))).toMatchObject({ code: 'EFBIG', path });
    await writeFile(path, '');
    expect((await readNamedFile(path, 10)).length).toBe(0);
    await noneOpenUnder(dir);
  });

  it('a file whose size says 0 (/proc) is refused once more than the limit is read, and read whole when within', async () => {
    await expect(readNamedFile('/proc/self/status', 100)).rejects.toMatchObject({
      code: 'EFBIG',
      message: expect.stringContaining('(more than 100 bytes)'),
    });
    expect((await readNamedFile('/proc/self/status', 1_000_000)).toString()).toMatch(/^Name:/);
  });

  it.runIf(existsSync('/proc/kallsyms'))(
    'a file whose size says 0 and that is read in short steps is refused when a step ends exactly at the limit',
    async () => {
      // A /proc file gives a page of lines a read: the limit is where the first read ends.
      const fd = openSync('/proc/kallsyms', 'r');
      const first = readSync(fd, Buffer.alloc(65_536), 0, 65_536, 0);
      closeSync(fd);
      await expect(readNamedFile('/proc/kallsyms', first)).rejects.toMatchObject({
        code: 'EFBIG',
      });
    },
  );

  const sysfs = '/sys/devices/system/cpu/online';
  it.runIf(existsSync(sysfs) && statSync(sysfs).size > 100)(
    'a file is refused by the size it reports, before it is read (sysfs reports 4096 bytes and holds a few)',
    async () => {
      expect((await readFile(sysfs)).length).toBeLessThan(100);
      await expect(readNamedFile(sysfs, 100)).rejects.toMatchObject({ code: 'EFBIG' });
    },
  );

  it("follows the user's own link, to a file; a link to a device, a directory or a FIFO is refused", async () => {
    await writeFile(join(dir, 'target.srt'), 'text');
    await symlink(join(dir, 'target.srt'), join(dir, 'link.srt'));
    expect((await readNamedFile(join(dir, 'link.srt'), 100)).toString()).toBe('text');
    await symlink('/dev/zero', join(dir, 'zero.srt'));
    expect(await refusal(() => readNamedFile(join(dir, 'zero.srt'), 100))).toMatchObject({
      code: 'EINVAL',
      path: join(dir, 'zero.srt'),
    });
    await mkdir(join(dir, 'sub'));
    expect(await refusal(() => readNamedFile(join(dir, 'sub'), 100))).toMatchObject({
      code: 'EINVAL',
    });
    if (mkfifo(join(dir, 'fifo'))) {
      await expect(readNamedFile(join(dir, 'fifo'), 100)).rejects.toMatchObject({
        code: 'EINVAL',
      });
    }
    await noneOpenUnder(dir);
  });

  it('followsOwnLinks: true for the path that is itself a link of the user, false for a file or nothing', async () => {
    await writeFile(join(dir, 'file'), '');
    await symlink(join(dir, 'file'), join(dir, 'link'));
    await mkdir(join(dir, 'sub'));
    await symlink(join(dir, 'sub'), join(dir, 'sublink'));
    expect(followsOwnLinks(join(dir, 'link'))).toBe(true);
    expect(followsOwnLinks(join(dir, 'file'))).toBe(false);
    expect(followsOwnLinks(join(dir, 'missing'))).toBe(false);
    expect(followsOwnLinks(join(dir, 'link', 'under-a-file'))).toBe(false);
    // A link earlier in the path is followed (checked), the path itself is not a link.
    expect(followsOwnLinks(join(dir, 'sublink', 'call.srt'))).toBe(false);
    expect(followsOwnLinks('/')).toBe(false);
  });

  it('where the system has no user ids (Windows), any link is followed: there is nothing to compare', async () => {
    await writeFile(join(dir, 'file'), 'text');
    await symlink(join(dir, 'file'), join(dir, 'link'));
    await chmod(dir, 0o777);
    const geteuid = process.geteuid;
    Object.assign(process, { geteuid: undefined });
    try {
      expect(followsOwnLinks(join(dir, 'link'))).toBe(true);
    } finally {
      Object.assign(process, { geteuid });
    }
    // The same link, where the system has user ids: the directory is writable by others.
    expect(() => followsOwnLinks(join(dir, 'link'))).toThrow(UnsafeFileError);
  });
});

/**
 * Links another user could have made or replaced (needs root: a link owned by `nobody`, a
 * directory of theirs). The base is reachable by everyone (mkdtemp makes it 0700).
 */
describe.skipIf(!isRoot)(
  'readNamedFile: links only the user (or root) could have made (needs root)',
  () => {
    let base: string;
    let target: string;
    beforeEach(async () => {
      base = join(dir, 'base');
      await mkdir(base);
      await chmod(dir, 0o755);
      await chmod(base, 0o755);
      target = join(base, 'root-only.srt');
      await writeFile(target, 'secret', { mode: 0o600 });
    });

    /** A link to the root-only file at `path`, owned by `uid`. */
    async function linkAt(path: string, uid = 0): Promise<string> {
      await symlink(target, path);
      lchownSync(path, uid, uid);
      return path;
    }

    /** A directory under the base, with `mode` (chmod: umask applies to mkdir) and owner. */
    async function dirOf(name: string, mode: number, uid = 0): Promise<string> {
      const path = join(base, name);
      await mkdir(path);
      await chmod(path, mode);
      await chown(path, uid, uid);
      return path;
    }

    async function refused(path: string, link: string, why: string): Promise<void> {
      const error = await refusal(() => readNamedFile(path, 100));
      expect(error).toMatchObject({ code: 'ELOOP', path: link });
      expect(error.message).toBe(
        `${link} is a symbolic link another user could have made or replaced, refused (it may have been planted to make rcs read another file): rcs follows a link only when the link and its directory are yours or root's and no one else can write to the directory (unless it is sticky); name its target instead (${why})`,
      );
      expect(() => followsOwnLinks(path)).toThrow(error.message);
    }

    it("root's own link in root's directory is followed, in a sticky shared directory too", async () => {
      const link = await linkAt(join(base, 'call.srt'));
      expect((await readNamedFile(link, 100)).toString()).toBe('secret');
      const shared = await dirOf('shared', 0o1777);
      const inShared = await linkAt(join(shared, 'call.srt'));
      expect((await readNamedFile(inShared, 100)).toString()).toBe('secret');
      expect(followsOwnLinks(inShared)).toBe(true);
    });

    it('a link that belongs to another user is refused, in a sticky directory too', async () => {
      const link = await linkAt(join(base, 'call.srt'), NOBODY);
      await refused(link, link, `the link belongs to uid ${NOBODY}`);
      const shared = await dirOf('shared', 0o1777);
      const planted = await linkAt(join(shared, 'call.srt'), NOBODY);
      await refused(planted, planted, `the link belongs to uid ${NOBODY}`);
    });

    it("root's link in a directory of another user is refused (they could replace it)", async () => {
      const theirs = await dirOf('theirs', 0o755, NOBODY);
      const link = await linkAt(join(theirs, 'call.srt'));
      await refused(link, link, `its directory belongs to uid ${NOBODY}`);
    });

    it.each([
      [0o777, '777'],
      [0o775, '775'],
      [0o757, '757'],
    ])(
      "root's link in root's directory writable by others, not sticky (%o), is refused",
      async (mode, shown) => {
        const open = await dirOf('open', mode);
        const link = await linkAt(join(open, 'call.srt'));
        await refused(link, link, `its directory is writable by others, mode ${shown}`);
      },
    );

    it('a link in the middle of the path (a directory link) is checked too', async () => {
      const real = await dirOf('real', 0o755);
      await writeFile(join(real, 'call.srt'), 'text');
      const dirLink = join(base, 'calls');
      await symlink(real, dirLink);
      expect((await readNamedFile(join(dirLink, 'call.srt'), 100)).toString()).toBe('text');
      expect(followsOwnLinks(join(dirLink, 'call.srt'))).toBe(false);
      lchownSync(dirLink, NOBODY, NOBODY);
      await refused(join(dirLink, 'call.srt'), dirLink, `the link belongs to uid ${NOBODY}`);
    });

    it("as another user: that user's own link and root's are followed, a third user's is refused", async () => {
      const theirs = await dirOf('theirs', 0o755, NOBODY);
      const own = await linkAt(join(theirs, 'call.srt'), NOBODY);
      const roots = await linkAt(join(base, 'call.srt'));
      const third = await linkAt(join(theirs, 'other.srt'), 4242);
      // rcs compares owners with the effective uid the process reports: nobody's, here. (Not
      // seteuid: that is process-wide, and Node refuses it in a worker thread.)
      const euid = vi.spyOn(process, 'geteuid').mockReturnValue(NOBODY);
      try {
        expect(followsOwnLinks(own)).toBe(true);
        expect(followsOwnLinks(roots)).toBe(true);
        expect(() => followsOwnLinks(third)).toThrow(/the link belongs to uid 4242/);
      } finally {
        euid.mockRestore();
      }
    });
  },
);
