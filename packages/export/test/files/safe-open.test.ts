import { execFileSync } from 'node:child_process';
import { closeSync, readSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicFile } from '../../src/files/atomic-file.js';
import {
  createExclusive,
  openForReading,
  openNoFollowSync,
  readSmallFile,
  UnsafeFileError,
} from '../../src/files/safe-open.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-safe-open-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('opening rcs files without following links', () => {
  it('reads a regular file', async () => {
    await writeFile(join(dir, 'a'), 'text');
    expect((await readSmallFile(join(dir, 'a'), 100))?.toString()).toBe('text');
    expect(await readSmallFile(join(dir, 'missing'), 100)).toBeUndefined();
  });

  it('reads at most one byte past the limit of a larger file', async () => {
    await writeFile(join(dir, 'big'), 'x'.repeat(1000));
    expect((await readSmallFile(join(dir, 'big'), 10))?.length).toBe(11);
  });

  it('refuses a link for reading, even to a file that exists', async () => {
    await writeFile(join(dir, 'target'), 'secret');
    await symlink(join(dir, 'target'), join(dir, 'link'));
    const error = await openForReading(join(dir, 'link')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeFileError);
    expect(error).toMatchObject({ code: 'ELOOP', path: join(dir, 'link') });
  });

  it('refuses a link for creating, dangling or not, and creates nothing where it points', async () => {
    await symlink(join(dir, 'nowhere'), join(dir, 'dangling'));
    await expect(createExclusive(join(dir, 'dangling'), 0o600)).rejects.toThrow(
      /dangling is a symbolic link, refused/,
    );
    await expect(stat(join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a file that exists is EEXIST for creating, as ever', async () => {
    await writeFile(join(dir, 'there'), '');
    await expect(createExclusive(join(dir, 'there'), 0o600)).rejects.toMatchObject({
      code: 'EEXIST',
    });
  });

  it('creates with the mode asked, readable when asked', async () => {
    const handle = await createExclusive(join(dir, 'new'), 0o600, true);
    await handle.writeFile('abc');
    const back = Buffer.alloc(3);
    await handle.read(back, 0, 3, 0);
    await handle.close();
    expect(back.toString()).toBe('abc');
    expect((await stat(join(dir, 'new'))).mode & 0o777).toBe(0o600);
  });

  it('refuses a directory and a FIFO, without waiting for a FIFO writer', async () => {
    await mkdir(join(dir, 'sub'));
    await expect(openForReading(join(dir, 'sub'))).rejects.toThrow(
      /sub is not a regular file \(a FIFO, device or directory\), refused/,
    );
    try {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
    } catch {
      return; // No mkfifo here.
    }
    await expect(openForReading(join(dir, 'fifo'))).rejects.toMatchObject({ code: 'EINVAL' });
  });

  it('a partial file is never created through a link', async () => {
    // Its name is random, so nobody can plant a link under it in advance: here one is planted
    // under a name it took, and the call AtomicFile.create makes is refused.
    const victim = join(dir, 'victim');
    await writeFile(victim, 'precious');
    const file = await AtomicFile.create(join(dir, 'users.jsonl'));
    await file.discard();
    await symlink(victim, file.partial);
    await expect(
      createExclusive(file.partial, 0o600).then((h) => h.close()),
    ).rejects.toBeInstanceOf(UnsafeFileError);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });
});

describe('opening synchronously without following links (the upload ledger, its lock, the trace file)', () => {
  const purposes = ['read', 'append', 'update', 'truncate'] as const;

  it.each(purposes)(
    '%s: a link is refused, and the file it points to is left as it was',
    async (purpose) => {
      const victim = join(dir, 'victim');
      await writeFile(victim, 'precious');
      await symlink(victim, join(dir, 'ledger'));
      let error: unknown;
      try {
        closeSync(openNoFollowSync(join(dir, 'ledger'), purpose));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UnsafeFileError);
      expect(error).toMatchObject({ code: 'ELOOP', path: join(dir, 'ledger') });
      expect((error as Error).message).toMatch(
        /ledger is a symbolic link, refused: .*remove the link/,
      );
      expect(await readFile(victim, 'utf8')).toBe('precious');
    },
  );

  it.each(['append', 'truncate'] as const)(
    '%s: a dangling link creates nothing where it points',
    async (purpose) => {
      await symlink(join(dir, 'nowhere'), join(dir, 'trace.jsonl'));
      expect(() => openNoFollowSync(join(dir, 'trace.jsonl'), purpose)).toThrow(UnsafeFileError);
      await expect(stat(join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it('appends to, updates, truncates and reads a regular file; creates it with mode 0600', async () => {
    const path = join(dir, 'ledger');
    expect(() => openNoFollowSync(path, 'read')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
    for (const text of ['one\n', 'two\n']) {
      const fd = openNoFollowSync(path, 'append');
      writeSync(fd, text);
      closeSync(fd);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const update = openNoFollowSync(path, 'update');
    writeSync(update, 'ONE', 0);
    closeSync(update);
    expect(await readFile(path, 'utf8')).toBe('ONE\ntwo\n');
    const read = openNoFollowSync(path, 'read');
    const back = Buffer.alloc(3);
    readSync(read, back, 0, 3, 4);
    closeSync(read);
    expect(back.toString()).toBe('two');
    closeSync(openNoFollowSync(path, 'truncate'));
    expect(await readFile(path, 'utf8')).toBe('');
  });

  it('a directory or a FIFO is refused, without waiting for the FIFO`s other end', async () => {
    await mkdir(join(dir, 'sub'));
    expect(() => openNoFollowSync(join(dir, 'sub'), 'read')).toThrow(/sub is not a regular file/);
    try {
      execFileSync('mkfifo', [join(dir, 'fifo')]);
    } catch {
      return; // No mkfifo here.
    }
    expect(() => openNoFollowSync(join(dir, 'fifo'), 'read')).toThrow(UnsafeFileError);
    // For writing, with no reader, the open fails at once (ENXIO) instead of waiting for one.
    expect(() => openNoFollowSync(join(dir, 'fifo'), 'append')).toThrow();
  });
});
