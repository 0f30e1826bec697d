/**
 * One export run per output directory (issue 6: "a second run on the same directory while one
 * is running refuses with a clear message, rather than interleaving").
 *
 * The lock is `DIR/.rcs-export.lock`, created with O_EXCL, holding the owner's pid, host, boot
 * id (Linux: `/proc/sys/kernel/random/boot_id`), start time and a random token. The owner renews
 * a lease by touching the file's mtime every LEASE_RENEW_MS. A new process takes the lock over
 * (issue 25) when its owner is provably gone:
 *
 * - same host and same boot, and the pid is not alive, or is our own pid (a container restarted
 *   after `kill -9` runs as PID 1 again, so the dead owner's pid is ours);
 * - same host, another boot (the machine restarted: no process of the old boot survives);
 * - or, from any host, its lease expired (not renewed for LOCK_LEASE_MS): the only proof
 *   available for a lock from another host (a new pod on shared storage).
 *
 * Under the lock, partial files left by earlier runs are removed: whoever held the lock before
 * is gone.
 */

import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ExportError } from '../errors.js';
import { FILE_MODE, PARTIAL_SUFFIX } from './atomic-file.js';

export const LOCK_FILE = '.rcs-export.lock';
/** A lock whose mtime is older than this has lost its lease (its owner stopped renewing it). */
export const LOCK_LEASE_MS = 120_000;
/** How often the owner renews its lease: far inside the lease, so a busy moment never loses it. */
const LEASE_RENEW_MS = 15_000;
const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

interface LockOwner {
  pid: number;
  host: string;
  bootId?: string;
  startedAt: string;
  token?: string;
}

export class ExportLockedError extends ExportError {
  override name = 'ExportLockedError';
}

export interface ExportLock {
  path: string;
  /** Throws when the lock is no longer ours (taken over after our lease expired). */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

/** Locks held by this process: never "taken over" from ourselves (a library running two runs). */
const HELD = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else: alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This machine's boot id ('' or undefined where there is none: the caller records a real one). */
async function bootId(): Promise<string | undefined> {
  try {
    return (await readFile(BOOT_ID_FILE, 'utf8')).trim();
  } catch {
    // No boot id on this system.
  }
  return undefined;
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return {
        pid: parsed.pid,
        host: parsed.host,
        startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : 'at an unknown time',
        ...(typeof parsed.bootId === 'string' ? { bootId: parsed.bootId } : {}),
        // Stryker disable next-line ConditionalExpression: a token that is not text never equals ours either way
        ...(typeof parsed.token === 'string' ? { token: parsed.token } : {}),
      };
    }
  } catch {
    // Unreadable or half-written: only its lease can tell.
  }
  return undefined;
}

/** Why the owner is provably gone, or undefined when it may still be running. */
function goneBecause(owner: LockOwner, me: LockOwner): string | undefined {
  if (owner.host !== me.host) return undefined;
  if (owner.bootId !== undefined && me.bootId !== undefined && owner.bootId !== me.bootId) {
    return 'its host has restarted since';
  }
  if (owner.pid === me.pid) return `its pid ${owner.pid} is now this process's own`;
  if (!isAlive(owner.pid)) return `pid ${owner.pid} is no longer running`;
  return undefined;
}

async function leaseAgeMs(path: string): Promise<number | undefined> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    // Gone: no lease.
  }
  return undefined;
}

export interface LockOptions {
  /** For tests: the lease (LOCK_LEASE_MS). */
  leaseMs?: number;
}

export async function acquireExportLock(
  dir: string,
  options: LockOptions = {},
): Promise<ExportLock> {
  const path = resolve(dir, LOCK_FILE);
  const leaseMs = options.leaseMs ?? LOCK_LEASE_MS;
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    ...(await bootId().then((id) => (id ? { bootId: id } : {}))),
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  if (HELD.has(path)) {
    throw new ExportLockedError(`another export of this process is writing to ${dir}`);
  }
  // Stryker disable next-line EqualityOperator: a fourth try of a takeover that failed three times fails alike
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', FILE_MODE);
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      HELD.add(path);
      await removePartials(dir);
      return heldLock(path, me.token!);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(path);
    const age = await leaseAgeMs(path);
    // Stryker disable next-line ConditionalExpression: going on instead unlinks nothing (no owner, no lease) and tries again too
    if (age === undefined) continue; // released meanwhile: try again
    const gone = owner ? goneBecause(owner, me) : undefined;
    // Stryker disable next-line EqualityOperator: a lease that ends in this very millisecond is over either way
    if (!gone && age <= leaseMs) {
      const who = owner
        ? `pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}, lease renewed ${Math.round(age / 1000)} s ago`
        : 'its owner could not be read';
      throw new ExportLockedError(
        `another rcs export is writing to ${dir} (${who}); wait for it to finish. A lock whose owner is gone is taken over: at once on the same host, after ${Math.round(leaseMs / 1000)} s without renewal from another host`,
      );
    }
    // The owner is gone: take the lock over (another taker may race us; the O_EXCL create
    // above decides who wins).
    await unlink(path).catch(() => {});
  }
  throw new ExportLockedError(`could not take the export lock ${path}; try again`);
}

function heldLock(path: string, token: string): ExportLock {
  let released = false;
  // The lease: the file's mtime, renewed while we run (unref'd: it never keeps the process up).
  const renew = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, LEASE_RENEW_MS);
  renew.unref();
  const ours = async () => (await readOwner(path))?.token === token;
  return {
    path,
    async assertHeld() {
      if (!(await ours())) {
        throw new ExportLockedError(
          `the export lock ${path} was taken over by another run (this run's lease had expired); nothing was replaced`,
        );
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(renew);
      HELD.delete(path);
      // Never remove a lock that another run has taken over meanwhile.
      if (await ours()) await unlink(path).catch(() => {});
    },
  };
}

/** Partial files of earlier runs (we hold the lock, so none is being written). */
async function removePartials(dir: string): Promise<void> {
  // Stryker disable next-line ArrowFunction: the directory holds the lock we just created, so it can be read
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith('.') && name.endsWith(PARTIAL_SUFFIX))
      .map((name) => unlink(join(dir, name)).catch(() => {})),
  );
}
