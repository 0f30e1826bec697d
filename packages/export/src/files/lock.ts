/**
 * The lock file of one run at a time: an export per output directory (`DIR/.rcs-export.lock`: "a
 * second run on the same directory while one is running refuses with a clear message, rather
 * than interleaving"), an `rcs upload` per ledger (`<ledger>.lock`, D28 across processes: a
 * second run waits for the first, then skips what it recorded).
 *
 * The lock is created with O_EXCL, holding the owner's pid, its PID namespace (Linux:
 * `/proc/self/ns/pid`), host, boot id (`/proc/sys/kernel/random/boot_id`), start time, a random
 * token and its lease: the longest time it promises to go without renewing the lock. The owner
 * renews it by touching the file every eighth of its lease. A new process takes the lock over
 * when its owner is provably gone:
 *
 * - same host, same boot and same PID namespace, and the pid is not alive, or is our own pid (a
 *   process restarted after `kill -9` may get the dead owner's pid). A pid means nothing in
 *   another namespace: two containers of a pod share a host name and boot id, and each has its
 *   own pid 1 (a lock of an older rcs, which names no namespace, is judged as before);
 * - same host, another boot (the machine restarted: no process of the old boot survives);
 * - or its lease expired: the only proof for a lock from another host (a new pod on shared
 *   storage) or another PID namespace. A lease is judged as this rcs writes it: a lock that
 *   promises a longer one (planted, or of another version) gets ours, so it blocks no longer.
 *
 * When the lock was last renewed is its ctime, which the file system sets, never its mtime,
 * which the owner sets from its own clock: a host whose clock is ahead would otherwise keep its
 * dead lock for as long as its clock is ahead. A ctime ahead of this host's clock (a file server
 * whose clock is ahead) is judged by the lease alone: the lock is watched for one lease, and
 * taken over if nobody renewed it. A process that waits for the lock (`wait`: the upload ledger)
 * judges every lease so, by watching: expired once the file has not changed for a whole lease on
 * this process's monotonic clock, so that no clock but its own decides (not even a file server's
 * behind ours, which would make a live lock look old).
 *
 * Taking a stale lock over is atomic: of any number of processes that find the same stale lock,
 * exactly one replaces it. Each tries to create `<lock>.takeover-<id>` with
 * O_EXCL, where `<id>` names that very version of the lock (device, inode, ctime and bytes);
 * only its creator may replace the lock, and only after checking it is still that version, by
 * renaming a complete lock file of its own over it. The others find the claim held by a live
 * process and refuse (or wait), naming it. A claim whose creator died is itself claimed the same way
 * (`takeover-<id of the claim>`), so that a crash mid-takeover never blocks the lock.
 *
 * Fencing: a holder that was paused past its lease (SIGSTOP, a frozen VM) may have been taken
 * over. Before each step that must be its alone (the export's commit, an upload's create), it
 * calls `assertHeld`: the lock is touched (a taker whose judgement came from the unchanged file
 * then finds it changed, and takes nothing) and read back: another run's token ends the holder.
 *
 * Under the lock, side files of takeovers older than a lease are removed (and, for an export,
 * partial files left by earlier runs: whoever held the lock before is gone). Every file here is
 * opened without following links (safe-open.ts).
 */

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { link, lstat, lutimes, readdir, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { sleep } from '@rcs/client/internal';
import { ExportError } from '../errors.js';
import { FILE_MODE, PARTIAL_SUFFIX } from './atomic-file.js';
import { createExclusive, openForReading } from './safe-open.js';

export const LOCK_FILE = '.rcs-export.lock';
/** A lock not renewed for this long has lost its lease (its owner stopped renewing it). */
export const LOCK_LEASE_MS = 120_000;
/** A renewal this far ahead of our clock is still "now" (clocks a little apart, coarse ctime). */
const FUTURE_TOLERANCE_MS = 2_000;
/** Claims of claims followed at most (each one a crash in the middle of a takeover). */
const MAX_CLAIMS = 8;
/** A lock file is a line of JSON; more is not a lock rcs wrote (and is never read whole). */
const MAX_LOCK_BYTES = 4096;
/** How often a waiting process looks at the lock again. */
const POLL_MS = 100;

/** Who holds a lock (or a takeover's claim), as its file says. @internal */
export interface LockOwner {
  pid: number;
  host: string;
  bootId?: string;
  /** The PID namespace `pid` is a pid in (`pid:[4026531836]`); missing from an older rcs's lock. */
  pidNs?: string;
  /** ISO time the owner started taking the lock; missing from a lock an older rcs wrote. */
  startedAt?: string;
  token?: string;
  leaseMs?: number;
}

/** A lock or a claim as found: its owner (when readable), its last renewal, its identity. */
interface Seen {
  owner: LockOwner | undefined;
  /** The file's ctime: set by the file system, whatever the owner's clock says. */
  renewedAt: number;
  /** This file, as it is now: a hash of its device, inode, ctime and bytes. */
  identity: string;
}

/** Another run holds the lock, or is taking it over: this one refused (or could not take it). */
export class ExportLockedError extends ExportError {
  override name = 'ExportLockedError';
}

/** A lock this run holds, renewed until released. @internal */
export interface FileLock {
  path: string;
  /** Throws when the lock is no longer ours (taken over after our lease expired). */
  assertHeld(): Promise<void>;
  release(): Promise<void>;
}

/** Locks held (or being taken) by this process: never "taken over" from ourselves. */
const HELD = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else: alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return true;
}

/** This machine's boot id and this process's PID namespace, where the system has them (Linux). */
function whereAmI(): Pick<LockOwner, 'bootId' | 'pidNs'> | undefined {
  try {
    return {
      bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidNs: readlinkSync('/proc/self/ns/pid'),
    };
  } catch {
    // Not Linux: no boot id, no PID namespace.
  }
}

/** The owner a lock file names; fields of the wrong type are left out. */
function parseOwner(text: string): LockOwner | undefined {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const { pid, host, leaseMs } = parsed;
    if (typeof pid !== 'number' || typeof host !== 'string') return undefined;
    const owner: LockOwner = { pid, host, ...(typeof leaseMs === 'number' ? { leaseMs } : {}) };
    for (const field of ['startedAt', 'bootId', 'pidNs', 'token'] as const) {
      const value = parsed[field];
      if (typeof value === 'string') owner[field] = value;
    }
    return owner;
  } catch {
    // Unreadable or half-written: only its lease can tell.
  }
}

/** What is at `path` now, or undefined when nothing is. A link is refused (UnsafeFileError). */
async function look(path: string): Promise<Seen | undefined> {
  let handle: Awaited<ReturnType<typeof openForReading>>;
  try {
    handle = await openForReading(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const info = await handle.stat();
    const bytes = Buffer.alloc(MAX_LOCK_BYTES);
    const { bytesRead } = await handle.read(bytes, 0, MAX_LOCK_BYTES, 0);
    const content = bytes.subarray(0, bytesRead);
    const identity = createHash('sha256')
      .update(`${info.dev}:${info.ino}:${info.ctimeMs}:${info.size}\n`)
      .update(content)
      .digest('hex')
      .slice(0, 32);
    return { owner: parseOwner(content.toString('utf8')), renewedAt: info.ctimeMs, identity };
  } finally {
    await handle.close();
  }
}

/** The lease a lock promised, capped at ours (what this rcs writes); ours if it promised none. */
function leaseOf(owner: LockOwner | undefined, oursMs: number): number {
  const promised = owner?.leaseMs ?? 0;
  return promised > 0 ? Math.min(promised, oursMs) : oursMs;
}

/** Why the owner is provably gone by its pid or boot, or undefined when it may still be running. */
function goneBecause(owner: LockOwner | undefined, me: LockOwner): string | undefined {
  if (!owner || owner.host !== me.host) return undefined;
  if (owner.bootId !== undefined && me.bootId !== undefined && owner.bootId !== me.bootId) {
    return 'its host has restarted since';
  }
  if (owner.pidNs !== undefined && owner.pidNs !== me.pidNs) return undefined;
  if (owner.pid === me.pid) return `its pid ${owner.pid} is now this process's own`;
  if (!isAlive(owner.pid)) return `pid ${owner.pid} is no longer running`;
  return undefined;
}

/** What a lock's judge found: its owner gone (why), still holding it, or the lock vanished. */
type Verdict = { gone: string } | 'holds' | 'vanished';

/**
 * A renewal time ahead of our clock: our clock cannot tell how long ago it was, its lease can.
 * The lock is watched (on this process's timers) for one lease: renewed or replaced, its owner
 * holds it; unchanged, its owner is gone.
 */
async function watchFor(path: string, seen: Seen, leaseMs: number): Promise<Verdict> {
  const step = Math.max(10, Math.min(1_000, leaseMs / 20));
  for (let waited = 0; waited < leaseMs; waited += step) {
    await sleep(step);
    const now = await look(path);
    if (!now) return 'vanished';
    if (now.identity !== seen.identity) return 'holds';
  }
  return { gone: `it was not renewed during its lease of ${Math.round(leaseMs / 1000)} s` };
}

/**
 * How a process judges the lease of a lock (or a claim) whose owner is not provably gone: by its
 * renewal time when it refuses at once (it has one look), by watching it when it waits (many).
 */
interface Judge {
  /** The lock's owner: gone (why), still holding it, or the lock vanished meanwhile. */
  lock(path: string, seen: Seen): Promise<Verdict>;
  /** Whether the lease of a takeover's claim expired. */
  expired(path: string, seen: Seen): boolean;
}

/** Refusing: the lease counts from the lock's ctime (a ctime ahead of our clock is watched). */
function byRenewal(fallbackMs: number): Judge {
  return {
    async lock(path, seen) {
      const leaseMs = leaseOf(seen.owner, fallbackMs);
      const age = Date.now() - seen.renewedAt;
      if (age > leaseMs) return { gone: `its lease of ${Math.round(leaseMs / 1000)} s expired` };
      if (age >= -FUTURE_TOLERANCE_MS) return 'holds';
      return watchFor(path, seen, leaseMs);
    },
    expired: (_, seen) => Date.now() - seen.renewedAt > leaseOf(seen.owner, fallbackMs),
  };
}

/**
 * Waiting: a file's lease counts from when this process first saw it as it is now, on its own
 * monotonic clock; a renewal changes the file (its ctime), and the count starts again.
 */
function byWatching(fallbackMs: number): Judge {
  const firstSeen = new Map<string, { identity: string; at: number }>();
  const expired = (path: string, seen: Seen) => {
    const now = performance.now();
    const prior = firstSeen.get(path);
    if (prior?.identity !== seen.identity) {
      firstSeen.set(path, { identity: seen.identity, at: now });
      return false;
    }
    return now - prior.at >= leaseOf(seen.owner, fallbackMs);
  };
  return {
    async lock(path, seen) {
      if (!expired(path, seen)) return 'holds';
      const leaseMs = leaseOf(seen.owner, fallbackMs);
      return { gone: `it did not change for its lease of ${Math.round(leaseMs / 1000)} s` };
    },
    expired,
  };
}

const unlinkQuietly = (path: string) => unlink(path).catch(() => {});

/** Creates `path` holding `owner`, complete and fsynced; throws EEXIST if it exists. */
async function writeNew(path: string, owner: LockOwner): Promise<void> {
  const handle = await createExclusive(path, FILE_MODE);
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
    await handle.sync();
  } catch (error) {
    // A full disk: no empty lock file is left behind.
    await unlinkQuietly(path);
    throw error;
  } finally {
    await handle.close();
  }
}

/** File systems without hard links (some FUSE and SMB mounts) answer link(2) with these. */
const NO_LINKS = new Set<string | undefined>(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Gives the complete file `candidate` (our owner record) the name `name` too, atomically: false
 * if `name` exists (link(2) never replaces nor follows). Whoever reads `name` finds it whole,
 * never half-written. Without hard links, `name` is created and written instead.
 */
async function linkAs(candidate: string, name: string, owner: LockOwner): Promise<boolean> {
  try {
    await link(candidate, name).catch((error: NodeJS.ErrnoException) =>
      NO_LINKS.has(error.code) ? writeNew(name, owner) : Promise.reject(error),
    );
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** `taker`: a live process taking the lock over. `spent`: our candidate became the lock, and then
 * another's (a process that judged us gone, which the next look finds) or none's. */
type Takeover = { won: true } | { won: false; taker?: string; spent?: true };

/**
 * Replaces the stale lock `seen` with ours, if no other process does: see the header.
 */
async function takeOver(
  path: string,
  candidate: string,
  seen: Seen,
  me: LockOwner,
  judge: Judge,
): Promise<Takeover> {
  // Stryker disable next-line ArrayDeclaration: the mutant's one name ("Stryker was here") is no file of ours; unlinked quietly, it changes nothing
  const passed: string[] = [];
  let claim: string | undefined;
  let won = false;
  try {
    let id = seen.identity;
    for (let level = 0; level < MAX_CLAIMS; level++) {
      const name = `${path}.takeover-${id}`;
      if (await linkAs(candidate, name, me)) {
        claim = name;
        break;
      }
      const other = await look(name);
      // Its creator finished (the lock is no longer `seen`) or gave up: look again.
      // Stryker disable next-line ObjectLiteral: {} reads as { won: false } (neither won nor a taker named)
      if (!other) return { won: false };
      if (!goneBecause(other.owner, me) && !judge.expired(name, other)) {
        return {
          won: false,
          taker: other.owner ? describeOwner(other.owner) : 'its owner could not be read',
        };
      }
      // Its creator died mid-takeover: claim its claim.
      passed.push(name);
      id = other.identity;
    }
    // Stryker disable next-line ObjectLiteral: {} reads as { won: false } (neither won nor a taker named)
    if (claim === undefined) return { won: false };
    // We alone may replace `seen`, if it is still there as it was.
    // Stryker disable next-line ObjectLiteral: as above
    if ((await look(path))?.identity !== seen.identity) return { won: false };
    await rename(candidate, path);
    // Read back: it differs only if a process judged us gone meanwhile.
    won = (await look(path))?.owner?.token === me.token;
    return won ? { won } : { won, spent: true };
  } finally {
    // Stryker disable next-line ConditionalExpression: unlinkQuietly(undefined) rejects (no path), and the rejection is dropped
    if (claim !== undefined) await unlinkQuietly(claim);
    if (won) await Promise.all(passed.map(unlinkQuietly));
  }
}

/** @internal */
export interface LockOptions {
  /** The lease this run promises, and the longest it grants another's lock (LOCK_LEASE_MS). */
  leaseMs?: number;
  /** What the lock is called in messages ("the export lock …"). */
  name?: string;
  /**
   * Wait while a live process holds the lock (or is taking a stale one over) instead of refusing;
   * leases are then judged by watching (see the header).
   */
  wait?: boolean;
  /** Waiting: ends the wait, throwing its reason. */
  signal?: AbortSignal | undefined;
  /** Waiting: called once, when the lock is held by another run and this one starts waiting. */
  onWait?: ((holder: LockOwner | undefined) => void) | undefined;
  /**
   * Called when a stale lock was taken over, with its owner (undefined when unreadable) and why it
   * was judged gone ("pid 123 is no longer running").
   */
  onTakeover?: ((stale: LockOwner | undefined, why: string) => void) | undefined;
}

const describeOwner = (owner: LockOwner) =>
  `pid ${owner.pid} on ${owner.host}, started ${owner.startedAt ?? 'at an unknown time'}`;

/** Why a try did not take the lock: a live holder, or a live taker of a stale lock. */
interface Busy {
  seen: Seen;
  /** The live process taking the stale lock `seen` over, and why its owner is gone. */
  takeover?: { taker: string; gone: string };
}

/**
 * Takes the lock file `path`. When another live process holds it: refuses (ExportLockedError,
 * export wording), or with `wait`, waits until it is released or its owner is gone. @internal
 */
export async function acquireLock(path: string, options: LockOptions = {}): Promise<FileLock> {
  // Messages name the directory as the caller gave it (`out`, not its absolute path).
  const dir = dirname(path);
  path = resolve(path);
  const leaseMs = options.leaseMs ?? LOCK_LEASE_MS;
  let waited = false;
  const waitFor = async (holder: LockOwner | undefined) => {
    if (!waited) options.onWait?.(holder);
    waited = true;
    await sleep(POLL_MS, options.signal);
  };
  options.signal?.throwIfAborted();
  // Checked and marked with no await between: two runs of this process never both proceed.
  while (HELD.has(path)) {
    if (!options.wait) {
      throw new ExportLockedError(`another export of this process is writing to ${dir}`);
    }
    await waitFor((await look(path).catch(() => undefined))?.owner);
  }
  HELD.add(path);
  try {
    const me: LockOwner = {
      pid: process.pid,
      host: hostname(),
      ...whereAmI(),
      startedAt: new Date().toISOString(),
      token: randomBytes(8).toString('hex'),
      leaseMs,
    };
    const judge = options.wait ? byWatching(leaseMs) : byRenewal(leaseMs);
    for (;;) {
      const busy = await tryToTake(path, me, judge, options);
      if (busy === undefined) return await held(path, me, leaseMs, options.name ?? 'lock');
      if (!options.wait) {
        const { seen, takeover } = busy;
        if (takeover) {
          throw new ExportLockedError(
            `another rcs export is taking over the lock of ${dir} (${takeover.taker}), whose owner is gone (${takeover.gone}); wait for it to finish`,
          );
        }
        const age = Math.max(0, Math.round((Date.now() - seen.renewedAt) / 1000));
        const who = seen.owner
          ? `${describeOwner(seen.owner)}, lease renewed ${age} s ago`
          : 'its owner could not be read';
        throw new ExportLockedError(
          `another rcs export is writing to ${dir} (${who}); wait for it to finish. A lock whose owner is gone is taken over: at once on the same host, after ${Math.round(leaseOf(seen.owner, leaseMs) / 1000)} s without renewal from another host`,
        );
      }
      await waitFor(busy.seen.owner);
    }
  } catch (error) {
    HELD.delete(path);
    throw error;
  }
}

/**
 * One try: up to three looks at the lock (it may be released, or taken, between two); undefined
 * once the lock is ours, or who keeps it from us.
 */
async function tryToTake(
  path: string,
  me: LockOwner,
  judge: Judge,
  options: LockOptions,
): Promise<Busy | undefined> {
  // Our lock, complete, under a name of its own: it becomes the lock (or a takeover's claim)
  // by a link or a rename, so that no reader ever finds it half-written. Made anew for each try:
  // one left while waiting would be removed as a side file older than a lease.
  const candidate = `${path}.${me.token}.new`;
  await writeNew(candidate, me);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await linkAs(candidate, path, me)) return undefined;
      const seen = await look(path);
      if (!seen) continue; // released meanwhile: try again
      const gone = goneBecause(seen.owner, me);
      const verdict = gone ? { gone } : await judge.lock(path, seen);
      if (verdict === 'vanished') continue;
      if (verdict === 'holds') return { seen };
      const takeover = await takeOver(path, candidate, seen, me, judge);
      if (takeover.won) {
        options.onTakeover?.(seen.owner, verdict.gone);
        return undefined;
      }
      if (takeover.taker) return { seen, takeover: { taker: takeover.taker, gone: verdict.gone } };
      if (takeover.spent) await writeNew(candidate, me); // for the next look
    }
  } finally {
    // Linked as the lock, or renamed into it: this name only goes.
    await unlinkQuietly(candidate);
  }
  throw new ExportLockedError(`could not take the ${options.name ?? 'lock'} ${path}; try again`);
}

/** The export's lock of `dir`: refuses while another run holds it; removes partial files. */
export async function acquireExportLock(
  dir: string,
  options: Pick<LockOptions, 'leaseMs'> = {},
): Promise<FileLock> {
  const lock = await acquireLock(join(dir, LOCK_FILE), { ...options, name: 'export lock' });
  await removePartials(dir);
  return lock;
}

async function held(path: string, me: LockOwner, leaseMs: number, name: string): Promise<FileLock> {
  await removeSideFiles(path, leaseMs);
  // Renewals touch this very file only (its inode): never a lock that replaced it (its owner may
  // be gone: it keeps its own lease). lutimes: the lock's own times, never a link's target.
  const { ino } = await lstat(path);
  let released = false;
  // One renewal at a time (a slow file system never piles them up).
  let renewing: Promise<void> | undefined;
  const renew = () =>
    (renewing ??= (async () => {
      if ((await lstat(path)).ino !== ino) return;
      const now = new Date();
      await lutimes(path, now, now);
    })()
      .catch(() => {})
      .finally(() => {
        renewing = undefined;
      }));
  // Every eighth of the lease: far inside it, so a busy moment never loses it (unref'd: it never
  // keeps the process up).
  const timer = setInterval(renew, leaseMs / 8);
  timer.unref();
  const owner = async () => (await look(path).catch(() => undefined))?.owner;
  return {
    path,
    async assertHeld() {
      await renew();
      const now = await owner();
      if (now?.token !== me.token) {
        const by = now ? ` (${describeOwner(now)})` : '';
        throw new ExportLockedError(
          `the ${name} ${path} is no longer this run's: another run${by} took it over, judging this run gone (its lease not renewed for ${Math.round(leaseMs / 1000)} s), or the lock file was removed; this run stops, replacing and recording nothing more`,
        );
      }
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      // A renewal under way ends first: once released, nothing touches the lock's name.
      await renewing;
      HELD.delete(path);
      // Never remove a lock that another run has taken over meanwhile.
      if ((await owner())?.token === me.token) await unlinkQuietly(path);
    },
  };
}

/**
 * Side files of takeovers (`<lock>.takeover-<id>`, `<lock>.<token>.new`) older than a lease: a
 * process that lost a race may still be using its own for a moment; it goes when its creator is
 * surely gone.
 */
async function removeSideFiles(path: string, leaseMs: number): Promise<void> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  await removeIn(dir, async (name) => {
    if (!name.startsWith(prefix)) return false;
    const info = await lstat(join(dir, name)).catch(() => undefined);
    return info !== undefined && Date.now() - info.ctimeMs > leaseMs;
  });
}

/** Partial files of earlier exports (we hold the lock: none is being written). */
async function removePartials(dir: string): Promise<void> {
  await removeIn(dir, async (name) => name.startsWith('.') && name.endsWith(PARTIAL_SUFFIX));
}

async function removeIn(dir: string, stale: (name: string) => Promise<boolean>): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      if (await stale(name)) await unlinkQuietly(join(dir, name));
    }),
  );
}
