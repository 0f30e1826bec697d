import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireExportLock,
  ExportLockedError,
  LOCK_FILE,
  LOCK_LEASE_MS,
} from '../../src/files/lock.js';
import { openFilesUnder } from '../support/open-files.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-lock-'));
});
afterEach(async () => {
  vi.useRealTimers();
  await rm(dir, { recursive: true, force: true });
});

/** This machine's boot id, as another rcs on it records it (undefined where there is none). */
async function ourBootId(): Promise<string | undefined> {
  const text = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => undefined);
  return text?.trim() || undefined;
}

/** A pid that surely belongs to a running process other than ours: our parent. */
const LIVE_PID = process.ppid;

/** When the lock file's lease was last renewed, as another process sees it. */
async function leaseAgeMs(path: string): Promise<number> {
  return Date.now() - (await stat(path)).mtimeMs;
}

/** A pid that surely belongs to no running process: one that has just exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
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
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
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

  it('a second export of the same process is refused, not a take-over', async () => {
    const lock = await acquireExportLock(dir);
    await expect(acquireExportLock(dir)).rejects.toThrow(/another export of this process/);
    await lock.release();
  });

  it('a run whose lease expired and was taken over finds out before committing, and leaves the new lock alone', async () => {
    const lock = await acquireExportLock(dir);
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: deadPid(), host: 'new-pod', token: 'theirs' }));
    await expect(lock.assertHeld()).rejects.toThrow(/was taken over by another run/);
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
    const renewed = new Date(Date.now() - 30_200);
    await utimes(path, renewed, renewed);
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
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
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
    const renewed = new Date(Date.now() - 10_000);
    await utimes(path, renewed, renewed);
    await expect(acquireExportLock(dir, { leaseMs: 60_000 })).rejects.toThrow(
      /lease renewed 10 s ago.*after 60 s without renewal from another host/,
    );
    const lock = await acquireExportLock(dir, { leaseMs: 5_000 });
    await lock.release();
  });

  it('a lock that cannot be removed is reported after a few tries, not tried for ever', async () => {
    // A directory under the lock's name: its owner cannot be read and it cannot be unlinked.
    const path = join(dir, LOCK_FILE);
    await mkdir(path);
    await expect(acquireExportLock(dir)).rejects.toThrow('its owner could not be read');
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
    await expect(acquireExportLock(dir)).rejects.toThrow(
      `could not take the export lock ${path}; try again`,
    );
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

  it('stops renewing once released: a later lock in its place keeps its own lease', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lock = await acquireExportLock(dir);
    await lock.release();
    const path = join(dir, LOCK_FILE);
    await writeFile(path, JSON.stringify({ pid: LIVE_PID, host: 'new-pod', startedAt: '' }));
    const old = new Date(Date.now() - LOCK_LEASE_MS - 5_000);
    await utimes(path, old, old);
    await vi.advanceTimersByTimeAsync(LOCK_LEASE_MS);
    // Give a renewal, had one been started, the time to reach the disk.
    await new Promise((done) => setTimeout(done, 100));
    expect(await leaseAgeMs(path)).toBeGreaterThan(LOCK_LEASE_MS);
  });

  it('a run whose lock file was removed by someone finds out, and its release removes nothing', async () => {
    const lock = await acquireExportLock(dir);
    await rm(join(dir, LOCK_FILE));
    await expect(lock.assertHeld()).rejects.toThrow(ExportLockedError);
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('leaves no file open while it holds the lock', async () => {
    const lock = await acquireExportLock(dir);
    const open = await openFilesUnder(dir);
    await lock.release();
    if (open !== undefined) expect(open).toEqual([]);
  });
});
