/**
 * What the platform answers only elsewhere, or only between two system calls, injected at the
 * system call (every call passes through to the real one unless a test says otherwise): another
 * process replacing a name just before the open, and a system without O_NOFOLLOW (Windows), where
 * the name is looked at with lstat before the open and the opened file compared with it after.
 */
import { closeSync, readFileSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as SafeOpen from '../../src/files/safe-open.js';
import { openNoFollowSync, UnsafeFileError } from '../../src/files/safe-open.js';
import { openFilesUnder } from '../support/open-files.js';

/** The injections of the running test. */
const faults = vi.hoisted(() => ({
  /** O_NOFOLLOW missing from fs.constants, for a module imported while it is set. */
  noFollowMissing: false,
  /** Runs just before the real openSync. */
  beforeOpen: undefined as undefined | ((path: string) => void),
  /** Runs just after the real lstatSync. */
  afterLstat: undefined as undefined | ((path: string) => void),
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const constants = new Proxy(
    { ...real.constants },
    {
      get: (target, key) =>
        key === 'O_NOFOLLOW' && faults.noFollowMissing ? undefined : Reflect.get(target, key),
    },
  );
  return {
    ...real,
    constants,
    openSync: ((...args: Parameters<typeof real.openSync>) => {
      faults.beforeOpen?.(String(args[0]));
      return real.openSync(...args);
    }) as typeof real.openSync,
    lstatSync: ((...args: Parameters<typeof real.lstatSync>) => {
      const info = real.lstatSync(...args);
      faults.afterLstat?.(String(args[0]));
      return info;
    }) as typeof real.lstatSync,
  };
});

const purposes = ['read', 'append', 'update', 'truncate'] as const;

let dir: string;
let path: string;
let victim: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rcs-safe-open-faults-'));
  path = join(dir, 'ledger');
  victim = join(dir, 'victim');
  await writeFile(victim, 'precious');
});
afterEach(async () => {
  faults.beforeOpen = undefined;
  faults.afterLstat = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Runs `hook` once, the first time it is called for `at`. */
const once = (at: string, hook: () => void) => {
  let done = false;
  return (p: string) => {
    if (p !== at || done) return;
    done = true;
    hook();
  };
};

/**
 * The refusal `open` throws (an UnsafeFileError of the module instance `refusal`); no descriptor
 * is left open under the test's directory.
 */
async function refusedOpen(
  open: () => number,
  refusal: typeof UnsafeFileError = UnsafeFileError,
): Promise<UnsafeFileError> {
  let error: unknown;
  try {
    closeSync(open());
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(refusal);
  const left = await openFilesUnder(dir);
  if (left !== undefined) expect(left).toEqual([]);
  return error as UnsafeFileError;
}

describe('another process changes the name just before the open', () => {
  it.each(purposes)(
    '%s: a link planted there is refused by the open itself, and its target is left as it was',
    async (purpose) => {
      await writeFile(path, 'ours');
      faults.beforeOpen = once(path, () => {
        unlinkSync(path);
        symlinkSync(victim, path);
      });
      const error = await refusedOpen(() => openNoFollowSync(path, purpose));
      expect(error).toMatchObject({ code: 'ELOOP', path });
      expect(await readFile(victim, 'utf8')).toBe('precious');
    },
  );

  it('a link planted where no file was yet (append creates) is refused, nothing appended to its target', async () => {
    faults.beforeOpen = once(path, () => symlinkSync(victim, path));
    await refusedOpen(() => openNoFollowSync(path, 'append'));
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  it('FreeBSD answers EMLINK where Linux answers ELOOP: refused as a link, even when the link is gone by the look after', async () => {
    faults.beforeOpen = once(path, () => {
      throw Object.assign(new Error(`EMLINK: too many links, open '${path}'`), { code: 'EMLINK' });
    });
    const error = await refusedOpen(() => openNoFollowSync(path, 'append'));
    expect(error).toMatchObject({ code: 'ELOOP', path });
  });

  it('a file renamed over it (another regular file) is opened: only a link is refused', async () => {
    await writeFile(path, 'old');
    await writeFile(join(dir, 'next'), 'new');
    faults.beforeOpen = once(path, () => renameSync(join(dir, 'next'), path));
    const fd = openNoFollowSync(path, 'read');
    try {
      expect(readFileSync(fd, 'utf8')).toBe('new');
    } finally {
      closeSync(fd);
    }
  });
});

describe('a system without O_NOFOLLOW (Windows): a look before the open, a comparison after', () => {
  // The module as imported there: its own UnsafeFileError class.
  let safeOpen: typeof SafeOpen;
  let refusal: typeof UnsafeFileError;
  beforeAll(async () => {
    faults.noFollowMissing = true;
    vi.resetModules();
    try {
      safeOpen = await import('../../src/files/safe-open.js');
      refusal = safeOpen.UnsafeFileError;
    } finally {
      faults.noFollowMissing = false;
    }
  });

  it.each(purposes)(
    '%s: a link is refused before the open, and its target is left as it was',
    async (purpose) => {
      await symlink(victim, path);
      const error = await refusedOpen(() => safeOpen.openNoFollowSync(path, purpose), refusal);
      expect(error).toMatchObject({ code: 'ELOOP', path });
      expect(error.message).toMatch(/ledger is a symbolic link, refused: /);
      expect(await readFile(victim, 'utf8')).toBe('precious');
      await expect(safeOpen.openForReading(path)).rejects.toMatchObject({ code: 'ELOOP' });
    },
  );

  it.each(['append', 'truncate'] as const)(
    '%s: a dangling link creates nothing where it points',
    async (purpose) => {
      await symlink(join(dir, 'nowhere'), path);
      await refusedOpen(() => safeOpen.openNoFollowSync(path, purpose), refusal);
      await expect(stat(join(dir, 'nowhere'))).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it('a regular file is opened for each purpose, and a missing one created', async () => {
    closeSync(safeOpen.openNoFollowSync(path, 'append'));
    for (const purpose of purposes) closeSync(safeOpen.openNoFollowSync(path, purpose));
    const handle = await safeOpen.openForReading(path);
    await handle.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('a link swapped in between the look and the open is refused once opened, and closed', async () => {
    await writeFile(path, 'ours');
    faults.afterLstat = once(path, () => {
      unlinkSync(path);
      symlinkSync(victim, path);
    });
    const error = await refusedOpen(() => safeOpen.openNoFollowSync(path, 'read'), refusal);
    expect(error).toMatchObject({ code: 'ELOOP', path });
    expect(error.message).toMatch(/ledger is a symbolic link, refused: /);
  });
});
