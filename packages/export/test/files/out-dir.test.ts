/**
 * `out` DIR, checked before the first request: created if missing (one level at a time, 0700),
 * proven writable, or refused with a usage error that says why in words and by the system's code.
 * Over real directories, links, mounts and a second uid (root only: `nobody` where permissions
 * must refuse, which root's never do; a small or read-only tmpfs; an immutable directory). What
 * only Windows answers is injected at stat (every call passes through to the real one otherwise).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lchownSync, mkdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExportUsageError } from '../../src/errors.js';
import { prepareOutputDirectory } from '../../src/files/out-dir.js';

/** Runs before each real stat, and may throw the error that stat rejects with instead. */
const faults = vi.hoisted(() => ({ stat: undefined as undefined | ((path: string) => void) }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const stat = (async (...args: Parameters<typeof real.stat>) => {
    faults.stat?.(String(args[0]));
    return real.stat(...args);
  }) as typeof real.stat;
  return { ...real, stat };
});
const failure = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

let dir: string;
const cleanups: (() => void)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-out-dir-'));
});
afterEach(async () => {
  faults.stat = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** The usage error prepareOutputDirectory(`out`) throws: its message says why. */
async function refusal(out: string, why: string): Promise<void> {
  const error = await prepareOutputDirectory(out).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ExportUsageError);
  expect((error as Error).message).toBe(
    `\`out\` ${out}: cannot use it as the output directory (${why})`,
  );
}

/** Runs `command` as root's tool; false where the machine does not allow it. */
function tryRoot(command: string, ...args: string[]): boolean {
  if (!isRoot) return false;
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A tmpfs mounted at a new directory under the test's (options: `ro`, a size); or undefined. */
function tmpfs(options: string): string | undefined {
  const at = join(dir, 'mnt');
  mkdirSync(at);
  if (!tryRoot('mount', '-t', 'tmpfs', '-o', options, 'tmpfs', at)) return undefined;
  cleanups.push(() => execFileSync('umount', ['-l', at], { stdio: 'ignore' }));
  return at;
}

describe('a directory that can be used', () => {
  it('creates the missing levels, several deep, each 0700 (the exports hold personal data)', async () => {
    const out = join(dir, 'a', 'b', 'c');
    await prepareOutputDirectory(out);
    for (const level of [join(dir, 'a'), join(dir, 'a', 'b'), out]) {
      const info = await stat(level);
      expect(info.isDirectory()).toBe(true);
      expect(info.mode & 0o777).toBe(0o700);
    }
    expect(await readdir(out)).toEqual([]);
  });

  it('leaves an existing directory as it is: its mode and its files', async () => {
    await chmod(dir, 0o750);
    await writeFile(join(dir, 'users.jsonl'), 'kept');
    await prepareOutputDirectory(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o750);
    expect(await readdir(dir)).toEqual(['users.jsonl']);
  });

  it('a relative path is made under the working directory, and nothing else is', async () => {
    // resolve() reads the working directory from process.cwd() (chdir is refused in a worker thread).
    const cwd = vi.spyOn(process, 'cwd').mockReturnValue(dir);
    try {
      await prepareOutputDirectory(join('out', 'users'));
      await prepareOutputDirectory('out');
    } finally {
      cwd.mockRestore();
    }
    expect(await readdir(dir)).toEqual(['out']);
    expect(await readdir(join(dir, 'out'))).toEqual(['users']);
  });

  it("follows the user's own link to a directory, and creates under its target", async () => {
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'link'));
    await prepareOutputDirectory(join(dir, 'link', 'export'));
    expect((await stat(join(dir, 'real', 'export'))).isDirectory()).toBe(true);
  });

  it('two runs preparing the same new directory at once both succeed', async () => {
    const out = join(dir, 'a', 'b', 'c', 'd');
    const runs = Array.from({ length: 4 }, () => prepareOutputDirectory(out));
    await expect(Promise.all(runs)).resolves.toHaveLength(4);
    expect((await stat(out)).isDirectory()).toBe(true);
  });
});

describe('a directory that cannot be used: a usage error that says why', () => {
  it('a file at its place', async () => {
    await writeFile(join(dir, 'out'), '');
    await refusal(join(dir, 'out'), 'it is a file');
  });

  it('a path through a file', async () => {
    await writeFile(join(dir, 'file'), '');
    await refusal(
      join(dir, 'file', 'sub', 'out'),
      'a part of the path is a file, not a directory, ENOTDIR',
    );
  });

  it("the user's own link that points nowhere: nothing is created where it points", async () => {
    await symlink(join(dir, 'nowhere'), join(dir, 'out'));
    await refusal(
      join(dir, 'out'),
      'a part of the path does not exist and cannot be created, ENOENT',
    );
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it.runIf(existsSync('/proc/self'))(
    'a place where nothing can be created (/proc): said at once, never looping',
    async () => {
      await refusal(
        '/proc/rcs-export/users',
        'a part of the path does not exist and cannot be created, ENOENT',
      );
    },
  );

  describe.skipIf(!isRoot)('(needs root)', () => {
    it('a link in its path planted by another user', async () => {
      await chmod(dir, 0o755);
      await mkdir(join(dir, 'real'));
      const link = join(dir, 'link');
      await symlink(join(dir, 'real'), link);
      lchownSync(link, NOBODY, NOBODY);
      await refusal(
        join(link, 'export'),
        `${link} is a symbolic link another user could have made or replaced, refused (it may have been planted to make rcs read another file): rcs follows a link only when the link and its directory are yours or root's and no one else can write to the directory (unless it is sticky); name its target instead (the link belongs to uid ${NOBODY})`,
      );
      expect(await readdir(join(dir, 'real'))).toEqual([]);
    });

    // Switching the effective uid is process-wide, which Node refuses in a worker thread (the
    // mutation runner's pool): there the test cannot run.
    it.skipIf(!isMainThread)(
      "a directory the user may not write to (as nobody, in root's directory)",
      async () => {
        await chmod(dir, 0o755);
        // The effective ids only, put back at once (this process is root's).
        process.setegid?.(NOBODY);
        process.seteuid?.(NOBODY);
        try {
          await refusal(join(dir, 'out'), 'permission denied, EACCES');
        } finally {
          process.seteuid?.(0);
          process.setegid?.(0);
        }
        expect(await readdir(dir)).toEqual([]);
      },
    );

    it('a read-only file system: neither a new directory nor an existing one', async (ctx) => {
      const ro = tmpfs('ro');
      if (!ro) return ctx.skip('this machine does not let the test mount a tmpfs');
      await refusal(join(ro, 'out'), 'read-only file system, EROFS');
      await refusal(ro, 'read-only file system, EROFS');
    });

    it('a file system with no inode left: no space', async (ctx) => {
      const full = tmpfs('size=64k,nr_inodes=1');
      if (!full) return ctx.skip('this machine does not let the test mount a tmpfs');
      await refusal(join(full, 'out'), 'no space left on the device, ENOSPC');
    });

    it('an immutable directory: neither a directory under it nor itself', async (ctx) => {
      const locked = join(dir, 'locked');
      await mkdir(locked);
      if (!tryRoot('chattr', '+i', locked)) {
        return ctx.skip('this file system or machine does not let the test make it immutable');
      }
      cleanups.push(() => execFileSync('chattr', ['-i', locked]));
      await refusal(join(locked, 'out'), 'operation not permitted, EPERM');
      await refusal(locked, 'operation not permitted, EPERM');
    });
  });
});

describe('what Windows answers', () => {
  it('a path through a file is missing there (ENOENT): the file that stops it is named', async () => {
    const file = join(dir, 'file');
    await writeFile(file, '');
    faults.stat = (path) => {
      if (path.startsWith(`${file}${sep}`)) throw failure('ENOENT');
    };
    await refusal(join(file, 'sub', 'out'), `${file} is a file, not a directory`);
  });

  it('a drive that is not there (its root is missing too): refused, never looping', async () => {
    let calls = 0;
    faults.stat = () => {
      calls += 1;
      // Far more than the levels of the path: it would walk forever (said by the code).
      throw failure(calls > 100 ? 'LOOPING' : 'ENOENT');
    };
    await refusal(
      join(dir, 'out', 'users'),
      'a part of the path does not exist and cannot be created, ENOENT',
    );
  });
});
