import { randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  lstatSync,
  lutimesSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { openNoFollowSync } from '@rcs/export/internal';

/**
 * D28 across processes: one `rcs upload` at a time writes a ledger. Two runs over the same files
 * started together would each find the ledger without the other's lines and upload every file
 * twice; so a run holds `<ledger>.lock` from before it reads the ledger until its uploads are
 * recorded, and a second run waits for it, then reads what the first recorded and skips it.
 *
 * The lock file holds its owner (pid, host, a run id). It is made whole before it appears: written
 * under a name of its own, then hard-linked to the lock's name, which fails when a lock is there
 * (no one ever sees an empty lock). Its holder touches it every HEARTBEAT_MS.
 *
 * A holder that was killed leaves its lock behind; it is stale when its process is gone (same
 * host, no such pid) or when it has not changed for a whole lease, as this process measures time
 * (its own monotonic clock: another host's clock, even one set in the future, decides nothing).
 * Taking over a stale lock is atomic: only the process that creates `<lock>.takeover-<run>` (O_EXCL,
 * one per stale owner) may replace it, and only while it is still that owner's; it replaces it with
 * a rename, so the lock's name never goes missing for a third process to grab. A taker killed
 * mid-way leaves its marker: the next one takes that over the same way (`.takeover-<its run>`).
 */

export const LEASE_MS = 20_000;
const HEARTBEAT_MS = 2_000;
const POLL_MS = 100;

/** Who holds a lock (or a takeover marker), as its file says. */
export interface LockOwner {
  pid: number;
  host: string;
  run: string;
  since: string;
}

interface LockOptions {
  signal?: AbortSignal | undefined;
  /** Called once, when the lock is held by another run and this one starts waiting. */
  onWait?: ((holder: LockOwner | undefined) => void) | undefined;
  /** Called when a stale lock is taken over (its holder was killed, or stopped for a lease). */
  onTakeover?: ((stale: LockOwner | undefined) => void) | undefined;
  /** Tests: the lease, the pause between tries, and the clock (ms, monotonic). */
  leaseMs?: number;
  pollMs?: number;
  now?: () => number;
  /** Tests: whether a process of this host is alive (default: signal 0). */
  alive?: (pid: number) => boolean;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof o.pid === 'number' &&
      typeof o.host === 'string' &&
      typeof o.run === 'string' &&
      typeof o.since === 'string'
    ) {
      return o as LockOwner;
    }
  } catch {
    // Not a lock of ours (or cut): judged by its lease alone.
  }
  return undefined;
}

/** What a lock or marker file is now: its owner and the identity and time that change with it. */
interface Seen {
  owner: LockOwner | undefined;
  /** ino, size and mtime: the same key means it did not change (no heartbeat). */
  key: string;
}

function look(path: string): Seen | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, 'read');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const st = fstatSync(fd);
    return {
      // Stryker disable next-line StringLiteral: JSON.parse reads a Buffer as its UTF-8 text.
      owner: parseOwner(readFileSync(fd, 'utf8')),
      key: `${st.ino}:${st.size}:${st.mtimeMs}`,
    };
  } finally {
    // Stryker disable next-line BlockStatement,CallExpression: a descriptor left open changes no answer.
    closeSync(fd);
  }
}

/** The run a lock or marker names; one without a readable owner is named by its file instead. */
function runOf(seen: Seen): string {
  // Stryker disable next-line StringLiteral,Regex: any name unique to the file does; these are for people.
  return seen.owner?.run ?? `unreadable-${seen.key.replace(/[^0-9a-z]/gi, '-')}`;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

export class LedgerLock {
  private timer: NodeJS.Timeout | undefined;
  private released = false;
  private readonly onExit = () => this.release();

  private constructor(
    readonly path: string,
    readonly owner: LockOwner,
    private readonly ino: number,
  ) {
    // Heartbeat: a lock that keeps changing is not stale, however long the run. By its name, and
    // only while it is still this run's (no descriptor is kept open: a disk that has to go
    // read-only can), never through a link (lutimes).
    this.timer = setInterval(() => {
      try {
        if (lstatSync(this.path).ino !== this.ino) return;
        const now = new Date();
        lutimesSync(this.path, now, now);
      } catch {
        // A full or vanished disk: the lease will say so to the others.
      }
    }, HEARTBEAT_MS);
    // Stryker disable next-line CallExpression: only lets a finished run exit before its release.
    this.timer.unref();
    process.once('exit', this.onExit);
  }

  /**
   * Takes the lock of the ledger at `ledgerPath`, waiting while another live run holds it and
   * taking it over from a run that is gone. Throws the abort reason when `signal` aborts.
   */
  static async acquire(ledgerPath: string, options: LockOptions = {}): Promise<LedgerLock> {
    const path = `${ledgerPath}.lock`;
    const owner: LockOwner = {
      pid: process.pid,
      host: hostname(),
      run: randomUUID(),
      since: new Date().toISOString(),
    };
    const judge = new Judge(options);
    let waited = false;
    for (;;) {
      options.signal?.throwIfAborted();
      const held = LedgerLock.tryCreate(path, owner);
      if (held) return held;
      const seen = look(path);
      if (seen === undefined) continue; // Released meanwhile: try again at once.
      if (judge.stale(path, seen)) {
        const taken = LedgerLock.takeOver(path, owner, seen, judge);
        if (taken) {
          options.onTakeover?.(seen.owner);
          return taken;
        }
      }
      if (!waited) {
        waited = true;
        options.onWait?.(seen.owner);
      }
      // Stryker disable all: the pause's length, and an abort seen here or at the loop's top, end alike.
      try {
        await sleep(options.pollMs ?? POLL_MS, undefined, { signal: options.signal });
      } catch (error) {
        // Stopped while waiting: the reason it was stopped for (Ctrl-C), not a bare AbortError.
        options.signal?.throwIfAborted();
        // Stryker restore all
        throw error;
      }
    }
  }

  /** The lock file made whole under a name of its own (`<lock>.<run>`); its inode number. */
  private static prepare(path: string, owner: LockOwner): { tmp: string; ino: number } {
    const tmp = `${path}.${owner.run}`;
    // Stryker disable next-line LogicalOperator: the name is this run's own, unique; no link can be there.
    const fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
      0o600,
    );
    try {
      writeSync(fd, `${JSON.stringify(owner)}\n`);
      return { tmp, ino: fstatSync(fd).ino };
    } catch (error) {
      unlinkQuietly(tmp);
      throw error;
    } finally {
      // Stryker disable next-line BlockStatement,CallExpression: a descriptor left open changes no answer.
      closeSync(fd);
    }
  }

  /** Links a prepared lock to the lock's name: fails (undefined) when a lock is there. */
  private static tryCreate(path: string, owner: LockOwner): LedgerLock | undefined {
    const { tmp, ino } = LedgerLock.prepare(path, owner);
    try {
      linkSync(tmp, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
      throw error;
    } finally {
      unlinkQuietly(tmp);
    }
    return new LedgerLock(path, owner, ino);
  }

  /**
   * Replaces the stale lock of `stale` if this process is the one allowed to (see above);
   * undefined when another process is taking it over, or has already.
   */
  private static takeOver(
    path: string,
    owner: LockOwner,
    stale: Seen,
    judge: Judge,
  ): LedgerLock | undefined {
    const staleRun = runOf(stale);
    // Stryker disable next-line ArrayDeclaration: removing a name that is not there does nothing.
    const markers: string[] = [];
    let target = staleRun;
    for (;;) {
      const marker = `${path}.takeover-${target}`;
      const mine = LedgerLock.prepare(marker, owner);
      let won = false;
      try {
        linkSync(mine.tmp, marker);
        won = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        unlinkQuietly(mine.tmp);
      }
      if (won) {
        markers.push(marker);
        break;
      }
      // Someone else is taking it over: wait for them, unless they were killed doing it.
      const other = look(marker);
      if (other === undefined || !judge.stale(marker, other)) return undefined;
      markers.push(marker);
      target = runOf(other);
    }
    try {
      // Still the lock that was judged stale? Then replace it, in one step.
      const now = look(path);
      if (now === undefined || runOf(now) !== staleRun) return undefined;
      const { tmp, ino } = LedgerLock.prepare(path, owner);
      renameSync(tmp, path);
      return new LedgerLock(path, owner, ino);
    } finally {
      // The lock is no longer the stale one's: these markers serve no one now.
      for (const m of markers) unlinkQuietly(m);
    }
  }

  /** Gives the lock up (once), if it is still this run's. */
  release(): void {
    // Stryker disable next-line ConditionalExpression,BlockStatement,BooleanLiteral: a second release finds nothing of its own to remove.
    if (this.released) return;
    // Stryker disable next-line BooleanLiteral: see above.
    this.released = true;
    clearInterval(this.timer);
    process.removeListener('exit', this.onExit);
    try {
      if (lstatSync(this.path).ino === this.ino) unlinkSync(this.path);
    } catch {
      // Gone already.
    }
  }
}

/** Whether a lock (or marker) is stale: its process is gone, or it did not change for a lease. */
class Judge {
  /** When each file was first seen as it is now (by its key), on this process's clock. */
  private readonly since = new Map<string, { key: string; at: number }>();
  private readonly leaseMs: number;
  private readonly now: () => number;
  private readonly alive: (pid: number) => boolean;

  constructor(options: LockOptions) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.now = options.now ?? (() => performance.now());
    this.alive = options.alive ?? processAlive;
  }

  stale(path: string, seen: Seen): boolean {
    const { owner } = seen;
    if (owner && owner.host === hostname() && !this.alive(owner.pid)) return true;
    const prior = this.since.get(path);
    if (prior?.key !== seen.key) {
      this.since.set(path, { key: seen.key, at: this.now() });
      return false;
    }
    return this.now() - prior.at >= this.leaseMs;
  }
}
