import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LEASE_MS, LedgerLock, type LockOwner } from '../../../src/upload/ledger-lock.js';

const ledgerIn = () => join(mkdtempSync(join(tmpdir(), 'ledger-lock-')), '.rcs-ledger.jsonl');
const owner = (o: Partial<LockOwner> = {}): LockOwner => ({
  pid: 4242,
  host: hostname(),
  run: `run-${Math.random().toString(36).slice(2)}`,
  since: '2026-01-01T00:00:00.000Z',
  ...o,
});
const plant = (path: string, o: LockOwner | string) =>
  writeFileSync(path, typeof o === 'string' ? o : JSON.stringify(o));
const lockOf = (ledger: string) => JSON.parse(readFileSync(`${ledger}.lock`, 'utf8')) as LockOwner;
/** A clock the test moves: each reading is `step` ms after the last. */
const ticking = (step: number) => {
  let t = 0;
  return () => {
    t += step;
    return t;
  };
};

afterEach(() => {
  vi.useRealTimers();
});

describe('LedgerLock', () => {
  it('is taken and given back: the lock names this process; nothing is left behind', async () => {
    const ledger = ledgerIn();
    const exits = process.listenerCount('exit');
    const lock = await LedgerLock.acquire(ledger);
    expect(lockOf(ledger)).toEqual(lock.owner);
    expect(lock.owner).toMatchObject({ pid: process.pid, host: hostname() });
    expect(process.listenerCount('exit')).toBe(exits + 1);
    lock.release();
    lock.release();
    expect(process.listenerCount('exit')).toBe(exits);
    expect(readdirSync(join(ledger, '..'))).toEqual([]);
  });

  it('a second run waits while the first holds it, then takes it', async () => {
    const ledger = ledgerIn();
    const first = await LedgerLock.acquire(ledger);
    let waitedFor: LockOwner | undefined;
    const waiting = new Promise<void>((resolve) => {
      const second = LedgerLock.acquire(ledger, {
        pollMs: 1,
        onWait: (holder) => {
          waitedFor = holder;
          resolve();
        },
      });
      void second.then((l) => {
        expect(lockOf(ledger).run).toBe(l.owner.run);
        l.release();
        done();
      });
    });
    let done!: () => void;
    const finished = new Promise<void>((r) => {
      done = r;
    });
    await waiting;
    expect(waitedFor).toEqual(first.owner);
    first.release();
    await finished;
    expect(readdirSync(join(ledger, '..'))).toEqual([]);
  });

  it('the lock of a process that is gone (same host) is taken over at once', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    plant(`${ledger}.lock`, dead);
    const stale: (LockOwner | undefined)[] = [];
    const onWait = vi.fn();
    const lock = await LedgerLock.acquire(ledger, {
      alive: (pid) => pid !== dead.pid,
      onTakeover: (s) => stale.push(s),
      onWait,
    });
    expect(stale).toEqual([dead]);
    expect(onWait).not.toHaveBeenCalled();
    expect(lockOf(ledger).run).toBe(lock.owner.run);
    lock.release();
    expect(readdirSync(join(ledger, '..'))).toEqual([]);
  });

  it('whether a holder of this host is gone is asked of the system (a pid that exited)', async () => {
    const ledger = ledgerIn();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const dead = owner({ pid: gone });
    plant(`${ledger}.lock`, dead);
    const stale: (LockOwner | undefined)[] = [];
    const lock = await LedgerLock.acquire(ledger, { onTakeover: (s) => stale.push(s) });
    expect(stale).toEqual([dead]);
    lock.release();
  });

  it('a live holder of this host is waited for, however old its lock', async () => {
    const ledger = ledgerIn();
    const live = owner({ pid: process.pid });
    plant(`${ledger}.lock`, live);
    const stop = new AbortController();
    const takeover = vi.fn();
    const pending = LedgerLock.acquire(ledger, {
      pollMs: 1,
      leaseMs: 10,
      // Heartbeats: the lock changes between two looks, so its lease never runs out.
      now: ((clock) => () => {
        const t = clock();
        utimesSync(`${ledger}.lock`, t / 1000 + 1, t / 1000 + 1);
        if (t > 200) stop.abort(new Error('enough'));
        return t;
      })(ticking(5)),
      signal: stop.signal,
      onTakeover: takeover,
    });
    await expect(pending).rejects.toThrow('enough');
    expect(takeover).not.toHaveBeenCalled();
    expect(lockOf(ledger)).toEqual(live);
  });

  it("another host's lock is judged by its lease on this process's clock, not by its time", async () => {
    const ledger = ledgerIn();
    const far = owner({ host: 'elsewhere.example' });
    plant(`${ledger}.lock`, far);
    // Its modification time is in the future (a clock set ahead): no matter.
    utimesSync(`${ledger}.lock`, 4_102_444_800, 4_102_444_800);
    const now = ticking(LEASE_MS / 4);
    const onWait = vi.fn();
    const stale: (LockOwner | undefined)[] = [];
    const lock = await LedgerLock.acquire(ledger, {
      pollMs: 1,
      now,
      onWait,
      alive: () => false, // another host's pid says nothing here
      onTakeover: (s) => stale.push(s),
    });
    expect(onWait).toHaveBeenCalledTimes(1);
    expect(onWait).toHaveBeenCalledWith(far);
    expect(stale).toEqual([far]);
    // Unchanged for a whole lease: readings at 1/4, 2/4, 3/4, 4/4 and 5/4 of it.
    expect(now()).toBe((LEASE_MS / 4) * 6);
    lock.release();
  });

  it('just short of its lease, a silent lock is still waited for', async () => {
    const ledger = ledgerIn();
    plant(`${ledger}.lock`, owner({ host: 'elsewhere.example' }));
    const stop = new AbortController();
    let readings = 0;
    const pending = LedgerLock.acquire(ledger, {
      pollMs: 1,
      leaseMs: 100,
      now: () => {
        readings++;
        if (readings === 3) stop.abort(new Error('stopped'));
        return readings === 1 ? 0 : 99;
      },
      signal: stop.signal,
    });
    await expect(pending).rejects.toThrow('stopped');
    expect(existsSync(`${ledger}.lock`)).toBe(true);
  });

  it('an unreadable lock (not ours, or cut) is taken over after its lease', async () => {
    const ledger = ledgerIn();
    plant(`${ledger}.lock`, '{"pid":');
    const stale: (LockOwner | undefined)[] = [];
    const onWait = vi.fn();
    const lock = await LedgerLock.acquire(ledger, {
      pollMs: 1,
      leaseMs: 10,
      now: ticking(6),
      onWait,
      onTakeover: (s) => stale.push(s),
    });
    expect(onWait).toHaveBeenCalledWith(undefined);
    expect(stale).toEqual([undefined]);
    expect(lockOf(ledger).run).toBe(lock.owner.run);
    lock.release();
    expect(readdirSync(join(ledger, '..'))).toEqual([]);
  });

  it('a lock with fields missing or mistyped is unreadable too', async () => {
    for (const bad of [
      { pid: '1', host: 'h', run: 'r', since: 's' },
      { pid: 1, host: 2, run: 'r', since: 's' },
      { pid: 1, host: 'h', run: 3, since: 's' },
      { pid: 1, host: 'h', run: 'r', since: 4 },
      { pid: 1, host: hostname(), run: 'r' },
    ]) {
      const ledger = ledgerIn();
      plant(`${ledger}.lock`, JSON.stringify(bad));
      const seen: (LockOwner | undefined)[] = [];
      const lock = await LedgerLock.acquire(ledger, {
        pollMs: 1,
        leaseMs: 10,
        now: ticking(6),
        alive: () => false,
        onWait: (h) => seen.push(h),
      });
      expect(seen, JSON.stringify(bad)).toEqual([undefined]);
      lock.release();
    }
  });

  it('while another process takes a stale lock over, this one waits (one taker only)', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    plant(`${ledger}.lock`, dead);
    const taker = owner({ pid: process.pid });
    plant(`${ledger}.lock.takeover-${dead.run}`, taker);
    const stop = new AbortController();
    const pending = LedgerLock.acquire(ledger, {
      pollMs: 1,
      alive: (pid) => pid !== dead.pid,
      signal: stop.signal,
      onWait: () => stop.abort(new Error('waiting')),
    });
    await expect(pending).rejects.toThrow('waiting');
    expect(lockOf(ledger)).toEqual(dead);
    expect(existsSync(`${ledger}.lock.takeover-${dead.run}`)).toBe(true);
  });

  it('a taker killed mid-way is taken over in turn; its marker is cleared', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    const deadTaker = owner({ pid: 999_998 });
    plant(`${ledger}.lock`, dead);
    plant(`${ledger}.lock.takeover-${dead.run}`, deadTaker);
    const lock = await LedgerLock.acquire(ledger, { alive: (pid) => pid < 999_000 });
    expect(lockOf(ledger).run).toBe(lock.owner.run);
    lock.release();
    expect(readdirSync(join(ledger, '..'))).toEqual([]);
  });

  it('a link planted as a takeover marker is refused, never followed', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    plant(`${ledger}.lock`, dead);
    const victim = join(ledger, '..', 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, `${ledger}.lock.takeover-${dead.run}`);
    await expect(
      LedgerLock.acquire(ledger, { pollMs: 1, alive: (pid) => pid !== dead.pid }),
    ).rejects.toThrow('is a symbolic link');
    expect(lockOf(ledger)).toEqual(dead);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('a stale lock replaced by a live one meanwhile is not taken over', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    const fresh = owner({ pid: process.pid });
    plant(`${ledger}.lock`, dead);
    const stop = new AbortController();
    const takeover = vi.fn();
    const pending = LedgerLock.acquire(ledger, {
      pollMs: 1,
      alive: (pid) => {
        if (pid === dead.pid) {
          // Judged dead; before the takeover looks again, another process took it.
          plant(`${ledger}.lock`, fresh);
          return false;
        }
        return true;
      },
      signal: stop.signal,
      onTakeover: takeover,
      onWait: () => stop.abort(new Error('waiting')),
    });
    await expect(pending).rejects.toThrow('waiting');
    expect(takeover).not.toHaveBeenCalled();
    expect(lockOf(ledger)).toEqual(fresh);
    expect(readdirSync(join(ledger, '..')).sort()).toEqual(['.rcs-ledger.jsonl.lock']);
  });

  it('a stale lock given up meanwhile is not taken over: the lock is taken afresh', async () => {
    const ledger = ledgerIn();
    const dead = owner({ pid: 999_999 });
    plant(`${ledger}.lock`, dead);
    const takeover = vi.fn();
    const lock = await LedgerLock.acquire(ledger, {
      pollMs: 1,
      alive: (pid) => {
        // Judged dead; before the takeover looks again, its lock is gone.
        if (pid === dead.pid) unlinkSync(`${ledger}.lock`);
        return pid !== dead.pid;
      },
      onTakeover: takeover,
    });
    expect(takeover).not.toHaveBeenCalled();
    expect(lockOf(ledger).run).toBe(lock.owner.run);
    lock.release();
  });

  it('the lease is measured on the monotonic clock by default', async () => {
    const ledger = ledgerIn();
    plant(`${ledger}.lock`, 'not a lock');
    const lock = await LedgerLock.acquire(ledger, { pollMs: 1, leaseMs: 0 });
    expect(lockOf(ledger).run).toBe(lock.owner.run);
    lock.release();
  });

  it('a link planted as the lock is refused, never followed', async () => {
    const ledger = ledgerIn();
    const victim = join(ledger, '..', 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, `${ledger}.lock`);
    await expect(LedgerLock.acquire(ledger)).rejects.toThrow('is a symbolic link');
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('release leaves alone a lock that is no longer this run`s', async () => {
    const ledger = ledgerIn();
    const lock = await LedgerLock.acquire(ledger);
    const other = owner();
    plant(`${ledger}.lock.new`, other);
    const { renameSync } = await import('node:fs');
    renameSync(`${ledger}.lock.new`, `${ledger}.lock`);
    lock.release();
    expect(lockOf(ledger)).toEqual(other);
  });

  it('an abort before the first try throws at once', async () => {
    const ledger = ledgerIn();
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(LedgerLock.acquire(ledger, { signal: stop.signal })).rejects.toThrow('stopped');
    expect(existsSync(`${ledger}.lock`)).toBe(false);
  });

  it('the holder touches its lock while it holds it (the heartbeat)', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T00:00:00Z') });
    const ledger = ledgerIn();
    const lock = await LedgerLock.acquire(ledger);
    const before = statSync(`${ledger}.lock`).mtimeMs;
    vi.setSystemTime(new Date('2026-03-01T01:00:00Z'));
    vi.advanceTimersByTime(2_000);
    const after = statSync(`${ledger}.lock`).mtimeMs;
    expect(after).not.toBe(before);
    expect(after).toBe(Date.parse('2026-03-01T01:00:02Z'));
    // A lock that is no longer this run's (taken over) is left as it is.
    plant(`${ledger}.lock.other`, owner());
    const { renameSync } = await import('node:fs');
    renameSync(`${ledger}.lock.other`, `${ledger}.lock`);
    const theirs = statSync(`${ledger}.lock`).mtimeMs;
    vi.setSystemTime(new Date('2026-03-01T02:00:00Z'));
    vi.advanceTimersByTime(2_000);
    expect(statSync(`${ledger}.lock`).mtimeMs).toBe(theirs);
    lock.release();
    // Released: the heartbeat is gone with it.
    expect(vi.getTimerCount()).toBe(0);
    expect(existsSync(`${ledger}.lock`)).toBe(true);
    unlinkSync(`${ledger}.lock`);
    vi.advanceTimersByTime(10_000);
    expect(existsSync(`${ledger}.lock`)).toBe(false);
  });
});
