/**
 * What the platform answers only elsewhere, or only between two of the lock's system calls,
 * injected at the system call (every call passes through to the real one unless a test says
 * otherwise): a process of another user (EPERM, which root never meets), a system without boot
 * ids (not Linux), a file system without hard links (some FUSE and SMB mounts), a directory that
 * can be written but not listed, and another process acting between two of our calls.
 */
import type * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireExportLock,
  acquireLock,
  ExportLockedError,
  LOCK_FILE,
} from '../../src/files/lock.js';
import { claimOf, deadPid, LIVE_PID } from '../support/lock-files.js';

type Link = typeof fsp.link;
type Rename = typeof fsp.rename;
type Lstat = typeof fsp.lstat;
type Readdir = (dir: string) => Promise<string[]>;
/** The injections of the running test: each gets the real call to pass through to. */
const faults = vi.hoisted(() => ({
  link: undefined as undefined | ((real: Link, from: string, to: string) => Promise<void>),
  rename: undefined as undefined | ((real: Rename, from: string, to: string) => Promise<void>),
  lstat: undefined as undefined | ((real: Lstat, path: string) => ReturnType<Lstat>),
  readdir: undefined as undefined | ((real: Readdir, dir: string) => Promise<string[]>),
  noProc: false,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const link: Link = (from, to) =>
    faults.link ? faults.link(real.link, String(from), String(to)) : real.link(from, to);
  const rename: Rename = (from, to) =>
    faults.rename ? faults.rename(real.rename, String(from), String(to)) : real.rename(from, to);
  const lstat = ((path: string) =>
    faults.lstat ? faults.lstat(real.lstat, path) : real.lstat(path)) as Lstat;
  const readdir = ((dir: string, ...rest: []) =>
    faults.readdir && rest.length === 0
      ? faults.readdir(real.readdir as Readdir, dir)
      : real.readdir(dir, ...rest)) as typeof real.readdir;
  return { ...real, link, rename, lstat, readdir };
});

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const noProc = (path: fs.PathOrFileDescriptor) => {
    if (faults.noProc && String(path).startsWith('/proc/')) {
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), {
        code: 'ENOENT',
      });
    }
  };
  return {
    ...real,
    readFileSync: ((path: fs.PathOrFileDescriptor, ...rest: []) => {
      noProc(path);
      return real.readFileSync(path, ...rest);
    }) as typeof real.readFileSync,
    readlinkSync: ((path: fs.PathLike, ...rest: []) => {
      noProc(path as string);
      return real.readlinkSync(path, ...rest);
    }) as typeof real.readlinkSync,
  };
});

const failure = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await fsp.mkdtemp(join(tmpdir(), 'rcs-lock-faults-'));
  path = join(dir, LOCK_FILE);
});
afterEach(async () => {
  Object.assign(faults, {
    link: undefined,
    rename: undefined,
    lstat: undefined,
    readdir: undefined,
    noProc: false,
  });
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const lockFile = async () => JSON.parse(await readFile(path, 'utf8'));
/** A lock of this host whose process is gone. */
const plantStale = () =>
  writeFile(
    path,
    JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '', token: 'dead' }),
  );
/** A lock of this host whose process is alive. */
const live = JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: '', token: 'live' });

it("a lock of this host whose process is another user's (EPERM: it cannot be signalled) is kept", async () => {
  const pid = deadPid();
  await writeFile(path, JSON.stringify({ pid, host: hostname(), startedAt: '' }));
  const kill = process.kill.bind(process);
  vi.spyOn(process, 'kill').mockImplementation((target, signal) => {
    if (target === pid) throw failure('EPERM');
    return kill(target, signal);
  });
  await expect(acquireExportLock(dir)).rejects.toThrow(
    `another rcs export is writing to ${dir} (pid ${pid} on`,
  );
  expect((await lockFile()).pid).toBe(pid);
});

it('without boot ids (not Linux), a lock of this host naming a boot id is judged by its pid', async () => {
  faults.noProc = true;
  await writeFile(path, JSON.stringify({ pid: LIVE_PID, host: hostname(), bootId: 'a-boot' }));
  await expect(acquireExportLock(dir)).rejects.toThrow(`(pid ${LIVE_PID} on ${hostname()}`);
  await rm(path);
  const lock = await acquireExportLock(dir);
  const owner = await lockFile();
  expect(owner).not.toHaveProperty('bootId');
  expect(owner).not.toHaveProperty('pidNs');
  await lock.release();
});

describe('a file system without hard links (link(2) refused)', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])(
    '%s: the lock is written in place, complete, and a held one is still refused',
    async (code) => {
      faults.link = async () => {
        throw failure(code);
      };
      const lock = await acquireExportLock(dir);
      expect(await lockFile()).toMatchObject({ pid: process.pid, host: hostname() });
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
      await lock.release();
      await writeFile(path, live);
      await expect(acquireExportLock(dir)).rejects.toThrow(/another rcs export is writing/);
      // A stale lock is taken over through a claim written in place too.
      await plantStale();
      const taken = await acquireExportLock(dir);
      expect((await lockFile()).pid).toBe(process.pid);
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
      await taken.release();
    },
  );

  it('any other failure of link(2) is the error of the run', async () => {
    faults.link = async () => {
      throw failure('EIO');
    };
    await expect(acquireExportLock(dir)).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('another process acting between two of our calls', () => {
  it('a lock released between our link and our look, three times over: refused, try again', async () => {
    let tries = 0;
    faults.link = async (real, from, to) => {
      if (to === path && tries++ < 3) throw failure('EEXIST');
      return real(from, to);
    };
    await expect(acquireExportLock(dir)).rejects.toThrow(
      `could not take the export lock ${path}; try again`,
    );
    expect(tries).toBe(3);
    expect(await readdir(dir)).toEqual([]);
  });

  it("a taker's claim removed between our link and our look (it gave up): the stale lock is taken", async () => {
    await plantStale();
    const claim = await claimOf(path);
    await writeFile(claim, live);
    let removed = false;
    faults.link = async (real, from, to) => {
      if (to !== claim || removed) return real(from, to);
      removed = true;
      await real(from, to).finally(() => unlink(claim));
    };
    const lock = await acquireExportLock(dir);
    expect(removed).toBe(true);
    expect((await lockFile()).pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    await lock.release();
  });

  it.each([
    ['replaced by a live run: refused, naming it', true],
    ['released: taken', false],
  ])('the stale lock, once claimed, %s', async (_, replaced) => {
    await plantStale();
    let claimed = false;
    faults.link = async (real, from, to) => {
      await real(from, to);
      if (claimed || !to.includes('.takeover-')) return;
      claimed = true;
      if (replaced) await writeFile(path, live);
      else await unlink(path);
    };
    const taking = acquireExportLock(dir);
    if (replaced) {
      await expect(taking).rejects.toThrow(`(pid ${LIVE_PID} on ${hostname()}`);
      expect((await lockFile()).token).toBe('live');
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
    } else {
      await (await taking).release();
      expect(await readdir(dir)).toEqual([]);
    }
    expect(claimed).toBe(true);
  });

  it('a lock taken from us right after our takeover renamed it into place: not ours, left alone, and its holder named', async () => {
    await plantStale();
    faults.rename = async (real, from, to) => {
      await real(from, to);
      if (to === path) await writeFile(path, live);
    };
    const refusal = acquireExportLock(dir);
    await expect(refusal).rejects.toBeInstanceOf(ExportLockedError);
    await expect(refusal).rejects.toThrow(
      `another rcs export is writing to ${dir} (pid ${LIVE_PID} on ${hostname()}`,
    );
    expect((await lockFile()).token).toBe('live');
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
  });

  it('a lock replaced by an unreadable one right after our takeover renamed it: refused as held', async () => {
    await plantStale();
    faults.rename = async (real, from, to) => {
      await real(from, to);
      if (to === path) await writeFile(path, '{"pid": 12');
    };
    const refusal = acquireExportLock(dir);
    await expect(refusal).rejects.toBeInstanceOf(ExportLockedError);
    await expect(refusal).rejects.toThrow(
      `another rcs export is writing to ${dir} (its owner could not be read)`,
    );
    expect(await readFile(path, 'utf8')).toBe('{"pid": 12');
  });

  it('a lock released right after our takeover renamed it into place: the next look takes it', async () => {
    await plantStale();
    let taken = 0;
    faults.rename = async (real, from, to) => {
      await real(from, to);
      if (to === path && taken++ === 0) await unlink(path);
    };
    const lock = await acquireExportLock(dir);
    expect((await lockFile()).pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a side file removed between the listing and its look is passed over', async () => {
    const side = join(dir, `${LOCK_FILE}.takeover-0123`);
    await writeFile(side, '');
    faults.lstat = async (real, at) => {
      if (at === side) await unlink(side);
      return real(at);
    };
    const lock = await acquireExportLock(dir);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    await lock.release();
  });

  it('a directory that can be written but not listed still gives the lock (nothing is cleaned)', async () => {
    faults.readdir = async () => {
      throw failure('EACCES');
    };
    const lock = await acquireLock(path, { wait: true });
    expect((await lockFile()).pid).toBe(process.pid);
    await lock.release();
  });
});

it('the renewal timer keeps no process up', async () => {
  const timers: NodeJS.Timeout[] = [];
  const real = globalThis.setInterval;
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof real>) => {
    const timer = real(...args);
    timers.push(timer);
    return timer;
  }) as typeof real);
  const lock = await acquireExportLock(dir);
  expect(timers).toHaveLength(1);
  expect(timers[0]!.hasRef()).toBe(false);
  await lock.release();
});
