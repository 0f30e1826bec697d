// The `rcs` command npm links (package.json "bin") is bin/rcs.js, which loads the built bundle;
// rcs turns on no compile cache of its own, so none that another user planted is ever read.
import { chmodSync, chownSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO, runCommand, tempDir } from './helpers.js';

const pkg = JSON.parse(readFileSync(join(REPO, 'packages/cli/package.json'), 'utf8'));
const BIN = join(REPO, 'packages/cli', pkg.bin.rcs);

beforeAll(() => {
  assertBuilt();
});

/** Runs `bin` in a clean environment and `env`: no NODE_COMPILE_CACHE from outside. */
const run = (bin: string, args: string[], env: Record<string, string>) =>
  runCommand(process.execPath, [bin, ...args], { cwd: tempDir('rcs-bin-'), env });

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
  it('is a committed file (so npm ci links it before any build) that runs the bundle', async () => {
    expect(pkg.bin.rcs).toBe('./bin/rcs.js');
    const { env } = privateHome();
    expect((await run(BIN, ['--version'], env)).stdout.trim()).toBe(pkg.version);
    expect((await run(BIN, ['export', '--help'], env)).stdout).toMatch(/Usage: rcs export/);
  });
});

describe('no compile cache of its own: nothing another user planted is run', () => {
  it("a cache planted where another local user can (Node's default in the shared temporary directory) runs nothing", async () => {
    const plant = await plantCache();
    // The plant is real: a run that reads that directory runs the planted code.
    const control = await run(plant.bin, ['--version'], {
      ...plant.env,
      NODE_COMPILE_CACHE: plant.dir,
    });
    expect(control.stdout).toMatch(/planted code ran/);
    expect(control.code).toBe(77);

    // As another user would plant it: in Node's default place (`$TMPDIR/node-compile-cache`), or
    // in the XDG cache directory an earlier rcs used (`$XDG_CACHE_HOME/rcs/compile-cache`).
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
      const r = await run(plant.bin, ['--version'], victim);
      expect(r.stdout).not.toMatch(/planted/);
      expect(r.stdout.trim()).toBe(pkg.version);
      expect(r.code).toBe(0);
    }
  });
});

/**
 * A copy of the built CLI and a compile cache for it that runs other code: made from a script of
 * the same length at the same path (V8 checks the length only), its header then given the genuine
 * file's size and CRC (Node checks those, and the cache's own CRC, which stays right).
 */
async function plantCache(): Promise<{ bin: string; dir: string; env: Record<string, string> }> {
  const install = tempDir('rcs-install-');
  cpSync(join(REPO, 'packages/cli/dist'), join(install, 'dist'), { recursive: true });
  cpSync(join(REPO, 'packages/cli/bin'), join(install, 'bin'), { recursive: true });
  const bin = join(install, 'bin/rcs.js');
  const target = join(install, 'dist/rcs.js');
  const genuine = readFileSync(target);
  const payload =
    'process.stdout.write("planted code ran as uid " + process.getuid() + "\\n"); process.exit(77);';
  writeFileSync(target, `${payload}/*${' '.repeat(genuine.length - payload.length - 4)}*/`);
  const dir = tempDir('rcs-plant-');
  const { env } = privateHome();
  const crafting = await run(bin, ['--version'], { ...env, NODE_COMPILE_CACHE: dir });
  expect(crafting.code).toBe(77);
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
