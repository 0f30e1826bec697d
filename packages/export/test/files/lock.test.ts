import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  acquireExportLock,
  ExportLockedError,
  LOCK_FILE,
  LOCK_LEASE_MS,
} from '../../src/files/lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

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
});
