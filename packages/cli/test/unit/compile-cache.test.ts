import { chmodSync, mkdirSync, mkdtempSync, statSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileCacheDir, isPrivateDirectory } from '../../src/compile-cache.js';

const temp = () => mkdtempSync(join(tmpdir(), 'rcs-cache-unit-'));

describe('where the compile cache goes', () => {
  it('$XDG_CACHE_HOME/rcs when it is absolute, else ~/.cache/rcs (a relative one is ignored)', () => {
    expect(compileCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/rcs/compile-cache');
    const home = join(homedir(), '.cache/rcs/compile-cache');
    expect(compileCacheDir({ XDG_CACHE_HOME: 'cache' })).toBe(home);
    expect(compileCacheDir({})).toBe(home);
  });
});

describe.skipIf(process.platform === 'win32')('a private directory', () => {
  it('is created 0700, with its missing parents', () => {
    const dir = join(temp(), 'a/b');
    expect(isPrivateDirectory(dir)).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, '..')).mode & 0o777).toBe(0o700);
    expect(isPrivateDirectory(dir)).toBe(true); // and accepted as it is on the next run
  });

  it('is refused when group or others have any access to it', () => {
    for (const mode of [0o777, 0o750, 0o701]) {
      const dir = join(temp(), 'c');
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, mode);
      expect(isPrivateDirectory(dir)).toBe(false);
    }
  });

  it('is refused when a directory above it is writable by others (without the sticky bit)', () => {
    const open = temp();
    chmodSync(open, 0o777);
    expect(isPrivateDirectory(join(open, 'c'))).toBe(false);
    chmodSync(open, 0o1777); // as /tmp: others cannot rename what is ours
    expect(isPrivateDirectory(join(open, 'd'))).toBe(true);
  });

  it('is refused when it is a link (to a directory someone could have prepared)', () => {
    const base = temp();
    const real = join(base, 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, join(base, 'link'));
    expect(isPrivateDirectory(join(base, 'link'))).toBe(false);
  });

  it('is refused when it cannot be created', () => {
    const base = temp();
    chmodSync(base, 0o500);
    const asRoot = process.getuid?.() === 0; // root writes anyway: use a file in the way instead
    expect(isPrivateDirectory(asRoot ? '/dev/null/rcs' : join(base, 'x'))).toBe(false);
  });
});
