/**
 * A disk that is full when a run takes the lock: the lock file is created (an inode is free) but
 * its owner cannot be written into it. The run fails with the disk's error, which the CLI names
 * (ENOSPC: "not uploaded"), and leaves no empty file that a later run would find as a lock.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { acquireExportLock, acquireLock } from '../../src/files/lock.js';

// Created as usual; nothing can be written into it.
vi.mock('../../src/files/safe-open.js', async (actual) =>
  (await import('../support/short-writes.js')).shortWrites(await actual(), 0),
);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-lock-full-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a run on a full disk fails with the disk error, leaves no lock file, and holds nothing', async () => {
  await expect(acquireExportLock(dir)).rejects.toMatchObject({ code: 'ENOSPC' });
  expect(await readdir(dir)).toEqual([]);
  // A waiting run is not told to wait for the run that failed: it fails alike, at once.
  const onWait = vi.fn();
  await expect(
    acquireLock(join(dir, '.rcs-export.lock'), { wait: true, onWait }),
  ).rejects.toMatchObject({
    code: 'ENOSPC',
  });
  expect(onWait).not.toHaveBeenCalled();
  expect(await readdir(dir)).toEqual([]);
});
