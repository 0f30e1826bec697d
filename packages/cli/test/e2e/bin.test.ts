// The `rcs` command npm links (package.json "bin") is bin/rcs.js, which loads the built bundle;
// the bundle turns on Node's compile cache in a directory of the user's own (src/compile-cache.ts).
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO, tempDir } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'packages/cli/package.json'), 'utf8'));
const BIN = join(REPO, 'packages/cli', pkg.bin.rcs);

beforeAll(() => {
  assertBuilt();
});

/** Runs `bin` with only the given environment (plus PATH): no NODE_COMPILE_CACHE from outside. */
function run(bin: string, args: string[], env: Record<string, string>): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

/** Every file under `dir` (Node puts its cache files in a sub-directory per Node version and user). */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

/** A home of the user's own, and what a run of `rcs` sees with it. */
function privateHome() {
  const home = tempDir('rcs-home-');
  return { home, env: { HOME: home, TMPDIR: tempDir('rcs-tmp-') } };
}

describe('the rcs bin', () => {
  it('is a committed file (so npm ci links it before any build) that runs the bundle', () => {
    expect(pkg.bin.rcs).toBe('./bin/rcs.js');
    const { env } = privateHome();
    expect(run(BIN, ['--version'], env).stdout.trim()).toBe(pkg.version);
    expect(run(BIN, ['export', '--help'], env).stdout).toMatch(/Usage: rcs export/);
  });
});

describe('the compile cache: in a directory of the user own, never one someone else can write', () => {
  it('is created 0700 under ~/.cache/rcs (or $XDG_CACHE_HOME/rcs) and used by the next runs', () => {
    const { home, env } = privateHome();
    const first = run(BIN, ['--help'], env);
    expect(first.status).toBe(0);
    const dir = join(home, '.cache/rcs/compile-cache');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(filesUnder(dir).length).toBeGreaterThan(0);
    expect(run(BIN, ['--help'], env).stdout).toBe(first.stdout);

    const xdg = join(tempDir('rcs-xdg-'), 'cache');
    expect(run(BIN, ['--version'], { ...env, XDG_CACHE_HOME: xdg }).status).toBe(0);
    expect(statSync(join(xdg, 'rcs/compile-cache')).mode & 0o777).toBe(0o700);
  });

  it('a damaged cache file (bytes flipped in a genuine one) never stops rcs', () => {
    const { home, env } = privateHome();
    const help = run(BIN, ['--help'], env).stdout;
    const files = filesUnder(join(home, '.cache/rcs/compile-cache'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const data = readFileSync(file);
      // In the header, in V8's data, and at the end.
      for (const at of [8, 40, Math.floor(data.length / 2), data.length - 1]) {
        if (at < data.length) data[at] = data[at]! ^ 0xff;
      }
      writeFileSync(file, data);
    }
    for (const args of [['--help'], ['--version'], ['sessions', '--help']]) {
      const r = run(BIN, args, env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
    expect(run(BIN, ['--help'], env).stdout).toBe(help);
  });

  it('a directory with access for others, or owned by someone else, is not used', () => {
    const { env } = privateHome();
    const open = join(tempDir('rcs-xdg-'), 'open');
    mkdirSync(join(open, 'rcs/compile-cache'), { recursive: true });
    chmodSync(join(open, 'rcs/compile-cache'), 0o777);
    const shared = tempDir('rcs-xdg-'); // its parent stays ours: only the cache dir is refused
    chmodSync(shared, 0o777);
    const cases = [open, join(shared, 'cache')];
    if (process.getuid?.() === 0) {
      const foreign = join(tempDir('rcs-xdg-'), 'foreign');
      mkdirSync(join(foreign, 'rcs/compile-cache'), { recursive: true, mode: 0o700 });
      chownSync(join(foreign, 'rcs/compile-cache'), 4242, 4242);
      cases.push(foreign);
    }
    for (const xdg of cases) {
      const r = run(BIN, ['--version'], { ...env, XDG_CACHE_HOME: xdg });
      expect(r.stdout.trim()).toBe(pkg.version);
      expect(r.status).toBe(0);
      expect(filesUnder(xdg)).toEqual([]);
    }
  });

  it("a cache planted where another local user can (Node's default in the shared temporary directory) runs nothing", () => {
    const plant = plantCache();
    // The plant is real: a run that reads that directory runs the planted code.
    const control = run(plant.bin, ['--version'], { ...plant.env, NODE_COMPILE_CACHE: plant.dir });
    expect(control.stdout).toMatch(/planted code ran/);
    expect(control.status).toBe(77);

    // As another user would plant it: before the victim's first run, in Node's default place
    // (`$TMPDIR/node-compile-cache`), or in a predictable XDG directory that is not the victim's.
    const tmp = tempDir('rcs-shared-tmp-');
    cpSync(plant.dir, join(tmp, 'node-compile-cache'), { recursive: true });
    const xdg = join(tempDir('rcs-shared-xdg-'), 'xdg');
    cpSync(plant.dir, join(xdg, 'rcs/compile-cache'), { recursive: true });
    if (process.getuid?.() === 0) chownRecursive(xdg, 4242);
    else chmodSync(join(xdg, 'rcs/compile-cache'), 0o777);
    const { env } = privateHome();
    for (const victim of [
      { ...env, TMPDIR: tmp },
      { ...env, TMPDIR: tmp, XDG_CACHE_HOME: xdg },
    ]) {
      const r = run(plant.bin, ['--version'], victim);
      expect(r.stdout).not.toMatch(/planted/);
      expect(r.stdout.trim()).toBe(pkg.version);
      expect(r.status).toBe(0);
    }
  });
});

/**
 * A copy of the built CLI and a compile cache for it that runs other code: made from a script of
 * the same length at the same path (V8 checks the length only), its header then given the genuine
 * file's size and CRC (Node checks those, and the cache's own CRC, which stays right).
 */
function plantCache(): { bin: string; dir: string; env: Record<string, string> } {
  const install = tempDir('rcs-install-');
  cpSync(join(REPO, 'packages/cli/dist'), join(install, 'dist'), { recursive: true });
  cpSync(join(REPO, 'packages/cli/bin'), join(install, 'bin'), { recursive: true });
  const bin = join(install, 'bin/rcs.js');
  const chunk = readdirSync(join(install, 'dist')).find((f) => /^program-.*\.js$/.test(f));
  if (!chunk) throw new Error('no program chunk in dist');
  const target = join(install, 'dist', chunk);
  const genuine = readFileSync(target);
  const payload =
    'process.stdout.write("planted code ran as uid " + process.getuid() + "\\n"); process.exit(77);';
  writeFileSync(target, `${payload}/*${' '.repeat(genuine.length - payload.length - 4)}*/`);
  const dir = tempDir('rcs-plant-');
  const { env } = privateHome();
  const crafting = run(bin, ['--version'], { ...env, NODE_COMPILE_CACHE: dir });
  expect(crafting.status).toBe(77);
  writeFileSync(target, genuine);
  let patched = 0;
  for (const file of filesUnder(dir)) {
    const data = readFileSync(file);
    if (data.readUInt32LE(4) !== genuine.length) continue; // another module's entry
    data.writeUInt32LE(crc32(genuine), 12);
    writeFileSync(file, data);
    patched++;
  }
  expect(patched).toBe(1);
  return { bin, dir, env };
}

function chownRecursive(dir: string, uid: number): void {
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    chownSync(join(e.parentPath, e.name), uid, uid);
  }
  chownSync(dir, uid, uid);
  chownSync(dirname(dir), uid, uid);
}
