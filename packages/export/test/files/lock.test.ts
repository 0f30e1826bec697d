import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireExportLock,
  ExportLockedError,
  LOCK_FILE,
  LOCK_LEASE_MS,
} from '../../src/files/lock.js';
import { UnsafeFileError } from '../../src/files/safe-open.js';
import { claimOf, deadPid, LIVE_PID } from '../support/lock-files.js';
import { openFilesUnder } from '../support/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-lock-'));
});
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** This machine's boot id, as another rcs on it records it (undefined where there is none). */
async function ourBootId(): Promise<string | undefined> {
  const text = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
}

/** When the lock file's lease was last renewed, as another process sees it. */
async function leaseAgeMs(path: string): Promise<number> {
  return Date.now() - (await stat(path)).mtimeMs;
}

/**
 * This process's clock moved on by `ms` (the file system's stays): a lock renewed now is judged
 * as renewed `ms` ago. Only Date is faked; the lock's own timers stay real.
 */
function clockAhead(ms: number): void {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(now + ms);
}

describe('export lock', () => {
  it('refuses a second run on the same directory, naming the owner, until released', async () => {
    const lock = await acquireExportLock(dir);
    const error = await acquireExportLock(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportLockedError);
    expect((error as Error).message).toContain('another export of this process');
    expect((error as Error).message).toContain(dir);
    await lock.release();
    const again = await acquireExportLock(dir);
    await again.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over a stale lock whose process is gone, and removes its partial files', async () => {
    const pid = deadPid();
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    await writeFile(join(dir, `.users.jsonl.${pid}.abcd1234.partial`), 'half');
    await writeFile(join(dir, 'users.jsonl'), 'previous');
    const lock = await acquireExportLock(dir);
    expect((await readdir(dir)).sort()).toEqual([LOCK_FILE, 'users.jsonl'].sort());
    await lock.release();
  });

  it('a lock of another host is kept while its lease is fresh, and taken over once it expired', async () => {
    const path = join(dir, LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({
        pid: deadPid(),
        host: 'some-other-host',
        startedAt: '2026-01-01T00:00:00Z',
      }),
    );
    await expect(acquireExportLock(dir)).rejects.toThrow(
      /another rcs export is writing .*pid \d+ on some-other-host.*after 120 s without renewal from another host/,
    );
    // Not renewed for longer than the lease: its owner is gone.
    clockAhead(LOCK_LEASE_MS + 5_000);
    const lock = await acquireExportLock(dir);
    expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over at once a lock of this host whose pid is our own (PID 1 in a restarted container)', async () => {
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '2026-01-01T00:00:00Z' }),
    );
    const lock = await acquireExportLock(dir);
    await lock.release();
  });

  it('takes over at once a lock of this host from an earlier boot, whatever its pid', async () => {
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: 1, host: hostname(), bootId: 'an-earlier-boot', startedAt: '' }),
    );
    const boot = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined);
    if (boot === undefined) {
      // No boot id on this system: pid 1 is alive, so the lock is kept.
      await expect(acquireExportLock(dir)).rejects.toThrow(ExportLockedError);
      return;
    }
    const lock = await acquireExportLock(dir);
    await lock.release();
  });

  it('takes over at once a lock of this host and PID namespace whose pid is gone', async () => {
    const pidNs = await readlink('/proc/self/ns/pid').catch(() => undefined);
    if (pidNs === undefined) return;
    const bootId = await ourBootId();
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: deadPid(), host: hostname(), ...(bootId ? { bootId } : {}), pidNs }),
    );
    const lock = await acquireExportLock(dir);
    await lock.release();
  });

  it('a second export of the same process is refused, not a take-over', async () => {
    const lock = await acquireExportLock(dir);
    await expect(acquireExportLock(dir)).rejects.toThrow(/another export of this process/);
    await lock.release();
  });

  it('a run whose lease expired and was taken over finds out before committing, and leaves the new lock alone', async () => {
    const lock = await acquireExportLock(dir);
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: deadPid(), host: 'new-pod', token: 'theirs' }));
    await expect(lock.assertHeld()).rejects.toThrow(
      /another run \(pid \d+ on new-pod, started at an unknown time\) took it over/,
    );
    await lock.release();
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('theirs');
  });

  it('refuses a lock of this host whose owner is alive, naming it and how fresh its lease is', async () => {
    const path = join(dir, LOCK_FILE);
    const bootId = await ourBootId();
    await writeFile(
      path,
      JSON.stringify({
        pid: LIVE_PID,
        host: hostname(),
        ...(bootId ? { bootId } : {}),
        startedAt: '2026-01-01T00:00:00Z',
        token: 'theirs',
      }),
    );
    clockAhead(30_200);
    const error = await acquireExportLock(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExportLockedError);
    expect((error as Error).name).toBe('ExportLockedError');
    expect((error as Error).message).toMatch(
      new RegExp(
        `^another rcs export is writing to ${dir} \\(pid ${LIVE_PID} on ${hostname()}, started 2026-01-01T00:00:00Z, lease renewed 3[01] s ago\\); wait for it to finish\\. A lock whose owner is gone is taken over: at once on the same host, after 120 s without renewal from another host$`,
      ),
    );
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('theirs');
  });

  it.each([
    ['without a boot id (an older rcs)', {}],
    ['with a boot id that is not text', { bootId: 12345 }],
    ['without a start time', { startedAt: undefined }],
    ['with a start time that is not text', { startedAt: 20260101 }],
  ])('refuses a live owner of this host %s', async (_, fields) => {
    const path = join(dir, LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({
        pid: LIVE_PID,
        host: hostname(),
        startedAt: '2026-01-01T00:00:00Z',
        ...fields,
      }),
    );
    await expect(acquireExportLock(dir)).rejects.toThrow(
      `(pid ${LIVE_PID} on ${hostname()}, started ${'startedAt' in fields ? 'at an unknown time' : '2026-01-01T00:00:00Z'}, lease renewed`,
    );
  });

  it.each([
    ['half-written', '{"pid": 12'],
    ['without a pid', JSON.stringify({ host: hostname(), startedAt: '' })],
    [
      'with a pid that is not a number',
      JSON.stringify({ pid: String(LIVE_PID), host: hostname() }),
    ],
    ['without a host', JSON.stringify({ pid: LIVE_PID, startedAt: '' })],
  ])('a lock %s is judged by its lease alone', async (_, text) => {
    const path = join(dir, LOCK_FILE);
    await writeFile(path, text);
    await expect(acquireExportLock(dir)).rejects.toThrow(
      `another rcs export is writing to ${dir} (its owner could not be read); wait for it to finish`,
    );
    clockAhead(LOCK_LEASE_MS + 5_000);
    const lock = await acquireExportLock(dir);
    expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('a lease given for the run decides when another host takes over', async () => {
    const path = join(dir, LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({ pid: LIVE_PID, host: 'some-other-host', startedAt: '' }),
    );
    clockAhead(10_000);
    await expect(acquireExportLock(dir, { leaseMs: 60_000 })).rejects.toThrow(
      /lease renewed 10 s ago.*after 60 s without renewal from another host/,
    );
    const lock = await acquireExportLock(dir, { leaseMs: 5_000 });
    await lock.release();
  });

  it("a directory under the lock's name is refused as not a lock file, never taken over", async () => {
    const path = join(dir, LOCK_FILE);
    await mkdir(path);
    clockAhead(LOCK_LEASE_MS + 5_000);
    await expect(acquireExportLock(dir)).rejects.toThrow(
      `${path} is not a regular file (a FIFO, device or directory), refused; remove it`,
    );
    expect((await stat(path)).isDirectory()).toBe(true);
  });

  it('a directory that does not exist is an error of its own, not a lock held by another', async () => {
    const error = await acquireExportLock(join(dir, 'missing')).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ExportLockedError);
    expect(error).toMatchObject({ code: 'ENOENT' });
  });

  it('removes only the partial files rcs leaves (dot files), not a file of the user ending alike', async () => {
    await writeFile(join(dir, '.users.jsonl.123.abcd1234.partial'), 'half');
    await writeFile(join(dir, 'notes.partial'), 'mine');
    const lock = await acquireExportLock(dir);
    expect((await readdir(dir)).sort()).toEqual([LOCK_FILE, 'notes.partial'].sort());
    await lock.release();
  });

  it('releasing twice never frees the lock of a later run of this process', async () => {
    const first = await acquireExportLock(dir);
    await first.release();
    const second = await acquireExportLock(dir);
    await first.release();
    await expect(acquireExportLock(dir)).rejects.toThrow(/another export of this process/);
    await second.assertHeld();
    await second.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('renews its lease while it holds the lock, so that no other host takes it over', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lock = await acquireExportLock(dir);
    const path = join(dir, LOCK_FILE);
    // As the file looks after a long pause of the run: its lease expired.
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
    await vi.advanceTimersByTimeAsync(LOCK_LEASE_MS);
    await vi.waitFor(async () => expect(await leaseAgeMs(path)).toBeLessThan(LOCK_LEASE_MS));
    await lock.assertHeld();
    await lock.release();
  });

  it('renews its lease every eighth of it, again and again, not only once', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lock = await acquireExportLock(dir);
    const path = join(dir, LOCK_FILE);
    for (let i = 0; i < 3; i++) {
      const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
      await utimes(path, old, old);
      await vi.advanceTimersByTimeAsync(LOCK_LEASE_MS / 8);
      await vi.waitFor(async () => expect(await leaseAgeMs(path)).toBeLessThan(LOCK_LEASE_MS));
    }
    await lock.release();
  });

  it('stops renewing once released: a later lock in its place keeps its own lease', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lock = await acquireExportLock(dir);
    await lock.release();
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: LIVE_PID, host: 'new-pod', startedAt: '' }));
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
    // Nothing is left to renew it: a lease's worth of time later, no renewal ran or is due.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(LOCK_LEASE_MS);
    expect(await leaseAgeMs(path)).toBeGreaterThan(LOCK_LEASE_MS);
  });

  it('a run whose lock file was removed by someone finds out, and its release removes nothing', async () => {
    const lock = await acquireExportLock(dir);
    await rm(join(dir, LOCK_FILE));
    await expect(lock.assertHeld()).rejects.toThrow(
      `the export lock ${join(dir, LOCK_FILE)} is no longer this run's: another run took it over`,
    );
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves no file open while it holds the lock, nor once refused', async () => {
    const lock = await acquireExportLock(dir);
    const open = await openFilesUnder(dir);
    await lock.release();
    if (open !== undefined) expect(open).toEqual([]);
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: LIVE_PID, host: 'a-pod' }));
    await expect(acquireExportLock(dir)).rejects.toThrow(ExportLockedError);
    const after = await openFilesUnder(dir);
    if (after !== undefined) expect(after).toEqual([]);
  });

  it('a lock from another host whose clock is ahead (mtime in the future) is taken over once its lease passed', async () => {
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: 1, host: 'pod-ahead', startedAt: '' }));
    const ahead = new Date(Date.now() + 3_600_000);
    await utimes(path, ahead, ahead);
    await expect(acquireExportLock(dir)).rejects.toThrow(/pid 1 on pod-ahead.*renewed 0 s ago/);
    // One lease later on this host's clock, not an hour: its own clock is not ours.
    clockAhead(LOCK_LEASE_MS + 5_000);
    const lock = await acquireExportLock(dir);
    expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  describe('at the very instant a lease ends (a clock read to the fraction of a millisecond)', () => {
    /** This process's clock at `ms` after the file's ctime, exactly: `now - ctime === ms`. */
    const clockAt = async (file: string, ms: number) => {
      const now = (await stat(file)).ctimeMs + ms;
      vi.spyOn(Date, 'now').mockReturnValue(now);
      expect(Date.now() - (await stat(file)).ctimeMs).toBe(ms);
    };

    it('a lock is still held when its lease ends, taken over just after', async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(path, JSON.stringify({ pid: 1, host: 'edge-pod', startedAt: '' }));
      await clockAt(path, LOCK_LEASE_MS);
      await expect(acquireExportLock(dir)).rejects.toThrow(/pid 1 on edge-pod/);
      await clockAt(path, LOCK_LEASE_MS + 0.5);
      await (await acquireExportLock(dir)).release();
    });

    it('a renewal as far ahead as the tolerance (2 s) still counts as now: kept, not watched', async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(path, JSON.stringify({ pid: 1, host: 'edge-pod', startedAt: '' }));
      await clockAt(path, -2_000);
      // Watched, a lease of 2 s unchanged would be taken over.
      await expect(acquireExportLock(dir, { leaseMs: 2_000 })).rejects.toThrow(
        /pid 1 on edge-pod, started , lease renewed 0 s ago/,
      );
    });

    it("a taker's claim is still live when its lease ends", async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(path, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: 1, host: 'other-pod', startedAt: '' }));
      await clockAt(claim, LOCK_LEASE_MS);
      await expect(acquireExportLock(dir)).rejects.toThrow(/taking over .*pid 1 on other-pod/);
      await clockAt(claim, LOCK_LEASE_MS + 0.5);
      await (await acquireExportLock(dir)).release();
    });

    it('a side file is kept when a lease after it ends, removed just after', async () => {
      const side = join(dir, `${LOCK_FILE}.takeover-0123`);
      await writeFile(side, '');
      await clockAt(side, LOCK_LEASE_MS);
      await (await acquireExportLock(dir)).release();
      expect(await readdir(dir)).toEqual([basename(side)]);
      await clockAt(side, LOCK_LEASE_MS + 0.5);
      await (await acquireExportLock(dir)).release();
      expect(await readdir(dir)).toEqual([]);
    });
  });

  it('a lock is judged by the lease it promised, and records the lease it promises', async () => {
    const path = join(dir, LOCK_FILE);
    await writeFile(
      path,
      JSON.stringify({ pid: 1, host: 'short-lease-pod', startedAt: '', leaseMs: 10_000 }),
    );
    clockAhead(8_000);
    await expect(acquireExportLock(dir)).rejects.toThrow(
      /renewed 8 s ago.*after 10 s without renewal from another host/,
    );
    vi.setSystemTime(Date.now() + 3_000);
    const lock = await acquireExportLock(dir, { leaseMs: 30_000 });
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      leaseMs: 30_000,
    });
    await lock.release();
  });

  it.each([
    // A lease is judged as this rcs writes it: a planted lock of an hour blocks no longer.
    ['longer than ours (an hour)', 3_600_000],
    ['of no time', 0],
    ['negative', -5],
    ['given as text', '1'],
  ])('a promised lease %s is not believed: ours decides', async (_, leaseMs) => {
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: 1, host: 'odd-pod', startedAt: '', leaseMs }));
    clockAhead(LOCK_LEASE_MS - 5_000);
    await expect(acquireExportLock(dir)).rejects.toThrow(/after 120 s without renewal/);
    vi.setSystemTime(Date.now() + 10_000);
    const lock = await acquireExportLock(dir);
    await lock.release();
  });

  describe("a renewal ahead of this host's clock (a file server whose clock is ahead)", () => {
    const plant = async (leaseMs: number) => {
      const path = join(dir, LOCK_FILE);
      await writeFile(path, JSON.stringify({ pid: 1, host: 'nfs-pod', startedAt: '', leaseMs }));
      // This host's clock an hour behind the file system's.
      clockAhead(-3_600_000);
      return path;
    };

    it('is watched for one lease: not renewed, it is taken over', async () => {
      const path = await plant(300);
      const lock = await acquireExportLock(dir);
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
      await lock.release();
    });

    it('is watched for one lease: renewed meanwhile, it is kept', async () => {
      const path = await plant(1_000);
      const planted = (await stat(path)).ctimeMs;
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      let settled = false;
      const taking = acquireExportLock(dir).then(
        () => undefined,
        (error: unknown) => error,
      );
      void taking.finally(() => {
        settled = true;
      });
      // Watched for half its lease (10 looks of 50 ms), unchanged.
      for (let i = 0; i < 10; i++) {
        while (vi.getTimerCount() === 0) await new Promise((done) => setImmediate(done));
        await vi.advanceTimersByTimeAsync(50);
      }
      expect(settled).toBe(false);
      // Then its owner renews it: the file system's clock moves its ctime (which can take a
      // tick of that clock after the file was written).
      while ((await stat(path)).ctimeMs === planted) {
        const now = new Date();
        await utimes(path, now, now);
      }
      while (!settled) {
        while (vi.getTimerCount() === 0 && !settled) {
          await new Promise((done) => setImmediate(done));
        }
        await vi.advanceTimersByTimeAsync(50);
      }
      expect(await taking).toBeInstanceOf(ExportLockedError);
      expect(String(await taking)).toMatch(/another rcs export is writing .*pid 1 on nfs-pod/);
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(1);
    });

    it('is watched for one lease: removed meanwhile, the lock is free', async () => {
      const path = await plant(60_000);
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      const taking = acquireExportLock(dir);
      // Watching: its first look is a timer away.
      while (vi.getTimerCount() === 0) await new Promise((done) => setImmediate(done));
      await rm(path);
      await vi.advanceTimersByTimeAsync(1_000);
      const lock = await taking;
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
      await lock.release();
    });

    it('is watched for one lease: removed meanwhile, the lock is free, though a live taker still claims the version that went', async () => {
      const path = await plant(60_000);
      // Another run judged that version stale (its clock differs) and has not yet seen it go.
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: '' }));
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      const taking = acquireExportLock(dir);
      while (vi.getTimerCount() === 0) await new Promise((done) => setImmediate(done));
      await rm(path);
      await vi.advanceTimersByTimeAsync(1_000);
      const lock = await taking;
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
      await lock.release();
    });

    it('is watched for one lease: not renewed, but a live process is taking it over: refused, saying why its owner is gone', async () => {
      const path = await plant(2_000);
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: 'now' }));
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      let settled = false;
      const taking = acquireExportLock(dir).then(
        () => undefined,
        (error: unknown) => error,
      );
      void taking.finally(() => {
        settled = true;
      });
      while (!settled) {
        while (vi.getTimerCount() === 0 && !settled) {
          await new Promise((done) => setImmediate(done));
        }
        await vi.advanceTimersByTimeAsync(100);
      }
      expect(await taking).toBeInstanceOf(ExportLockedError);
      expect(((await taking) as Error).message).toBe(
        `another rcs export is taking over the lock of ${dir} (pid ${LIVE_PID} on ${hostname()}, started now), whose owner is gone (it was not renewed during its lease of 2 s); wait for it to finish`,
      );
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(1);
    });

    it('is watched for exactly its lease, no longer', async () => {
      const path = await plant(1_000);
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      let settled = false;
      const taking = acquireExportLock(dir).finally(() => {
        settled = true;
      });
      while (vi.getTimerCount() === 0) await new Promise((done) => setImmediate(done));
      // 19 looks of 50 ms: not yet a whole lease.
      for (let i = 0; i < 19; i++) {
        await vi.advanceTimersByTimeAsync(50);
        while (vi.getTimerCount() === 0 && !settled) {
          await new Promise((done) => setImmediate(done));
        }
      }
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(50);
      const lock = await taking;
      expect(JSON.parse(await readFile(path, 'utf8')).pid).toBe(process.pid);
      await lock.release();
    });

    it('is looked at every twentieth of its lease: a removal is seen at the next look, not before', async () => {
      const path = await plant(2_000);
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout'], now: Date.now() });
      const state = { settled: false };
      const taking = acquireExportLock(dir).finally(() => {
        state.settled = true;
      });
      const pausedOrSettled = async () => {
        while (vi.getTimerCount() === 0 && !state.settled) {
          await new Promise((done) => setImmediate(done));
        }
      };
      await pausedOrSettled();
      await rm(path);
      await vi.advanceTimersByTimeAsync(99);
      await pausedOrSettled();
      expect(state.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await pausedOrSettled();
      expect(state.settled).toBe(true);
      await (await taking).release();
    });

    it('a renewal a little ahead (clocks a second apart) counts as now: kept, not watched', async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(path, JSON.stringify({ pid: 1, host: 'near-pod', startedAt: '' }));
      clockAhead(-1_500);
      await expect(acquireExportLock(dir)).rejects.toThrow(/pid 1 on near-pod/);
    });
  });

  describe('taking over a stale lock: exactly one taker replaces it', () => {
    const plantStale = async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(
        path,
        JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '', token: 'dead' }),
      );
      return path;
    };

    it('a live process already taking it over wins: refused, naming it', async () => {
      const path = await plantStale();
      const claim = await claimOf(path);
      await writeFile(
        claim,
        JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: 'just now' }),
      );
      await expect(acquireExportLock(dir)).rejects.toThrow(
        `another rcs export is taking over the lock of ${dir} (pid ${LIVE_PID} on ${hostname()}, started just now), whose owner is gone (pid `,
      );
      expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('dead');
      expect(await readFile(claim, 'utf8')).toContain(String(LIVE_PID));
    });

    it('a taker of another host whose claim is fresh wins; once its claim is stale, it is passed over', async () => {
      const path = await plantStale();
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: 1, host: 'other-pod', startedAt: '' }));
      await expect(acquireExportLock(dir)).rejects.toThrow(/taking over .*pid 1 on other-pod/);
      clockAhead(LOCK_LEASE_MS + 5_000);
      const lock = await acquireExportLock(dir);
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
      await lock.release();
    });

    it('a taker that died mid-takeover (its claim, and a claim of its claim, left behind) never blocks it', async () => {
      const path = await plantStale();
      const first = await claimOf(path);
      await writeFile(first, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
      const second = await claimOf(path, first);
      await writeFile(second, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
      const lock = await acquireExportLock(dir);
      const owner = JSON.parse(await readFile(path, 'utf8'));
      expect(owner.pid).toBe(process.pid);
      expect(owner.token).not.toBe('dead');
      // The claims passed over are gone with the takeover.
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
      await lock.release();
    });

    it('a claim left unreadable (killed before it was written) is judged by its lease', async () => {
      const path = await plantStale();
      await writeFile(await claimOf(path), '');
      await expect(acquireExportLock(dir)).rejects.toThrow(
        /taking over the lock of .* \(its owner could not be read\), whose owner is gone \(pid \d+ is no longer running\)/,
      );
      clockAhead(LOCK_LEASE_MS + 5_000);
      const lock = await acquireExportLock(dir);
      await lock.release();
    });

    it('losing to a live taker further up the chain leaves the dead claims below it in place', async () => {
      const path = await plantStale();
      const first = await claimOf(path);
      await writeFile(first, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
      const second = await claimOf(path, first);
      await writeFile(second, JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: '' }));
      await expect(acquireExportLock(dir)).rejects.toThrow(`(pid ${LIVE_PID} on ${hostname()}`);
      // Removed, the first could be claimed anew, and two takers would each hold a claim.
      expect((await readdir(dir)).sort()).toEqual(
        [LOCK_FILE, basename(first), basename(second)].sort(),
      );
    });

    it('a chain of claims longer than any crash leaves is not followed for ever', async () => {
      const path = await plantStale();
      let of = path;
      for (let i = 0; i < 8; i++) {
        const claim = await claimOf(path, of);
        await writeFile(claim, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
        of = claim;
      }
      await expect(acquireExportLock(dir)).rejects.toThrow(
        `could not take the export lock ${path}; try again`,
      );
      expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('dead');
    });

    it('a lock whose lease expired, with a live taker: refused naming both', async () => {
      const path = join(dir, LOCK_FILE);
      await writeFile(
        path,
        JSON.stringify({ pid: 1, host: 'gone-pod', startedAt: '', leaseMs: 1_000 }),
      );
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: LIVE_PID, host: hostname(), startedAt: 'now' }));
      clockAhead(5_000);
      await expect(acquireExportLock(dir)).rejects.toThrow(
        `another rcs export is taking over the lock of ${dir} (pid ${LIVE_PID} on ${hostname()}, started now), whose owner is gone (its lease of 1 s expired); wait for it to finish`,
      );
    });

    it('a claim for a version of the lock that is gone meanwhile replaces nothing', async () => {
      const path = await plantStale();
      const claim = await claimOf(path);
      await writeFile(claim, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '' }));
      // A taker finished with that version: the lock now belongs to a live process.
      await writeFile(path, JSON.stringify({ pid: LIVE_PID, host: 'new-pod', startedAt: '' }));
      await expect(acquireExportLock(dir)).rejects.toThrow(
        /another rcs export is writing .*new-pod/,
      );
    });

    it('takes over with a complete lock file, and leaves no side file', async () => {
      const path = await plantStale();
      const before = await stat(path);
      const lock = await acquireExportLock(dir);
      const after = await stat(path);
      expect(after.ino).not.toBe(before.ino);
      expect(after.mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
        pid: process.pid,
        host: hostname(),
        leaseMs: LOCK_LEASE_MS,
      });
      expect(await readdir(dir)).toEqual([LOCK_FILE]);
      await lock.assertHeld();
      await lock.release();
    });

    it('side files of takeovers are removed once the lock is held, when older than a lease', async () => {
      const sides = [`${LOCK_FILE}.takeover-0123`, `${LOCK_FILE}.abcdef.new`];
      for (const side of sides) await writeFile(join(dir, side), '');
      await writeFile(join(dir, '.rcs-export.locksmith'), 'a user file');
      // Just made: another taker that lost a race may still be using them.
      const lock = await acquireExportLock(dir);
      expect((await readdir(dir)).sort()).toEqual(
        [...sides, '.rcs-export.locksmith', LOCK_FILE].sort(),
      );
      await lock.release();
      // A lease later: their takers are surely gone.
      clockAhead(LOCK_LEASE_MS + 5_000);
      const later = await acquireExportLock(dir);
      expect((await readdir(dir)).sort()).toEqual(['.rcs-export.locksmith', LOCK_FILE].sort());
      await later.release();
    });
  });

  it('a run whose lock another run took over is told who holds it now', async () => {
    const lock = await acquireExportLock(dir);
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: 4242, host: 'new-pod', startedAt: 'later', token: 'theirs' }),
    );
    await expect(lock.assertHeld()).rejects.toThrow(
      `the export lock ${join(dir, LOCK_FILE)} is no longer this run's: another run (pid 4242 on new-pod, started later) took it over, judging this run gone (its lease not renewed for 120 s), or the lock file was removed; this run stops, replacing and recording nothing more`,
    );
    await lock.release();
  });

  it('two runs of one process started together: one holds the lock, the other is refused', async () => {
    const results = await Promise.allSettled([acquireExportLock(dir), acquireExportLock(dir)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const held = results.find((r) => r.status === 'fulfilled')!;
    await (
      held as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireExportLock>>>
    ).value.release();
  });

  describe("a link planted under the lock's name", () => {
    it('is refused with a clear error, and what it points to is left alone', async () => {
      const victim = join(dir, 'victim.txt');
      await writeFile(victim, 'precious');
      const old = new Date(Date.now() - 3_600_000);
      await utimes(victim, old, old);
      await symlink(victim, join(dir, LOCK_FILE));
      const error = await acquireExportLock(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsafeFileError);
      expect((error as Error).message).toBe(
        `${join(dir, LOCK_FILE)} is a symbolic link, refused: rcs never reads or writes its own files through a link (in a directory others can write to, it may have been planted to make rcs write to another file); remove the link, and keep rcs's files in a directory only you can write to`,
      );
      expect(error).toMatchObject({ code: 'ELOOP', path: join(dir, LOCK_FILE) });
      expect(await readFile(victim, 'utf8')).toBe('precious');
      expect((await stat(victim)).mtimeMs).toBe(old.getTime());
      // A second try is refused alike (the same process may try again).
      await expect(acquireExportLock(dir)).rejects.toThrow(UnsafeFileError);
    });

    it('a dangling link is refused too, and nothing is created where it points', async () => {
      const target = join(dir, 'created-through-the-link');
      await symlink(target, join(dir, LOCK_FILE));
      await expect(acquireExportLock(dir)).rejects.toThrow(/is a symbolic link, refused/);
      await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('renewals touch the lock itself, never a file a link points to', async () => {
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      const lock = await acquireExportLock(dir);
      const path = join(dir, LOCK_FILE);
      const victim = join(dir, 'victim.txt');
      await writeFile(victim, 'precious');
      const old = new Date(Date.now() - 3_600_000);
      await utimes(victim, old, old);
      await rm(path);
      await symlink(victim, path);
      await vi.advanceTimersByTimeAsync(LOCK_LEASE_MS);
      await vi.waitFor(async () => {
        const link = await import('node:fs/promises').then((fs) => fs.lstat(path));
        expect(link.mtimeMs).toBeGreaterThan(old.getTime());
      });
      expect((await stat(victim)).mtimeMs).toBe(old.getTime());
      await expect(lock.assertHeld()).rejects.toThrow(/is no longer this run's/);
      await lock.release();
      expect(await readFile(victim, 'utf8')).toBe('precious');
    });
  });
});
