/**
 * The lock taken with `wait` (the upload ledger's, `<ledger>.lock`: D28 across processes): a run
 * waits for a live holder instead of refusing, takes the lock over from one that is gone, judges a
 * lease on its own monotonic clock only, and stops waiting when its signal aborts.
 */

import { getEventListeners } from 'node:events';
import {
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acquireLock, type FileLock, type LockOwner } from '../../src/files/lock.js';
import { claimOf, deadPid, LIVE_PID } from '../support/lock-files.js';

/** A short lease (the ledger's is 20 s): the same judgement, in fewer looks. */
const LEASE_MS = 2_000;
/** How long a waiting run pauses between two looks at the lock. */
const POLL_MS = 100;

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-lock-wait-'));
  path = join(dir, '.rcs-ledger.jsonl.lock');
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

const plant = (owner: Partial<LockOwner> | string, at = path) =>
  writeFile(at, typeof owner === 'string' ? owner : JSON.stringify(owner));
const lockFile = async () => JSON.parse(await readFile(path, 'utf8')) as LockOwner;
const waitFor = (options: Parameters<typeof acquireLock>[1] = {}) =>
  acquireLock(path, { leaseMs: LEASE_MS, wait: true, ...options });

/**
 * Fake time for the waiting run's pauses and its monotonic clock (`performance`); `Date` and the
 * file system's clock stay real unless a test moves Date too.
 */
function fakeTime(...more: 'Date'[]): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', ...more] });
}

/** A pending acquire, and whether it has settled yet. */
function pending(taking: Promise<FileLock>) {
  const state = { settled: false, taking };
  void taking.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

/** Turns the event loop until the waiting run pauses again (true) or has settled (false). */
async function pausedAgain(state: { settled: boolean }): Promise<boolean> {
  while (vi.getTimerCount() === 0 && !state.settled) {
    await new Promise((done) => setImmediate(done));
  }
  return !state.settled;
}

/** Moves fake time on by `ms`, one pause of the waiting run at a time (it looks in between). */
async function passTime(ms: number, state: { settled: boolean }): Promise<void> {
  for (let t = 0; t < ms && !state.settled; t += POLL_MS) {
    while (vi.getTimerCount() === 0 && !state.settled) {
      await new Promise((done) => setImmediate(done));
    }
    await vi.advanceTimersByTimeAsync(POLL_MS);
  }
}

describe('a lock taken with wait', () => {
  it('lies at the path given, names this process, and leaves nothing behind', async () => {
    const lock = await waitFor();
    expect(lock.path).toBe(path);
    expect(await lockFile()).toMatchObject({
      pid: process.pid,
      host: hostname(),
      leaseMs: LEASE_MS,
    });
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a second run waits while another process holds it, then takes it once released', async () => {
    const holder = { pid: LIVE_PID, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' };
    await plant(holder);
    const waited: (LockOwner | undefined)[] = [];
    let started!: () => void;
    const waiting = new Promise<void>((done) => {
      started = done;
    });
    const taking = waitFor({
      onWait: (h) => {
        waited.push(h);
        started();
      },
    });
    await waiting;
    expect(waited).toEqual([holder]);
    expect(await lockFile()).toEqual(holder);
    // The holder is done: its lock goes.
    await rm(path);
    const lock = await taking;
    expect((await lockFile()).pid).toBe(process.pid);
    expect(waited).toHaveLength(1);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a second run of the same process waits for the first, then takes it', async () => {
    const first = await waitFor();
    const held = await lockFile();
    let started!: (holder: LockOwner | undefined) => void;
    const waiting = new Promise<LockOwner | undefined>((done) => {
      started = done;
    });
    const taking = waitFor({ onWait: (h) => started(h) });
    expect(await waiting).toEqual(held);
    await first.release();
    const second = await taking;
    expect((await lockFile()).token).not.toBe(held.token);
    await second.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('the lock of a process of this host that is gone is taken over at once, saying whose', async () => {
    const dead = { pid: deadPid(), host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' };
    await plant(dead);
    const onWait = vi.fn();
    const onTakeover = vi.fn();
    const lock = await waitFor({ onWait, onTakeover });
    expect(onTakeover.mock.calls).toEqual([[dead, `pid ${dead.pid} is no longer running`]]);
    expect(onWait).not.toHaveBeenCalled();
    expect((await lockFile()).pid).toBe(process.pid);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("a pid of another PID namespace (a second container of a pod) is not judged: the lock's lease is", async () => {
    const other = { pid: deadPid(), host: hostname(), startedAt: '', pidNs: 'pid:[1]' };
    await plant(other);
    fakeTime();
    const onWait = vi.fn();
    const onTakeover = vi.fn();
    const state = pending(waitFor({ onWait, onTakeover }));
    await passTime(LEASE_MS - POLL_MS, state);
    expect(await pausedAgain(state)).toBe(true);
    expect(onWait).toHaveBeenCalledWith(other);
    await passTime(2 * POLL_MS, state);
    const lock = await state.taking;
    expect(onTakeover.mock.calls).toEqual([[other, 'it did not change for its lease of 2 s']]);
    expect(await lockFile()).toMatchObject({
      pid: process.pid,
      pidNs: expect.stringMatching(/^pid:\[\d+\]$/),
    });
    await lock.release();
  });

  it('a lease promised longer than ours is judged as ours (a planted lock of an hour)', async () => {
    const planted = { pid: LIVE_PID, host: hostname(), startedAt: '', leaseMs: 3_600_000 };
    await plant(planted);
    fakeTime();
    const onTakeover = vi.fn();
    const state = pending(waitFor({ onTakeover }));
    await passTime(LEASE_MS + POLL_MS, state);
    const lock = await state.taking;
    expect(onTakeover.mock.calls).toEqual([[planted, 'it did not change for its lease of 2 s']]);
    await lock.release();
  });

  it('a live holder that renews its lock is waited for, however long', async () => {
    const live = { pid: LIVE_PID, host: 'elsewhere.example', startedAt: '' };
    await plant(live);
    fakeTime();
    const stop = new AbortController();
    const onTakeover = vi.fn();
    const state = pending(waitFor({ signal: stop.signal, onTakeover }));
    for (let i = 0; i < 10; i++) {
      await passTime(LEASE_MS / 2, state);
      // Its owner renews it: the file system moves its ctime.
      const before = (await stat(path)).ctimeMs;
      while ((await stat(path)).ctimeMs === before) {
        const now = new Date();
        await utimes(path, now, now);
      }
    }
    expect(state.settled).toBe(false);
    stop.abort(new Error('enough'));
    await expect(state.taking).rejects.toThrow('enough');
    expect(onTakeover).not.toHaveBeenCalled();
    expect(await lockFile()).toEqual(live);
  });

  describe("another host's lock is judged by its lease on this process's clock, never by a time", () => {
    it('its modification time in the future (its clock ahead) decides nothing', async () => {
      const far = { pid: 1, host: 'elsewhere.example', startedAt: '' };
      await plant(far);
      const future = new Date('2100-01-01T00:00:00Z');
      await utimes(path, future, future);
      fakeTime();
      const onWait = vi.fn();
      const onTakeover = vi.fn();
      const state = pending(waitFor({ onWait, onTakeover }));
      await passTime(LEASE_MS - POLL_MS, state);
      // One look short of its lease, a silent lock is still waited for.
      expect(await pausedAgain(state)).toBe(true);
      expect(onWait).toHaveBeenCalledTimes(1);
      expect(onWait).toHaveBeenCalledWith(far);
      // The look a whole lease after the first: taken over, not one look later.
      await passTime(POLL_MS, state);
      expect(await pausedAgain(state)).toBe(false);
      const lock = await state.taking;
      expect(onTakeover.mock.calls).toEqual([[far, 'it did not change for its lease of 2 s']]);
      expect((await lockFile()).pid).toBe(process.pid);
      await lock.release();
    });

    it("a lock that looks an hour old by this host's clock still gets its whole lease", async () => {
      await plant({ pid: 1, host: 'elsewhere.example', startedAt: '' });
      // This host's clock an hour ahead of the file system's (or the file server an hour behind).
      const now = Date.now();
      fakeTime('Date');
      vi.setSystemTime(now + 3_600_000);
      const state = pending(waitFor());
      await passTime(LEASE_MS - 2 * POLL_MS, state);
      expect(state.settled).toBe(false);
      await passTime(LEASE_MS, state);
      const lock = await state.taking;
      expect((await lockFile()).pid).toBe(process.pid);
      await lock.release();
    });
  });

  it('an unreadable lock (not a lock, or cut) is waited for, then taken over after its lease', async () => {
    await plant('{"pid":');
    fakeTime();
    const onWait = vi.fn();
    const onTakeover = vi.fn();
    const state = pending(waitFor({ onWait, onTakeover }));
    await passTime(2 * LEASE_MS, state);
    const lock = await state.taking;
    expect(onWait).toHaveBeenCalledWith(undefined);
    expect(onTakeover).toHaveBeenCalledWith(undefined, 'it did not change for its lease of 2 s');
    expect((await lockFile()).pid).toBe(process.pid);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('while a live process takes a stale lock over, this one waits (one taker only)', async () => {
    const dead = { pid: deadPid(), host: hostname(), startedAt: '', token: 'dead' };
    await plant(dead);
    const claim = await claimOf(path);
    await plant({ pid: LIVE_PID, host: hostname(), startedAt: '' }, claim);
    const stop = new AbortController();
    const taking = waitFor({
      signal: stop.signal,
      onWait: () => stop.abort(new Error('waiting')),
    });
    await expect(taking).rejects.toThrow('waiting');
    expect(await lockFile()).toEqual(dead);
    expect(JSON.parse(await readFile(claim, 'utf8')).pid).toBe(LIVE_PID);
  });

  it('a taker killed mid-way is taken over in turn, at once; its claim is cleared', async () => {
    await plant({ pid: deadPid(), host: hostname(), startedAt: '', token: 'dead' });
    const claim = await claimOf(path);
    await plant({ pid: deadPid(), host: hostname(), startedAt: '' }, claim);
    const stop = new AbortController();
    const lock = await waitFor({
      signal: stop.signal,
      onWait: () => stop.abort(new Error('waited for a taker that is gone')),
    });
    expect((await lockFile()).pid).toBe(process.pid);
    expect(await readdir(dir)).toEqual(['.rcs-ledger.jsonl.lock']);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a chain of claims longer than any crash leaves is not waited on for ever: it fails, naming the lock', async () => {
    await plant({ pid: deadPid(), host: hostname(), startedAt: '', token: 'dead' });
    let of = path;
    for (let i = 0; i < 8; i++) {
      const claim = await claimOf(path, of);
      await plant({ pid: deadPid(), host: hostname(), startedAt: '' }, claim);
      of = claim;
    }
    await expect(waitFor()).rejects.toThrow(`could not take the lock ${path}; try again`);
    expect((await lockFile()).token).toBe('dead');
  });

  it('a link planted as a takeover claim is refused, never followed', async () => {
    const dead = { pid: deadPid(), host: hostname(), startedAt: '' };
    await plant(dead);
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious');
    await symlink(victim, await claimOf(path));
    await expect(waitFor()).rejects.toThrow('is a symbolic link');
    expect(await lockFile()).toEqual(dead);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  it('a link planted as the lock is refused, never followed', async () => {
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious');
    await symlink(victim, path);
    await expect(waitFor()).rejects.toThrow('is a symbolic link');
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  it('an abort before the first try throws its reason at once, and takes nothing', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped'));
    await expect(waitFor({ signal: stop.signal })).rejects.toThrow('stopped');
    expect(await readdir(dir)).toEqual([]);
  });

  it('an abort while waiting throws its reason, leaves no file of its own, and a later run may take it', async () => {
    const holder = { pid: LIVE_PID, host: hostname(), startedAt: '' };
    await plant(holder);
    const stop = new AbortController();
    const reason = new Error('interrupted');
    const error = await waitFor({
      signal: stop.signal,
      onWait: () => queueMicrotask(() => stop.abort(reason)),
    }).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(await readdir(dir)).toEqual(['.rcs-ledger.jsonl.lock']);
    await rm(path);
    const lock = await waitFor();
    await lock.release();
  });

  it('an abort ends the wait at once, with no timer nor listener left behind', async () => {
    await plant({ pid: LIVE_PID, host: hostname(), startedAt: '' });
    fakeTime();
    const stop = new AbortController();
    const reason = new Error('interrupted');
    const state = pending(waitFor({ signal: stop.signal }));
    // Waiting: its next look is a timer away.
    expect(await pausedAgain(state)).toBe(true);
    stop.abort(reason);
    await new Promise((done) => setImmediate(done));
    expect(state.settled).toBe(true);
    await expect(state.taking).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(stop.signal, 'abort')).toEqual([]);
  });

  it('a long wait leaves no listeners piling up on its signal', async () => {
    await plant({ pid: LIVE_PID, host: hostname(), startedAt: '' });
    fakeTime();
    const stop = new AbortController();
    const state = pending(waitFor({ signal: stop.signal }));
    // Ten looks, each after a pause: at most the pause under way listens.
    await passTime(LEASE_MS / 2, state);
    expect(await pausedAgain(state)).toBe(true);
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    stop.abort(new Error('enough'));
    await expect(state.taking).rejects.toThrow('enough');
    expect(getEventListeners(stop.signal, 'abort')).toEqual([]);
  });

  it('a second run of this process waits for the first even when the lock file was removed, holder unknown', async () => {
    const first = await waitFor();
    await rm(path);
    let started!: (holder: LockOwner | undefined) => void;
    const waiting = new Promise<LockOwner | undefined>((done) => {
      started = done;
    });
    const taking = waitFor({ onWait: (h) => started(h) });
    // It waits (told of no holder), rather than failing at its look at no file.
    expect(await Promise.race([waiting, taking])).toBeUndefined();
    await first.release();
    const second = await taking;
    expect((await lockFile()).pid).toBe(process.pid);
    await second.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a run whose lock file was removed by someone finds out, told which lock', async () => {
    const lock = await waitFor();
    await rm(path);
    await expect(lock.assertHeld()).rejects.toThrow(
      `the lock ${path} is no longer this run's: another run took it over`,
    );
    await lock.release();
  });

  it('its holder touches it when it checks that it still holds it: a taker judging it unchanged then takes nothing', async () => {
    const lock = await waitFor();
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path, old, old);
    await lock.assertHeld();
    expect((await stat(path)).mtimeMs).toBeGreaterThan(old.getTime());
    await lock.release();
  });

  it('its holder renews it, and only it: a lock that replaced it keeps its own lease', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lock = await waitFor();
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path, old, old);
    // Every eighth of its lease.
    await vi.advanceTimersByTimeAsync(LEASE_MS / 8);
    await vi.waitFor(async () => expect((await stat(path)).mtimeMs).toBeGreaterThan(old.getTime()));
    // Taken over by a run that judged this one gone: its lock is left as it is.
    const theirs = { pid: LIVE_PID, host: 'new-pod', startedAt: '', token: 'theirs' };
    await plant(theirs, `${path}.theirs`);
    await utimes(`${path}.theirs`, old, old);
    await rename(`${path}.theirs`, path);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    // Released (after any renewal under way): nothing renews anything any more.
    await lock.release();
    expect(vi.getTimerCount()).toBe(0);
    expect((await stat(path)).mtimeMs).toBe(old.getTime());
    expect(await lockFile()).toEqual(theirs);
  });
});
