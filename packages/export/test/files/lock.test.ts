import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireExportLock, ExportLockedError, LOCK_FILE } from '../../src/files/lock.js';

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
    expect((error as Error).message).toContain(`pid ${process.pid}`);
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

  it('does not take over a lock of a live process on another host', async () => {
    await writeFile(
      join(dir, LOCK_FILE),
      JSON.stringify({
        pid: deadPid(),
        host: 'some-other-host',
        startedAt: '2026-01-01T00:00:00Z',
      }),
    );
    await expect(acquireExportLock(dir)).rejects.toThrow(/another rcs export is writing/);
  });
});
