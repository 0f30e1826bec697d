/**
 * One export run per output directory (issue 6: "a second run on the same directory while one
 * is running refuses with a clear message, rather than interleaving").
 *
 * The lock is `DIR/.rcs-export.lock`, created with O_EXCL and holding the owner's pid, host and
 * start time. A lock whose owner is gone (same host, pid no longer alive: a crash or `kill -9`)
 * is stale and taken over, so that a nightly job does not stay blocked forever. Under the lock,
 * partial files left by such a dead run are removed.
 */

import { open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { FILE_MODE, PARTIAL_SUFFIX } from './atomic-file.js';

export const LOCK_FILE = '.rcs-export.lock';

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

export class ExportLockedError extends Error {
  override name = 'ExportLockedError';
}

export interface ExportLock {
  path: string;
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else: alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return { pid: parsed.pid, host: parsed.host, startedAt: String(parsed.startedAt ?? '') };
    }
  } catch {
    // Unreadable or half-written: decided below.
  }
  return undefined;
}

export async function acquireExportLock(dir: string): Promise<ExportLock> {
  const path = join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', FILE_MODE);
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await removeDeadPartials(dir);
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          await unlink(path).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(path);
    const stale = owner
      ? owner.host === me.host && !isAlive(owner.pid)
      : await olderThan(path, UNREADABLE_LOCK_STALE_MS);
    if (!stale) {
      const who = owner
        ? `pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}`
        : 'its owner could not be read';
      throw new ExportLockedError(
        `another rcs export is writing to ${dir} (${who}); wait for it to finish, or delete ${path} if that run is gone`,
      );
    }
    // The owner died without releasing: take the lock over (another taker may race us; the
    // O_EXCL create above decides who wins).
    await unlink(path).catch(() => {});
  }
  throw new ExportLockedError(`could not take the export lock ${path}; try again`);
}

/** A lock file nobody could read (its writer died between create and write) expires. */
const UNREADABLE_LOCK_STALE_MS = 60_000;

async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return true;
  }
}

/** Partial files of runs that are no longer alive (we hold the lock, so none is being written). */
async function removeDeadPartials(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith('.') && name.endsWith(PARTIAL_SUFFIX))
      .filter((name) => {
        const pid = Number(name.split('.').at(-3));
        return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
      })
      .map((name) => unlink(join(dir, name)).catch(() => {})),
  );
}
